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

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.Set;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ServerChecks;
import io.github.delayqueue.core.internal.redis.RedisCalls;
import io.github.delayqueue.core.internal.admin.AdminContext;
import io.github.delayqueue.core.internal.admin.DeadLetters;
import io.github.delayqueue.core.internal.admin.Histories;
import io.github.delayqueue.core.internal.admin.InFlightMessages;
import io.github.delayqueue.core.internal.admin.PartitionChanges;
import io.github.delayqueue.core.internal.admin.QueueControls;
import io.github.delayqueue.core.internal.admin.QueueInspection;
import io.github.delayqueue.core.internal.admin.ScheduledMessages;

/**
 * Inspects queues and manages dead letters: stats, list, replay, delete, purge. Obtain it
 * with {@link DelayQueueEngine#admin()}. Reads use the queue registry and per-queue keys,
 * never {@code SCAN}.
 * <p>
 * The work is done by one class per concern: {@code QueueInspection} (queues, groups,
 * stats, partition owners), {@code QueueControls} (pause, rate, concurrency and size
 * limits), {@code DeadLetters} (list, replay, delete, purge), {@code ScheduledMessages},
 * {@code InFlightMessages}, {@code Histories}, {@code PartitionChanges} and
 * {@code internal.redis.ServerChecks}; this class is their API.
 */
public class DelayQueueAdmin implements QueueControlOperations, DeadLetterOperations, MessageInspectionOperations {

	private final AdminContext context;

	private final PartitionChanges partitionChanges;

	private final QueueInspection inspection;

	private final ScheduledMessages scheduledMessages;

	private final DeadLetters deadLetters;

	private final InFlightMessages inFlight;

	private final io.github.delayqueue.core.internal.admin.MessageTraces messageTraces;

	private final Histories histories;

	private final DelaySchedules schedules;

	private final QueueControls controls;

	DelayQueueAdmin(AdminContext context, DelaySchedules schedules) {
		this.context = context;
		this.partitionChanges = new PartitionChanges(context);
		this.inspection = new QueueInspection(context);
		this.scheduledMessages = new ScheduledMessages(context);
		this.deadLetters = new DeadLetters(context);
		this.inFlight = new InFlightMessages(context);
		this.messageTraces = new io.github.delayqueue.core.internal.admin.MessageTraces(context);
		this.histories = new Histories(context);
		this.schedules = schedules;
		this.controls = new QueueControls(context);
	}

	/**
	 * Returns the recurring schedules: register, list, pause, resume, trigger, delete.
	 * @return the schedules' API
	 */
	public DelaySchedules schedules() {
		return this.schedules;
	}

	/**
	 * Reads a queue's partition count from Redis, and the state of a change of it.
	 * @param queue the queue
	 * @return its layout, with what the old partitions of a change in progress still hold
	 */
	public PartitionLayout partitionLayout(String queue) {
		return this.partitionChanges.layout(queue);
	}

	/**
	 * Starts changing a queue's partition count; nothing is lost. Redis stores the new
	 * count with the old one. From then on, engines that declare the new count send to
	 * the new partitions and their listeners read the old partitions too, until these
	 * drain; engines that still declare the old count keep working until they restart
	 * (they are refused then: declare the new count). Finish the change with
	 * {@link #finishPartitionChange(String)} once every application declares the new
	 * count and the old partitions are empty. A change between 1 and more partitions
	 * where every old partition is also a new one (1 to N) is finished at once. See
	 * {@code docs/scaling.md}.
	 * @param queue the queue
	 * @param count the new partition count, 1 to {@value QueueKeys#MAX_PARTITIONS}
	 * @return the new layout
	 * @throws IllegalArgumentException when the count is out of range or unchanged
	 * @throws IllegalStateException when an earlier change is still in progress
	 */
	public PartitionLayout changePartitions(String queue, int count) {
		return this.partitionChanges.change(queue, count);
	}

	/**
	 * Finishes a change of a queue's partition count: checks that its old partitions hold
	 * nothing (no scheduled message, no entry unread or unacknowledged by a group, no
	 * retry, no dead letter) and retires them, so that a send from an application that
	 * still declares the old count fails instead of going where nobody reads.
	 * @param queue the queue
	 * @return the layout, with no change in progress
	 * @throws IllegalStateException when no change is in progress, or when an old
	 * partition still holds something (the message lists what)
	 */
	public PartitionLayout finishPartitionChange(String queue) {
		return this.partitionChanges.finish(queue);
	}

	/**
	 * Returns the names of all queues ever sent to or consumed under this key prefix.
	 * @return the queue names, sorted
	 */
	public Set<String> queues() {
		return this.inspection.queues();
	}

	/**
	 * Reads the server settings that decide what delayqueue can promise: the
	 * {@code maxmemory-policy} ({@code CONFIG GET}) and the persistence ({@code INFO}).
	 * Settings the server does not let this client read are {@code null}. On Redis
	 * Cluster every master is read and the weakest answer reported (see
	 * {@link ServerCheck#weakest(List)}).
	 * @return what was read
	 * @throws DelayQueueException when Redis cannot be reached
	 */
	public ServerCheck checkServer() {
		return RedisCalls.inRedis("check the Redis server", () -> this.context.scripts().execute(ServerChecks::check));
	}

	/**
	 * Returns the consumer groups of a queue: those Redis holds on any partition of it,
	 * those of the listener containers built on this engine, and those its controls name
	 * (a group paused, rate- or concurrency-limited). Group actions
	 * ({@link #pause(String, String)}, {@link #limitRate(String, String, RateLimit)},
	 * {@link #replayAll(String, String)} ...) refuse any other group.
	 * @param queue the queue
	 * @return its groups, sorted
	 */
	public java.util.SortedSet<String> groups(String queue) {
		return this.inspection.groups(queue);
	}

	@Override
	public QueueControlState pause(String queue) {
		return this.controls.pause(queue, null, true);
	}

	@Override
	public QueueControlState pause(String queue, String group) {
		return this.controls.pause(queue, this.inspection.requireGroup(queue, group), true);
	}

	@Override
	public QueueControlState resume(String queue) {
		return this.controls.pause(queue, null, false);
	}

	@Override
	public QueueControlState resume(String queue, String group) {
		return this.controls.pause(queue, this.inspection.requireGroup(queue, group), false);
	}

	@Override
	public QueueControlState controls(String queue) {
		return this.controls.read(queue);
	}

	@Override
	public QueueControlState limitRate(String queue, RateLimit limit) {
		return this.controls.rate(queue, null, Objects.requireNonNull(limit, "Rate limit must not be null"));
	}

	@Override
	public QueueControlState limitRate(String queue, String group, RateLimit limit) {
		Objects.requireNonNull(limit, "Rate limit must not be null");
		return this.controls.rate(queue, this.inspection.requireGroup(queue, group), limit);
	}

	@Override
	public QueueControlState removeRateLimit(String queue) {
		return this.controls.rate(queue, null, null);
	}

	@Override
	public QueueControlState removeRateLimit(String queue, String group) {
		return this.controls.rate(queue, this.inspection.requireGroup(queue, group), null);
	}

	@Override
	public QueueControlState limitConcurrency(String queue, ConcurrencyLimit limit) {
		return this.controls.concurrency(queue, null,
				Objects.requireNonNull(limit, "Concurrency limit must not be null"));
	}

	@Override
	public QueueControlState limitConcurrency(String queue, String group, ConcurrencyLimit limit) {
		Objects.requireNonNull(limit, "Concurrency limit must not be null");
		return this.controls.concurrency(queue, this.inspection.requireGroup(queue, group), limit);
	}

	@Override
	public QueueControlState removeConcurrencyLimit(String queue) {
		return this.controls.concurrency(queue, null, null);
	}

	@Override
	public QueueControlState removeConcurrencyLimit(String queue, String group) {
		return this.controls.concurrency(queue, this.inspection.requireGroup(queue, group), null);
	}

	@Override
	public long concurrencySlotsTaken(String queue, String group) {
		return this.controls.slots(queue, group)[0];
	}

	@Override
	public void limitSize(String queue, long max) {
		this.controls.limitSize(queue, max);
	}

	@Override
	public void removeSizeLimit(String queue) {
		this.controls.limitSize(queue, null);
	}

	@Override
	public OptionalLong sizeLimit(String queue) {
		return this.controls.sizeLimit(queue);
	}

	/**
	 * Returns a snapshot of a queue.
	 * @param queue the queue
	 * @return its stats
	 */
	public QueueStats stats(String queue) {
		return this.inspection.stats(queue);
	}

	@Override
	public List<ScheduledMessage> scheduled(String queue, String after, int count) {
		return this.scheduledMessages.page(queue, after, count);
	}

	@Override
	public Optional<ScheduledMessage> scheduledMessage(String queue, String id) {
		return this.scheduledMessages.find(queue, id);
	}

	@Override
	public List<MessageTrace> messageTrace(String queue, String id) {
		return this.messageTraces.find(queue, id);
	}

	@Override
	public ScheduledPosition scheduledPosition(String queue, Instant at) {
		return this.scheduledMessages.position(queue, at);
	}

	@Override
	public List<InFlightMessage> inFlight(String queue, InFlightMessage.Order order, int count) {
		return this.inFlight.list(queue, order, count);
	}

	/**
	 * Reads a queue's history over the last hour (per minute), day (per quarter hour) or
	 * week (per hour), as every engine using the queue counted it (see
	 * {@link DelayQueueEngineBuilder#history(boolean)}). Bounded work: at most 8 hashes.
	 * @param queue the queue
	 * @param span how far back
	 * @return one point per interval, oldest first
	 */
	public QueueHistory history(String queue, QueueHistory.Span span) {
		return this.histories.read(queue, span);
	}

	/**
	 * Returns which consumer of a group owns each partition of a queue, for a group that
	 * consumes it exclusively or in order; empty for a group that shares the partitions.
	 * @param queue the queue
	 * @param group the group
	 * @return consumer name by partition number, for the partitions owned now
	 */
	public SortedMap<Integer, String> partitionOwners(String queue, String group) {
		return this.inspection.partitionOwners(queue, group);
	}

	@Override
	public List<DeadLetter> deadLetters(String queue, String after, int count) {
		return this.deadLetters.list(queue, after, count);
	}

	@Override
	public List<DeadLetterError> deadLetterErrors(String queue, int read) {
		return this.deadLetters.errors(queue, read);
	}

	@Override
	public int replayDeadLetters(String queue, DeadLetterError error, int max) {
		return this.deadLetters.matching(queue, error, true, max).count();
	}

	@Override
	public int deleteDeadLetters(String queue, DeadLetterError error, int max) {
		return this.deadLetters.matching(queue, error, false, max).count();
	}

	@Override
	public boolean replay(String queue, String entryId) {
		return this.deadLetters.replay(queue, entryId);
	}

	@Override
	public int replayAll(String queue, String group) {
		return this.deadLetters.replayAll(queue, (group != null) ? this.inspection.requireGroup(queue, group) : null);
	}

	@Override
	public boolean deleteDeadLetter(String queue, String entryId) {
		return this.deadLetters.delete(queue, entryId);
	}

	@Override
	public long purgeDeadLetters(String queue) {
		return this.deadLetters.purge(queue);
	}

}
