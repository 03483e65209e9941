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

package io.github.delayqueue.benchmark;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.InFlightMessage;
import io.github.delayqueue.core.QueueHistory;
import io.github.delayqueue.core.ScheduledMessage;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;

/**
 * The {@code dashboard} scenario: how long each read behind a dashboard page takes on a
 * large queue ({@code n} scheduled messages and {@code n / 10} dead letters), and how
 * much memory a queue's history takes at its bound.
 */
final class DashboardScenario {

	private static final int RUNS = 21;

	private final RedisConnectionFactory connectionFactory;

	private final Scenarios scenarios;

	DashboardScenario(RedisConnectionFactory connectionFactory, Scenarios scenarios) {
		this.connectionFactory = connectionFactory;
		this.scenarios = scenarios;
	}

	/**
	 * Whether the due times are written in random order
	 * ({@code -Ddashboard.shuffled=true}) rather than ascending: the same times, but
	 * every far-tier slot then holds its earliest messages anywhere in the order written.
	 */
	private static final boolean SHUFFLED = Boolean.getBoolean("dashboard.shuffled");

	/** Message i's due time after the first hour, in ms: one per millisecond. */
	private static long dueOffset(int i, int n) {
		long span = Math.min(n, 3_600_000);
		return SHUFFLED ? (i * 7919L) % span : i % span;
	}

	Map<String, Object> run(int n) throws Exception {
		this.scenarios.flush();
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("scenario", "dashboard");
		result.put("scheduled", n);
		result.put("shuffled", SHUFFLED);
		int dead = n / 10;
		result.put("dead_letters", dead);
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			long started = System.nanoTime();
			Scenarios.send(engine, n,
					(i) -> DelayMessage.builder(Scenarios.Order.sample(i))
						.queue(Scenarios.QUEUE)
						.id("s-" + i)
						.delay(Duration.ofHours(1).plusMillis(dueOffset(i, n))));
			DelayQueueListenerContainer failing = engine
				.listenerContainer(Scenarios.QUEUE, "bench", Scenarios.Order.class, (order, context) -> {
					throw new IllegalStateException("refused: " + order.orderId());
				})
				.maxAttempts(1)
				.concurrency(64)
				.build();
			failing.start();
			Scenarios.send(engine, dead,
					(i) -> DelayMessage.builder(Scenarios.Order.sample(i))
						.queue(Scenarios.QUEUE)
						.id("d-" + i)
						.delay(Duration.ZERO));
			while (engine.admin().stats(Scenarios.QUEUE).dead() < dead) {
				Thread.sleep(200);
			}
			failing.stop();
			result.put("fill_s", Math.round((System.nanoTime() - started) / 1e8) / 10.0);
			String queue = Scenarios.QUEUE;
			List<ScheduledMessage> first = engine.admin().scheduled(queue, null, 50);
			String deep = engine.admin().scheduled(queue, null, 1000).get(999).cursor();
			List<DeadLetter> letters = engine.admin().deadLetters(queue, null, 1000);
			String middle = letters.get(letters.size() - 1).entryId();
			time(result, "all_queues_row", () -> {
				engine.admin().stats(queue);
				engine.admin().controls(queue);
				return engine.admin().history(queue, QueueHistory.Span.HOUR);
			});
			time(result, "queue_detail", () -> {
				engine.admin().stats(queue);
				engine.admin().controls(queue);
				engine.admin().sizeLimit(queue);
				engine.admin().partitionLayout(queue);
				engine.admin().partitionOwners(queue, "bench");
				return engine.admin().history(queue, QueueHistory.Span.HOUR);
			});
			time(result, "scheduled_first_page", () -> engine.admin().scheduled(queue, null, 50));
			time(result, "scheduled_page_after_1000", () -> engine.admin().scheduled(queue, deep, 50));
			time(result, "find_by_id", () -> engine.admin().scheduledMessage(queue, first.get(0).id()));
			time(result, "dead_letters_first_page", () -> engine.admin().deadLetters(queue, null, 50));
			time(result, "dead_letters_page_after_1000", () -> engine.admin().deadLetters(queue, middle, 50));
			time(result, "in_flight", () -> engine.admin().inFlight(queue, InFlightMessage.Order.IDLE, 100));
			Instant halfway = first.get(0).dueTime().plusMillis(n / 2);
			time(result, "position_of_a_time", () -> engine.admin().scheduledPosition(queue, halfway));
			time(result, "scheduled_page_from_a_time",
					() -> engine.admin().scheduled(queue, halfway.toEpochMilli() + ":", 50));
			time(result, "dead_letters_by_error", () -> engine.admin().deadLetterErrors(queue, 2000));
			time(result, "history_week", () -> engine.admin().history(queue, QueueHistory.Span.WEEK));
		}
		result.put("history_bytes_at_bound", historyAtBound());
		return result;
	}

	private static void time(Map<String, Object> result, String name, Callable<?> read) throws Exception {
		List<Double> millis = new ArrayList<>();
		for (int i = 0; i < RUNS; i++) {
			long started = System.nanoTime();
			read.call();
			millis.add((System.nanoTime() - started) / 1e6);
		}
		Collections.sort(millis);
		result.put(name + "_p50_ms", Math.round(millis.get(RUNS / 2) * 10) / 10.0);
		result.put(name + "_max_ms", Math.round(millis.get(RUNS - 1) * 10) / 10.0);
	}

	/**
	 * Fills one queue's history to its bound (3 hourly hashes of 60 minutes, 10 daily
	 * hashes of 96 quarters and 24 hours) with values as busy as a queue handling 20,000
	 * messages a minute writes, and returns the bytes Redis reports for them.
	 */
	private long historyAtBound() {
		String value = "20000,19990,10,2,1,15000,3000,1500,400,80,15,3,2";
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			List<byte[]> keys = new ArrayList<>();
			for (int hour = 0; hour < 3; hour++) {
				byte[] key = ("dq:{history-bound}:history:m:" + hour).getBytes(StandardCharsets.UTF_8);
				keys.add(key);
				for (int minute = 0; minute < 60; minute++) {
					connection.hashCommands()
						.hSet(key, Integer.toString(minute).getBytes(StandardCharsets.UTF_8),
								value.getBytes(StandardCharsets.UTF_8));
				}
			}
			for (int day = 0; day < 10; day++) {
				byte[] key = ("dq:{history-bound}:history:d:" + day).getBytes(StandardCharsets.UTF_8);
				keys.add(key);
				for (int quarter = 0; quarter < 96; quarter++) {
					connection.hashCommands()
						.hSet(key, ("q" + quarter).getBytes(StandardCharsets.UTF_8),
								value.getBytes(StandardCharsets.UTF_8));
				}
				for (int hour = 0; hour < 24; hour++) {
					connection.hashCommands()
						.hSet(key, ("h" + hour).getBytes(StandardCharsets.UTF_8),
								value.getBytes(StandardCharsets.UTF_8));
				}
			}
			long bytes = 0;
			for (byte[] key : keys) {
				Long usage = connection.scriptingCommands()
					.eval("return redis.call('MEMORY', 'USAGE', KEYS[1])".getBytes(StandardCharsets.UTF_8),
							ReturnType.INTEGER, 1, key);
				bytes += (usage != null) ? usage : 0;
			}
			return bytes;
		}
	}

}
