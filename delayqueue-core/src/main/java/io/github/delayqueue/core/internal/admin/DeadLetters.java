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

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.redis.WireFormat;

import org.springframework.data.redis.connection.stream.RecordId;
import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DeadLetterError;
import io.github.delayqueue.core.internal.redis.RedisCalls;

/**
 * The dead-letter operations of {@link DelayQueueAdmin}: list (across partitions, paged
 * by entry id), replay, replay all, delete, purge.
 */
public final class DeadLetters {

	private static final int MAX_ERRORS_READ = 10_000;

	private static final int MAX_MATCHED = 1000;

	/** Dead letters read per call while looking for those of one error. */
	private static final int MATCH_READ = 1000;

	private static final String LARGEST_ENTRY_ID = "18446744073709551615-18446744073709551615";

	private final AdminContext context;

	public DeadLetters(AdminContext context) {
		this.context = context;
	}

	/**
	 * Lists dead letters, oldest first.
	 * @param queue the queue
	 * @param after the entry id to start after ({@code <ms>-<seq>}), or {@code null} for
	 * the first page
	 * @param count the page size
	 * @return the page
	 */
	public List<DeadLetter> list(String queue, String after, int count) {
		QueueNames.queue(queue);
		if (count < 1) {
			throw new IllegalArgumentException("Page size must be at least 1, but was " + count);
		}
		int first = 0;
		String start = "-";
		if (after != null) {
			QueueNames.deadLetterId(after);
			first = QueueNames.deadLetterPartition(after);
			String streamId = QueueNames.deadLetterStreamId(after);
			// nothing comes after the largest id in its partition, and Redis rejects it
			// as
			// an exclusive start
			start = LARGEST_ENTRY_ID.equals(streamId) ? null : "(" + streamId;
		}
		int firstPartition = first;
		String firstStart = start;
		return RedisCalls.inRedis("list dead letters of queue '" + queue + "'",
				() -> this.context.scripts().execute((connection) -> {
					this.context.layouts().verifyPartitions(connection, queue);
					List<QueueKeys> partitions = this.context.partitionKeys(queue);
					List<DeadLetter> page = new ArrayList<>();
					for (int partition = firstPartition; partition < partitions.size()
							&& page.size() < count; partition++) {
						String from = (partition == firstPartition) ? firstStart : "-";
						if (from == null) {
							continue;
						}
						List<Object> reply = ScriptRunner.run(connection, Scripts.DEAD_RANGE,
								List.of(partitions.get(partition).dead()), from, "+", count - page.size());
						for (Object item : reply) {
							page.add(WireFormat.deadLetter(queue, partition, (List<?>) item));
						}
					}
					return page;
				}));
	}

	/**
	 * Replays one dead letter: its group receives it again now, as attempt 1. The group's
	 * listener must be running somewhere for it to be delivered.
	 * @param queue the queue
	 * @param entryId the dead letter's entry id, {@code <ms>-<seq>}
	 * @return whether it was found and replayed
	 * @throws IllegalArgumentException when the entry id is not a stream id
	 */
	public boolean replay(String queue, String entryId) {
		QueueNames.deadLetterId(entryId);
		QueueKeys keys = partitionOf(queue, entryId);
		if (keys == null) {
			return false;
		}
		DeadLetter letter = find(queue, keys, entryId);
		if (letter == null) {
			return false;
		}
		return replay(keys, letter);
	}

	/**
	 * The keys of the partition a dead-letter entry id names, or {@code null} when the
	 * queue has no such partition.
	 */
	private QueueKeys partitionOf(String queue, String entryId) {
		verifyPartitions(queue);
		List<QueueKeys> partitions = this.context.partitionKeys(queue);
		int partition = QueueNames.deadLetterPartition(entryId);
		return (partition < partitions.size()) ? partitions.get(partition) : null;
	}

	/** Checks the queue's partition count against Redis (once per queue and engine). */
	private void verifyPartitions(String queue) {
		RedisCalls.inRedis("read the partitions of queue '" + queue + "'", () -> {
			this.context.layouts().verifyPartitions(queue);
			return null;
		});
	}

	private DeadLetter find(String queue, QueueKeys keys, String entryId) {
		String streamId = QueueNames.deadLetterStreamId(entryId);
		return RedisCalls.inRedis("read dead letter " + entryId, () -> this.context.scripts().execute((c) -> {
			List<?> entries = ScriptRunner.run(c, Scripts.DEAD_RANGE, List.of(keys.dead()), streamId, streamId, 1);
			if (entries == null || entries.isEmpty()) {
				return null;
			}
			return WireFormat.deadLetter(queue, keys.partition(), (List<?>) entries.get(0));
		}));
	}

	private boolean replay(QueueKeys keys, DeadLetter letter) {
		return replay(keys, letter.entryId(), letter.group());
	}

	private boolean replay(QueueKeys keys, String entryId, String deadGroup) {
		String group = QueueNames.group(deadGroup);
		List<Object> reply = RedisCalls.inRedis("replay dead letter " + entryId,
				() -> this.context.scripts()
					.run(Scripts.REPLAY, List.of(keys.dead(), keys.retryDelayed(group)),
							QueueNames.deadLetterStreamId(entryId), group, keys.wakeChannel()));
		return ScriptRunner.asLong(reply.get(0)) == 1;
	}

	/**
	 * Replays every dead letter of a queue, or of one group of it.
	 * @param queue the queue
	 * @param group the group, or {@code null} for all groups
	 * @return how many were replayed
	 */
	public int replayAll(String queue, String group) {
		int replayed = 0;
		String after = null;
		while (true) {
			List<DeadLetter> page = list(queue, after, 100);
			if (page.isEmpty()) {
				return replayed;
			}
			for (DeadLetter letter : page) {
				if ((group == null || group.equals(letter.group()))
						&& replay(partitionOf(queue, letter.entryId()), letter)) {
					replayed++;
				}
			}
			after = page.get(page.size() - 1).entryId();
		}
	}

	/**
	 * Counts the newest dead letters of a queue by error, at most {@code read} per
	 * partition, in one script call each.
	 * @param queue the queue
	 * @param read how many of each partition's newest dead letters to read, 1 to 10,000
	 * @return the errors, the most common first
	 */
	public List<DeadLetterError> errors(String queue, int read) {
		QueueNames.queue(queue);
		if (read < 1 || read > MAX_ERRORS_READ) {
			throw new IllegalArgumentException(
					"Read from 1 to " + MAX_ERRORS_READ + " dead letters per partition, but was " + read);
		}
		verifyPartitions(queue);
		Map<String, DeadLetterError> errors = new LinkedHashMap<>();
		for (QueueKeys keys : this.context.partitionKeys(queue)) {
			List<Object> reply = RedisCalls.inRedis("count the dead letters of queue '" + queue + "' by error",
					() -> this.context.scripts().run(Scripts.DEAD_ERRORS, List.of(keys.dead()), "count", read));
			for (int i = 0; i + 3 < reply.size(); i += 4) {
				String errorClass = ScriptRunner.asString(reply.get(i));
				String prefix = ScriptRunner.asString(reply.get(i + 1));
				long count = ScriptRunner.asLong(reply.get(i + 2));
				Instant newest = Instant
					.ofEpochMilli(Long.parseLong(ScriptRunner.asString(reply.get(i + 3)).split("-")[0]));
				errors.merge(errorClass + "\n" + prefix, new DeadLetterError(errorClass, prefix, count, newest),
						(a, b) -> new DeadLetterError(a.errorClass(), a.reasonPrefix(), a.count() + b.count(),
								a.newest().isAfter(b.newest()) ? a.newest() : b.newest()));
			}
		}
		List<DeadLetterError> sorted = new ArrayList<>(errors.values());
		sorted.sort(Comparator.comparingLong(DeadLetterError::count).reversed());
		return sorted;
	}

	/**
	 * Replays or deletes the dead letters of one error (see {@link #errors}), oldest
	 * first: at most {@code max} of them, reading at most {@code max * 10} (at least
	 * 10,000) dead letters to find them.
	 * @param queue the queue
	 * @param error the error class and reason prefix, as {@link #errors} returned them
	 * @param replay whether to replay them (else delete)
	 * @param max the most to replay or delete, 1 to 1,000
	 * @return how many were replayed or deleted, and whether dead letters were left
	 * unread
	 */
	public Matched matching(String queue, DeadLetterError error, boolean replay, int max) {
		QueueNames.queue(queue);
		if (max < 1 || max > MAX_MATCHED) {
			throw new IllegalArgumentException(
					"Act on from 1 to " + MAX_MATCHED + " dead letters per request, but was " + max);
		}
		verifyPartitions(queue);
		List<QueueKeys> partitions = this.context.partitionKeys(queue);
		long budget = Math.max(10_000L, max * 10L);
		int done = 0;
		for (QueueKeys keys : partitions) {
			String start = "-";
			while (start != null) {
				if (done >= max || budget <= 0) {
					return new Matched(done, true);
				}
				String from = start;
				List<Object> reply = RedisCalls.inRedis("find the dead letters of queue '" + queue + "' by error",
						() -> this.context.scripts()
							.run(Scripts.DEAD_ERRORS, List.of(keys.dead()), "match", from, MATCH_READ,
									error.errorClass(), error.reasonPrefix()));
				budget -= MATCH_READ;
				String last = ScriptRunner.asString(reply.get(0));
				for (int i = 1; i + 1 < reply.size(); i += 2) {
					if (done >= max) {
						return new Matched(done, true);
					}
					String entryId = QueueNames.deadLetterId(keys.partition(), ScriptRunner.asString(reply.get(i)));
					String group = ScriptRunner.asString(reply.get(i + 1));
					// the script re-checks the entry (gone meanwhile: not counted)
					boolean acted = replay ? replay(keys, entryId, group) : delete(queue, entryId);
					done += acted ? 1 : 0;
				}
				start = last.isEmpty() ? null : "(" + last;
			}
		}
		return new Matched(done, false);
	}

	/**
	 * What {@link #matching} did: how many it replayed or deleted, and whether it stopped
	 * before the end (at its maximum, or its read budget).
	 */
	public record Matched(int count, boolean more) {

	}

	/**
	 * Deletes one dead letter.
	 * @param queue the queue
	 * @param entryId the dead letter's entry id, {@code <ms>-<seq>}
	 * @return whether it existed
	 * @throws IllegalArgumentException when the entry id is not a stream id
	 */
	public boolean delete(String queue, String entryId) {
		QueueNames.deadLetterId(entryId);
		QueueKeys keys = partitionOf(queue, entryId);
		if (keys == null) {
			return false;
		}
		Long deleted = RedisCalls.inRedis("delete dead letter " + entryId,
				() -> this.context.scripts()
					.execute((c) -> c.streamCommands()
						.xDel(QueueKeys.bytes(keys.dead()), RecordId.of(QueueNames.deadLetterStreamId(entryId)))));
		return deleted != null && deleted > 0;
	}

	/**
	 * Deletes all dead letters of a queue, in one atomic step.
	 * @param queue the queue
	 * @return how many were deleted: exactly those, also when dead letters are added
	 * concurrently
	 */
	public long purge(String queue) {
		verifyPartitions(queue);
		long purged = 0;
		for (QueueKeys keys : this.context.partitionKeys(queue)) {
			List<Object> reply = RedisCalls.inRedis("purge dead letters of queue '" + queue + "'",
					() -> this.context.scripts().run(Scripts.PURGE_DEAD, List.of(keys.dead())));
			purged += ScriptRunner.asLong(reply.get(0));
		}
		return purged;
	}

}
