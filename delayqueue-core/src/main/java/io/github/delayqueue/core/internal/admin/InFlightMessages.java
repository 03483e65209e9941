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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.WireFormat;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStreamCommands.XPendingOptions;
import org.springframework.data.redis.connection.stream.ByteRecord;
import org.springframework.data.redis.connection.stream.PendingMessage;
import org.springframework.data.redis.connection.stream.PendingMessages;
import io.github.delayqueue.core.InFlightMessage;
import io.github.delayqueue.core.internal.redis.RedisCalls;

/**
 * Reads a queue's in-flight messages for {@link DelayQueueAdmin}: the pending entries of
 * every group, in every partition, main and retry streams. Bounded work: per partition
 * and group, one {@code XPENDING} of the oldest entries (at most a page) per stream, then
 * one {@code XRANGE} per entry shown, for its message id.
 */
public final class InFlightMessages {

	/** The largest page. */
	static final int MAX_PAGE = 1000;

	private final AdminContext context;

	public InFlightMessages(AdminContext context) {
		this.context = context;
	}

	public List<InFlightMessage> list(String queue, InFlightMessage.Order order, int count) {
		QueueNames.queue(queue);
		if (count < 1 || count > MAX_PAGE) {
			throw new IllegalArgumentException(
					"Page size must be from 1 to " + MAX_PAGE + " in-flight messages, but was " + count);
		}
		Comparator<InFlightMessage> sort = switch ((order != null) ? order : InFlightMessage.Order.IDLE) {
			case IDLE -> Comparator.comparing(InFlightMessage::idle).reversed();
			case DELIVERIES -> Comparator.comparingLong(InFlightMessage::deliveries).reversed();
		};
		return RedisCalls.inRedis("read the in-flight messages of queue '" + queue + "'",
				() -> this.context.scripts().execute((connection) -> {
					this.context.layouts().verifyPartitions(connection, queue);
					List<Pending> all = new ArrayList<>();
					for (QueueKeys keys : this.context.partitionKeys(queue)) {
						for (Map<String, Object> info : QueueInspection.groupInfo(connection, keys.stream())) {
							String group = ScriptRunner.asString(info.get("name"));
							pending(connection, keys, group, keys.stream(), false, count, all);
							pending(connection, keys, group, keys.retryStream(group), true, count, all);
						}
						for (Map<String, Object> info : QueueInspection.groupInfo(connection, keys.urgent())) {
							String group = ScriptRunner.asString(info.get("name"));
							pending(connection, keys, group, keys.urgent(), false, count, all);
						}
					}
					all.sort(Comparator.comparing(Pending::message, sort));
					List<InFlightMessage> page = new ArrayList<>();
					for (Pending pending : all.subList(0, Math.min(count, all.size()))) {
						page.add(withMessageId(connection, pending));
					}
					return page;
				}));
	}

	private static void pending(RedisConnection connection, QueueKeys keys, String group, String stream, boolean retry,
			int count, List<Pending> into) {
		byte[] key = QueueKeys.bytes(stream);
		if (!Boolean.TRUE.equals(connection.keyCommands().exists(key))) {
			return;
		}
		PendingMessages messages;
		try {
			messages = connection.streamCommands()
				.xPending(key, group, XPendingOptions.range(Range.unbounded(), (long) count));
		}
		catch (RuntimeException ex) {
			if (String.valueOf(ex.getMessage()).contains("NOGROUP")) {
				// the retry stream exists, without this group
				return;
			}
			throw ex;
		}
		if (messages == null) {
			return;
		}
		for (PendingMessage message : messages) {
			into.add(new Pending(stream,
					new InFlightMessage(keys.queue(), group, keys.partition(), message.getIdAsString(), null,
							message.getConsumerName(), message.getElapsedTimeSinceLastDelivery(),
							message.getTotalDeliveryCount(), retry)));
		}
	}

	private static InFlightMessage withMessageId(RedisConnection connection, Pending pending) {
		InFlightMessage message = pending.message();
		String id = message.entryId();
		List<ByteRecord> records = connection.streamCommands()
			.xRange(QueueKeys.bytes(pending.stream()), Range.closed(id, id));
		String messageId = null;
		if (records != null && !records.isEmpty()) {
			for (Map.Entry<byte[], byte[]> field : records.get(0).getValue().entrySet()) {
				if (WireFormat.ID.equals(new String(field.getKey(), StandardCharsets.UTF_8))) {
					messageId = new String(field.getValue(), StandardCharsets.UTF_8);
				}
			}
		}
		return new InFlightMessage(message.queue(), message.group(), message.partition(), id, messageId,
				message.consumer(), message.idle(), message.deliveries(), message.retry());
	}

	private record Pending(String stream, InFlightMessage message) {
	}

}
