/*
 * Copyright 2026 the delayqueue authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package io.github.delayqueue.core.internal.admin;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.internal.history.HistoryRecorder;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;

import org.springframework.data.redis.connection.RedisConnection;
import io.github.delayqueue.core.QueueHistory;
import io.github.delayqueue.core.internal.redis.RedisCalls;

/**
 * Reads a queue's history for {@link DelayQueueAdmin}: bounded work, whatever the traffic
 * (the last hour reads 2 hashes of at most 60 fields; the last day 2 and the last week 8
 * hashes of at most 120 fields).
 */
public final class Histories {

	private static final long MINUTE = 60_000;

	private final AdminContext context;

	public Histories(AdminContext context) {
		this.context = context;
	}

	public QueueHistory read(String queue, QueueHistory.Span span) {
		QueueNames.queue(queue);
		if (span == null) {
			throw new IllegalArgumentException("Span must not be null: use HOUR, DAY or WEEK");
		}
		QueueKeys keys = this.context.keys().apply(queue);
		long nowMinute = this.context.clock().millis() / MINUTE;
		long step = span.interval().toMinutes();
		long last = nowMinute / step;
		long first = last - span.points() + 1;
		return RedisCalls.inRedis("read the history of queue '" + queue + "'",
				() -> this.context.scripts().execute((connection) -> {
					Map<String, Map<String, String>> hashes = new HashMap<>();
					List<QueueHistory.Point> points = new ArrayList<>(span.points());
					for (long interval = first; interval <= last; interval++) {
						long startMinute = interval * step;
						String key;
						String field;
						if (span == QueueHistory.Span.HOUR) {
							key = keys.historyMinutes(startMinute / 60);
							field = Long.toString(startMinute % 60);
						}
						else {
							long day = startMinute / (24 * 60);
							key = keys.historyDay(day);
							field = ((span == QueueHistory.Span.DAY) ? "q" : "h")
									+ (startMinute - day * 24 * 60) / step;
						}
						String value = hashes.computeIfAbsent(key, (name) -> readHash(connection, name)).get(field);
						points.add(point(Instant.ofEpochMilli(startMinute * MINUTE), value));
					}
					return new QueueHistory(queue, span, points);
				}));
	}

	private static Map<String, String> readHash(RedisConnection connection, String key) {
		Map<byte[], byte[]> entries = connection.hashCommands().hGetAll(QueueKeys.bytes(key));
		Map<String, String> fields = new HashMap<>();
		if (entries != null) {
			entries.forEach((field, value) -> fields.put(new String(field, StandardCharsets.UTF_8),
					new String(value, StandardCharsets.UTF_8)));
		}
		return fields;
	}

	public static QueueHistory.Point point(Instant start, String value) {
		long[] counts = new long[HistoryRecorder.WIDTH];
		if (value != null && !value.isEmpty()) {
			String[] parts = value.split(",");
			for (int i = 0; i < Math.min(parts.length, counts.length); i++) {
				counts[i] = Long.parseLong(parts[i]);
			}
		}
		int first = HistoryRecorder.COUNTS.size();
		List<Long> lateness = new ArrayList<>(counts.length - first);
		for (int i = first; i < HistoryRecorder.FILTERED; i++) {
			lateness.add(counts[i]);
		}
		return new QueueHistory.Point(start, counts[0], counts[1], counts[2], counts[3], counts[4], lateness,
				counts[HistoryRecorder.FILTERED]);
	}

}
