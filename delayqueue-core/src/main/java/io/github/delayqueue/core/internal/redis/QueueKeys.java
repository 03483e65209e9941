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

package io.github.delayqueue.core.internal.redis;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The Redis keys of one queue, or of one partition of a queue. All keys of a partition
 * share one hash tag, so every script touches one cluster slot: {@code {queue}} for
 * partition 0 (the only one of an unpartitioned queue, whose keys are those of every
 * earlier version) and {@code {queue#n}} or {@code {queue#n.k}} for partition {@code n},
 * chosen by {@link PartitionTags} to spread the partitions evenly over the slots (queue
 * names cannot contain {@code #}, so no queue's keys are another's partition). See
 * {@code docs/data-model.md} and {@code docs/scaling.md}.
 *
 * @param prefix the key prefix (default {@code dq})
 * @param queue the queue name
 * @param partition the partition, 0 for an unpartitioned queue
 * @param tag the hash tag of the partition's keys
 */
public record QueueKeys(String prefix, String queue, int partition, String tag) {

	/** The most partitions a queue can have. */
	public static final int MAX_PARTITIONS = 1024;

	/**
	 * Creates the keys of a partition of a queue, validating the queue's name.
	 * @param prefix the key prefix
	 * @param queue the queue name
	 * @param partition the partition, from 0
	 * @param tag the hash tag of the partition's keys
	 */
	public QueueKeys {
		QueueNames.queue(queue);
		// numbers from MAX_PARTITIONS on are old partitions draining after a count change
		if (partition < 0 || partition >= 2 * MAX_PARTITIONS) {
			throw new IllegalArgumentException("Partition of queue '" + queue + "' must be between 0 and "
					+ (2 * MAX_PARTITIONS - 1) + ", but was " + partition);
		}
		java.util.Objects.requireNonNull(tag, "tag");
	}

	/**
	 * Creates the keys of an unpartitioned queue (its partition 0), validating its name.
	 * @param prefix the key prefix
	 * @param queue the queue name
	 */
	public QueueKeys(String prefix, String queue) {
		this(prefix, queue, 0, queue);
	}

	/**
	 * Returns the keys of a partition of the same queue.
	 * @param other the partition
	 * @param partitions the queue's partition count
	 * @return its keys
	 */
	public QueueKeys partition(int other, int partitions) {
		if (other < 0 || other >= partitions) {
			throw new IllegalArgumentException("Partition of queue '" + this.queue + "' must be between 0 and "
					+ (partitions - 1) + ", but was " + other);
		}
		return new QueueKeys(this.prefix, this.queue, other, PartitionTags.tag(this.queue, other, partitions));
	}

	/**
	 * Returns the partitions of an earlier layout of the queue that the current one does
	 * not have (a partition's keys depend on the count): after a change of the partition
	 * count they still hold messages, which drain. They are numbered after the current
	 * partitions, in the order of their earlier number.
	 * @param current the queue's partition count now
	 * @param previous its count before the change
	 * @return the keys of the old partitions, none when every old partition is also a
	 * current one (as when the queue grew from 1 partition)
	 */
	public List<QueueKeys> drainingPartitions(int current, int previous) {
		java.util.Set<String> tags = new java.util.HashSet<>();
		for (int partition = 0; partition < current; partition++) {
			tags.add(PartitionTags.tag(this.queue, partition, current));
		}
		List<QueueKeys> draining = new java.util.ArrayList<>();
		for (int partition = 0; partition < previous; partition++) {
			String tag = PartitionTags.tag(this.queue, partition, previous);
			if (!tags.contains(tag)) {
				draining.add(new QueueKeys(this.prefix, this.queue, current + draining.size(), tag));
			}
		}
		return List.copyOf(draining);
	}

	private String key(String suffix) {
		return this.prefix + ":{" + this.tag + "}:" + suffix;
	}

	/**
	 * @return the ZSET of scheduled message ids by due time
	 */
	public String delayed() {
		return key("delayed");
	}

	/**
	 * @return the HASH of scheduled message envelopes by id
	 */
	public String messages() {
		return key("msgs");
	}

	/**
	 * The stream of due messages with a priority: read before the queue's stream, so they
	 * pass its backlog.
	 * @return the key
	 */
	public String urgent() {
		return key("urgent");
	}

	/**
	 * The due messages of a fair-share queue waiting for their turn, by virtual time (a
	 * ZSET).
	 * @return the key
	 */
	public String fair() {
		return key("fair");
	}

	/**
	 * The state of a fair-share queue's turns, and its waiting messages (a hash).
	 * @return the key
	 */
	public String fairState() {
		return key("fair-state");
	}

	/**
	 * The time slots of the far tier that hold entries (a ZSET); the scripts derive the
	 * slots' streams ({@code <far>:<slot start>}) and the id index buckets
	 * ({@code <far>-ids:<n>}) from it, in the same hash slot.
	 * @return the key
	 */
	public String far() {
		return key("far");
	}

	/**
	 * The far tier's count of messages and the size of its id index (a hash).
	 * @return the key
	 */
	public String farState() {
		return key("far-state");
	}

	/**
	 * The recurring schedules of the queue (a hash; only partition 0's is ever written).
	 * @return the key
	 */
	public String schedules() {
		return key("schedules");
	}

	/**
	 * @return the STREAM of due messages
	 */
	public String stream() {
		return key("stream");
	}

	/**
	 * Returns the ZSET of a group's scheduled retries.
	 * @param group the group
	 * @return the key
	 */
	public String retryDelayed(String group) {
		return key("retry-delayed:" + group);
	}

	/**
	 * Returns the STREAM of a group's due retries.
	 * @param group the group
	 * @return the key
	 */
	public String retryStream(String group) {
		return key("retry:" + group);
	}

	/**
	 * @return the STRING marking a partition retired after a change of the partition
	 * count: sends to it are refused
	 */
	public String retired() {
		return key("retired");
	}

	/**
	 * @return the STRING holding the queue's size limit (its maximum of waiting
	 * messages), copied into each partition's slot: the send script reads its own
	 */
	public String sizeLimit() {
		return key("max-waiting");
	}

	/**
	 * @return the STREAM of dead letters
	 */
	public String dead() {
		return key("dead");
	}

	/** A key of the queue that lives in partition 0's slot whatever this partition is. */
	private String firstPartitionKey(String suffix) {
		return this.prefix + ":{" + this.queue + "}:" + suffix;
	}

	/**
	 * @param group a consumer group
	 * @return the STRING holding the state of the group's rate limiter (GCRA), always in
	 * partition 0's slot: one limiter for every partition
	 */
	public String rateState(String group) {
		return firstPartitionKey("rate:" + group);
	}

	/**
	 * @param group a consumer group
	 * @return the ZSET of the group's concurrency slots taken (member: a slot token,
	 * score: when it is free unless renewed), partition 0's slot, whatever the partition
	 * count; {@link #slotWaiters} and {@link #slotWaitersSeen} beside it
	 */
	public String slots(String group) {
		return firstPartitionKey("slots:" + group);
	}

	/**
	 * @param group a consumer group
	 * @return the ZSET of the instances waiting for a slot of the group, in the order
	 * they came
	 */
	public String slotWaiters(String group) {
		return firstPartitionKey("slots-waiting:" + group);
	}

	/**
	 * @param group a consumer group
	 * @return the ZSET of when each instance waiting for a slot of the group last asked
	 */
	public String slotWaitersSeen(String group) {
		return firstPartitionKey("slots-seen:" + group);
	}

	/**
	 * @param group a consumer group
	 * @return the ZSET of the group's concurrency slots by message key (every member of
	 * score 0, read by range of members), partition 0's slot, beside {@link #slots}: the
	 * same slots, counted for each key
	 */
	public String slotsByKey(String group) {
		return firstPartitionKey("slots-keyed:" + group);
	}

	/**
	 * @param group a consumer group
	 * @param key a message key
	 * @return the STRING holding the state of the group's rate limiter of one key, in
	 * this partition's slot (the key's messages are all in it)
	 */
	public String keyRateState(String group, String key) {
		return key("rate:" + group + ":" + key);
	}

	/**
	 * @param hour the hour, counted from the epoch
	 * @return the HASH of the queue's history by minute over that hour (field: the
	 * minute, 0-59), always in partition 0's slot
	 */
	public String historyMinutes(long hour) {
		return firstPartitionKey("history:m:" + hour);
	}

	/**
	 * @param day the day (UTC), counted from the epoch
	 * @return the HASH of the queue's history over that day by quarter hour (fields
	 * {@code q0}-{@code q95}) and by hour ({@code h0}-{@code h23}), always in partition
	 * 0's slot
	 */
	public String historyDay(long day) {
		return firstPartitionKey("history:d:" + day);
	}

	/**
	 * @return the HASH of the queue's metadata (its partition count), always in partition
	 * 0's slot
	 */
	public String meta() {
		return firstPartitionKey("meta");
	}

	/**
	 * @param group a consumer group
	 * @return the ZSET of the group's live members when it consumes the queue
	 * exclusively, always in partition 0's slot
	 */
	public String members(String group) {
		return firstPartitionKey("members:" + group);
	}

	/**
	 * @param group a consumer group
	 * @return the STRING naming the consumer of the group that owns this partition (a
	 * lease with a time to live)
	 */
	public String owner(String group) {
		return key("owner:" + group);
	}

	/**
	 * @param group a consumer group
	 * @return the lock of the group's slow sweep of this partition (a STRING holding the
	 * sweeping consumer's name, expiring after the sweep period)
	 */
	public String sweep(String group) {
		return key("sweep:" + group);
	}

	/**
	 * @param prefix the key prefix
	 * @return the engine instances' heartbeat ZSET (one key for all queues: consumer
	 * names scored by when their beat lapses)
	 */
	public static String heartbeat(String prefix) {
		return prefix + ":{heartbeat}:consumers";
	}

	/**
	 * @return the pub/sub channel that tells every instance a queue's pause state changed
	 * (one per queue, named after partition 0)
	 */
	public String controlChannel() {
		return firstPartitionKey("control");
	}

	/**
	 * @return the pub/sub channel that wakes schedulers when an earlier message arrives
	 */
	public String wakeChannel() {
		return key("wake");
	}

	/**
	 * @return the SET registering all queue names under the prefix (another slot)
	 */
	public String registry() {
		return this.prefix + ":queues";
	}

	/**
	 * Returns the keys of one promote call: the queue's schedule and stream, then the
	 * retry ZSET and retry stream of each group.
	 * @param groups the groups whose retries to promote
	 * @return the keys
	 */
	public List<String> promoteKeys(List<String> groups) {
		java.util.ArrayList<String> keys = new java.util.ArrayList<>(List.of(delayed(), messages(), stream(),
				schedules(), urgent(), fair(), fairState(), far(), farState()));
		for (String group : groups) {
			keys.add(retryDelayed(group));
			keys.add(retryStream(group));
		}
		return keys;
	}

	/**
	 * Encodes a key to bytes.
	 * @param key the key
	 * @return its UTF-8 bytes
	 */
	public static byte[] bytes(String key) {
		return key.getBytes(StandardCharsets.UTF_8);
	}

}
