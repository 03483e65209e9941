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
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.zset.Tuple;

import io.github.delayqueue.core.internal.InputText;
import io.github.delayqueue.core.internal.redis.Envelope;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.ScheduledMessage;
import io.github.delayqueue.core.ScheduledPosition;
import io.github.delayqueue.core.internal.redis.RedisCalls;

/**
 * Reads a queue's scheduled messages for {@link DelayQueueAdmin}: a page in due order
 * across its partitions, or one message by id. Bounded work: per partition one range read
 * of at most a page (and the envelopes of the page), however many messages the queue
 * holds; never a whole-schedule read.
 */
public final class ScheduledMessages {

	/** The largest page. */
	static final int MAX_PAGE = 1000;

	/**
	 * How many messages due at the cursor's millisecond a page read passes over, at most,
	 * looking for the ones after the cursor.
	 */
	private static final int MAX_TIES = 10_000;

	private static final Comparator<ScheduledMessage> DUE_ORDER = Comparator
		.comparing((ScheduledMessage message) -> message.dueTime().toEpochMilli())
		.thenComparing((ScheduledMessage message) -> message.id().getBytes(StandardCharsets.UTF_8),
				Arrays::compareUnsigned);

	private final AdminContext context;

	public ScheduledMessages(AdminContext context) {
		this.context = context;
	}

	public List<ScheduledMessage> page(String queue, String after, int count) {
		QueueNames.queue(queue);
		if (count < 1 || count > MAX_PAGE) {
			throw new IllegalArgumentException(
					"Page size must be from 1 to " + MAX_PAGE + " scheduled messages, but was " + count);
		}
		Cursor cursor = Cursor.parse(after);
		return RedisCalls.inRedis("read the scheduled messages of queue '" + queue + "'",
				() -> this.context.scripts().execute((connection) -> {
					this.context.layouts().verifyPartitions(connection, queue);
					List<ScheduledMessage> all = new ArrayList<>();
					for (QueueKeys keys : this.context.partitionKeys(queue)) {
						all.addAll(page(connection, keys, cursor, count));
					}
					all.sort(DUE_ORDER);
					return List.copyOf(all.subList(0, Math.min(count, all.size())));
				}));
	}

	/** The first {@code count} messages of a partition after the cursor, in due order. */
	private List<ScheduledMessage> page(RedisConnection connection, QueueKeys keys, Cursor cursor, int count) {
		byte[] delayed = QueueKeys.bytes(keys.delayed());
		List<Tuple> found = new ArrayList<>(count);
		if (cursor == null) {
			found.addAll(connection.zSetCommands().zRangeWithScores(delayed, 0, count - 1));
		}
		else {
			// from the cursor's millisecond: pass over the messages due then up to the
			// cursor's id (members of one score are in id order)
			long offset = 0;
			while (found.size() < count && offset <= MAX_TIES) {
				List<Tuple> batch = new ArrayList<>(connection.zSetCommands()
					.zRangeByScoreWithScores(delayed, cursor.dueMillis(), Double.POSITIVE_INFINITY, offset, count));
				for (Tuple tuple : batch) {
					if (cursor.isBefore((long) tuple.getScore().doubleValue(), tuple.getValue())) {
						found.add(tuple);
					}
				}
				if (batch.size() < count) {
					break;
				}
				offset += batch.size();
			}
		}
		List<ScheduledMessage> messages = new ArrayList<>(found.size());
		if (found.isEmpty()) {
			farPage(connection, keys, cursor, count, Long.MAX_VALUE, messages);
			return messages;
		}
		byte[][] ids = found.stream().map(Tuple::getValue).toArray(byte[][]::new);
		List<byte[]> envelopes = connection.hashCommands().hMGet(QueueKeys.bytes(keys.messages()), ids);
		for (int i = 0; i < found.size() && messages.size() < count; i++) {
			byte[] envelope = (envelopes != null) ? envelopes.get(i) : null;
			if (envelope != null) {
				// gone meanwhile (delivered, cancelled): left out
				messages.add(message(keys, new String(ids[i], StandardCharsets.UTF_8),
						(long) found.get(i).getScore().doubleValue(), envelope));
			}
		}
		// a page of the schedule's own: a far-tier message due after its last cannot
		// enter
		long until = (messages.size() == count) ? messages.get(count - 1).dueTime().toEpochMilli() : Long.MAX_VALUE;
		farPage(connection, keys, cursor, count, until, messages);
		return messages;
	}

	/** How many far-tier index buckets a position reads at most (then it estimates). */
	private static final int POSITION_SAMPLE = 64;

	/**
	 * How many scheduled messages are due before a time, of how many: per partition, a
	 * {@code ZCOUNT} of the schedule, and the far tier's index counted (or sampled).
	 */
	public ScheduledPosition position(String queue, Instant at) {
		QueueNames.queue(queue);
		long millis = at.toEpochMilli();
		return RedisCalls.inRedis("count the scheduled messages of queue '" + queue + "' before " + at,
				() -> this.context.scripts().execute((connection) -> {
					this.context.layouts().verifyPartitions(connection, queue);
					long before = 0;
					long lower = 0;
					long upper = 0;
					long total = 0;
					for (QueueKeys keys : this.context.partitionKeys(queue)) {
						byte[] delayed = QueueKeys.bytes(keys.delayed());
						long scheduled = orZero(connection.zSetCommands()
							.zCount(delayed, Double.NEGATIVE_INFINITY, Math.nextDown((double) millis)));
						total += orZero(connection.zSetCommands().zCard(delayed));
						List<Object> far = ScriptRunner.run(connection, Scripts.FAR_READ,
								List.of(keys.far(), keys.farState()), "before", millis, POSITION_SAMPLE);
						long estimate = ScriptRunner.asLong(far.get(0));
						long held = ScriptRunner.asLong(far.get(2));
						total += held;
						if (ScriptRunner.asLong(far.get(1)) == 1) {
							before += scheduled + estimate;
							lower += scheduled + estimate;
							upper += scheduled + estimate;
						}
						else {
							// counted in the nodes, the sample's estimate kept within
							// the bounds
							long[] bounds = FarTierPages.before(connection, keys, millis, held);
							before += scheduled + Math.max(bounds[0], Math.min(bounds[1], estimate));
							lower += scheduled + bounds[0];
							upper += scheduled + bounds[1];
						}
					}
					long shown = Math.min(before, total);
					long margin = Math.max(shown - lower, Math.min(upper, total) - shown);
					return new ScheduledPosition(shown, total, margin == 0, Math.max(0, margin));
				}));
	}

	private static long orZero(Long value) {
		return (value != null) ? value : 0;
	}

	public Optional<ScheduledMessage> find(String queue, String id) {
		QueueNames.queue(queue);
		QueueNames.messageId(id);
		return RedisCalls.inRedis("look up message '" + id + "' in queue '" + queue + "'",
				() -> this.context.scripts().execute((connection) -> {
					this.context.layouts().verifyPartitions(connection, queue);
					for (QueueKeys keys : this.context.lookUpOrder(queue, id)) {
						Double due = connection.zSetCommands()
							.zScore(QueueKeys.bytes(keys.delayed()), QueueKeys.bytes(id));
						byte[] envelope = connection.hashCommands()
							.hGet(QueueKeys.bytes(keys.messages()), QueueKeys.bytes(id));
						if (due != null && envelope != null) {
							return Optional.of(message(keys, id, due.longValue(), envelope));
						}
						List<Object> far = ScriptRunner.run(connection, Scripts.FAR_READ,
								List.of(keys.far(), keys.farState()), "find", id);
						if (!far.isEmpty()) {
							return Optional.of(message(keys, id, ScriptRunner.asLong(far.get(0)), (byte[]) far.get(1)));
						}
					}
					return Optional.<ScheduledMessage>empty();
				}));
	}

	/**
	 * Adds the far tier's messages of a page: those after the cursor, up to {@code count}
	 * (the caller merges them with the schedule's in due order; see
	 * {@link FarTierPages}), none due after {@code until}.
	 */
	private static void farPage(RedisConnection connection, QueueKeys keys, Cursor cursor, int count, long until,
			List<ScheduledMessage> messages) {
		long from = (cursor != null) ? cursor.dueMillis() : 0;
		for (FarTierPages.Entry entry : FarTierPages.page(connection, keys, from, until,
				(due, id) -> cursor == null || cursor.isBefore(due, id), count)) {
			messages.add(message(keys, entry.id(), entry.due(), entry.envelope()));
		}
	}

	private static ScheduledMessage message(QueueKeys keys, String id, long due, byte[] bytes) {
		try {
			Envelope envelope = Envelope.decode(bytes);
			// while scheduled, the expiry is its time to live from its due time
			return new ScheduledMessage(keys.queue(), id, keys.partition(), Instant.ofEpochMilli(due), envelope.key(),
					envelope.headers(), envelope.payload(), envelope.priority(),
					(envelope.expiry() > 0) ? Instant.ofEpochMilli(due + envelope.expiry()) : null,
					envelope.maxAttempts());
		}
		catch (IllegalArgumentException ex) {
			return new ScheduledMessage(keys.queue(), id, keys.partition(), Instant.ofEpochMilli(due), null, Map.of(),
					bytes, 0);
		}
	}

	/** Where a page starts: after the message due at {@code dueMillis} with this id. */
	private record Cursor(long dueMillis, String id) {

		static Cursor parse(String text) {
			if (text == null || text.isEmpty()) {
				return null;
			}
			int colon = text.indexOf(':');
			try {
				if (colon > 0) {
					return new Cursor(Long.parseLong(text.substring(0, colon)), text.substring(colon + 1));
				}
			}
			catch (NumberFormatException ex) {
				// said below
			}
			throw new IllegalArgumentException("Cursor " + InputText.quote(text)
					+ " is not <due epoch ms>:<id>: pass the cursor() of the last message of the previous page");
		}

		/**
		 * Whether a message comes after this cursor in due order (ties in Redis's order:
		 * the ids' bytes).
		 */
		boolean isBefore(long due, byte[] otherId) {
			return due > this.dueMillis || (due == this.dueMillis
					&& Arrays.compareUnsigned(otherId, this.id.getBytes(StandardCharsets.UTF_8)) > 0);
		}

	}

}
