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

package io.github.delayqueue.core;

import java.util.OptionalLong;

/**
 * The flow controls of queues, held in Redis for every instance: pause and resume, rate
 * limits, concurrency limits, size limits. Implemented by {@link DelayQueueAdmin}; depend
 * on this interface where only the controls are needed (an operator's tool, a health
 * check).
 */
public interface QueueControlOperations {

	/**
	 * Pauses a queue for every instance and consumer group: sends are still accepted and
	 * messages still promoted when due, but no handler starts until {@link #resume}.
	 * Handlers already running finish and are acknowledged; messages read ahead and not
	 * started go back to Redis without costing an attempt. Stored in Redis, so it holds
	 * across restarts; idempotent (pausing twice stays paused). Listeners learn it from a
	 * notification at once, or within a second when the notification is lost.
	 * @param queue the queue
	 * @return the queue's state after the change
	 */
	QueueControlState pause(String queue);

	/**
	 * Pauses one consumer group of a queue (see {@link #pause(String)}); the other groups
	 * go on.
	 * @param queue the queue
	 * @param group the group
	 * @return the queue's state after the change
	 * @throws IllegalArgumentException when the queue has no such consumer group (see
	 * {@link DelayQueueAdmin#groups(String)}), naming the groups it has
	 */
	QueueControlState pause(String queue, String group);

	/**
	 * Resumes a queue paused with {@link #pause(String)}; groups paused on their own stay
	 * paused. Idempotent.
	 * @param queue the queue
	 * @return the queue's state after the change
	 */
	QueueControlState resume(String queue);

	/**
	 * Resumes one consumer group paused with {@link #pause(String, String)}; it stays
	 * paused while the whole queue is. Idempotent.
	 * @param queue the queue
	 * @param group the group
	 * @return the queue's state after the change
	 * @throws IllegalArgumentException when the queue has no such consumer group (see
	 * {@link DelayQueueAdmin#groups(String)}), naming the groups it has
	 */
	QueueControlState resume(String queue, String group);

	/**
	 * Reads a queue's flow controls from Redis.
	 * @param queue the queue
	 * @return whether it, or which of its groups, is paused
	 */
	QueueControlState controls(String queue);

	/**
	 * Limits how fast the handlers of each consumer group of a queue start, across every
	 * instance: at most {@code limit.permits()} per {@code limit.period()} per group
	 * (plus the burst), enforced in Redis by GCRA, so no window boundary lets twice the
	 * limit through. A message over the limit waits, unstarted and its lease renewed,
	 * without costing an attempt. Stored in Redis; every instance follows a change
	 * (raising as well as lowering) within a second, at once when its notification
	 * arrives. A group's own limit ({@link #limitRate(String, String, RateLimit)}) wins.
	 * @param queue the queue
	 * @param limit the limit
	 * @return the queue's controls after the change
	 */
	QueueControlState limitRate(String queue, RateLimit limit);

	/**
	 * Limits how fast the handlers of one consumer group of a queue start (see
	 * {@link #limitRate(String, RateLimit)}); wins over the queue's limit.
	 * @param queue the queue
	 * @param group the group
	 * @param limit the limit
	 * @return the queue's controls after the change
	 * @throws IllegalArgumentException when the queue has no such consumer group (see
	 * {@link DelayQueueAdmin#groups(String)}), naming the groups it has
	 */
	QueueControlState limitRate(String queue, String group, RateLimit limit);

	/**
	 * Removes the rate limit of a queue (its groups' own limits stay); idempotent.
	 * @param queue the queue
	 * @return the queue's controls after the change
	 */
	QueueControlState removeRateLimit(String queue);

	/**
	 * Removes the rate limit of one group of a queue; idempotent.
	 * @param queue the queue
	 * @param group the group
	 * @return the queue's controls after the change
	 * @throws IllegalArgumentException when the queue has no such consumer group (see
	 * {@link DelayQueueAdmin#groups(String)}), naming the groups it has
	 */
	QueueControlState removeRateLimit(String queue, String group);

	/**
	 * Limits how many handlers of each consumer group of a queue run at once, across
	 * every instance and partition: same as {@code limitConcurrency(queue,
	 * ConcurrencyLimit.of(max))}.
	 * @param queue the queue
	 * @param max how many may run at once, from 1 to {@value ConcurrencyLimit#MAX}
	 * @return the queue's controls after the change
	 * @throws IllegalArgumentException when the limit is out of range
	 */
	default QueueControlState limitConcurrency(String queue, int max) {
		return limitConcurrency(queue, ConcurrencyLimit.of(max));
	}

	/**
	 * Limits how many handlers of one consumer group of a queue run at once, across every
	 * instance and partition: same as {@code limitConcurrency(queue, group,
	 * ConcurrencyLimit.of(max))}.
	 * @param queue the queue
	 * @param group the group
	 * @param max how many may run at once, from 1 to {@value ConcurrencyLimit#MAX}
	 * @return the queue's controls after the change
	 * @throws IllegalArgumentException when the limit is out of range, or the queue has
	 * no such consumer group
	 */
	default QueueControlState limitConcurrency(String queue, String group, int max) {
		return limitConcurrency(queue, group, ConcurrencyLimit.of(max));
	}

	/**
	 * Limits how many handlers of each consumer group of a queue run at once, across
	 * every instance and every partition (a limit of 10 on a queue of 12 partitions is
	 * 10), or how many of each message key ({@link ConcurrencyLimit#eachKey()}). A
	 * handler takes a slot in Redis before it starts and frees it when it returns; a
	 * message that finds none waits, unstarted and its lease renewed, without costing an
	 * attempt (a message whose key is at its limit goes back to Redis instead, so that
	 * the other keys flow). The slot of an instance that died is free once its lease
	 * would have expired. Lowering the limit lets the running handlers finish and starts
	 * none until fewer run than the new limit. Stored in Redis; every instance follows a
	 * change at once (its notification) or within a second. A group's own limit wins.
	 * @param queue the queue
	 * @param limit the limit
	 * @return the queue's controls after the change
	 */
	QueueControlState limitConcurrency(String queue, ConcurrencyLimit limit);

	/**
	 * Limits how many handlers of one consumer group of a queue run at once (see
	 * {@link #limitConcurrency(String, ConcurrencyLimit)}); wins over the queue's limit.
	 * @param queue the queue
	 * @param group the group
	 * @param limit the limit
	 * @return the queue's controls after the change
	 * @throws IllegalArgumentException when the queue has no such consumer group (see
	 * {@link DelayQueueAdmin#groups(String)}), naming the groups it has
	 */
	QueueControlState limitConcurrency(String queue, String group, ConcurrencyLimit limit);

	/**
	 * Removes the concurrency limit of a queue (its groups' own limits stay); idempotent.
	 * @param queue the queue
	 * @return the queue's controls after the change
	 */
	QueueControlState removeConcurrencyLimit(String queue);

	/**
	 * Removes the concurrency limit of one group of a queue; idempotent.
	 * @param queue the queue
	 * @param group the group
	 * @return the queue's controls after the change
	 * @throws IllegalArgumentException when the queue has no such consumer group
	 */
	QueueControlState removeConcurrencyLimit(String queue, String group);

	/**
	 * Counts the slots of a group's concurrency limit (of the whole group) taken now: how
	 * many of its handlers run, or are about to, across every instance.
	 * @param queue the queue
	 * @param group the group
	 * @return the slots taken, 0 without a limit
	 */
	long concurrencySlotsTaken(String queue, String group);

	/**
	 * Limits how many messages a queue holds waiting (scheduled, or due and not yet read
	 * by its slowest group): a send that would go over it is refused inside the send
	 * script, writing nothing ({@link QueueFullException} for a single send,
	 * {@link SendResult.Status#REFUSED} per message of {@code sendAll}). Each partition
	 * takes its share: the limit divided by the partition count, rounded up. Stored in
	 * Redis, so it holds for every producer; takes effect with the next send.
	 * @param queue the queue
	 * @param max the maximum of waiting messages, from 1
	 * @throws IllegalArgumentException when the limit is out of range
	 */
	void limitSize(String queue, long max);

	/**
	 * Removes a queue's size limit ({@link #limitSize}); idempotent.
	 * @param queue the queue
	 */
	void removeSizeLimit(String queue);

	/**
	 * Reads a queue's size limit from Redis.
	 * @param queue the queue
	 * @return the maximum of waiting messages, empty when unlimited
	 */
	OptionalLong sizeLimit(String queue);

}
