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

package io.github.delayqueue.autoconfigure.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.TreeSet;

import io.github.delayqueue.core.internal.InputText;
import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelaySchedules;
import io.github.delayqueue.core.ScheduleInfo;
import io.github.delayqueue.core.PartitionLayout;
import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import io.github.delayqueue.core.internal.runtime.BoundedCalls;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code delayqueue} actuator endpoint: {@code GET /actuator/delayqueue} lists every
 * queue with its counts and this application's listeners; {@code GET
 * /actuator/delayqueue/{queue}} shows one queue's counts per group and a page of its dead
 * letters ({@code ?after=<entry id>} for the next page). Its write operations (replay,
 * cancel, delete, purge) are governed by Spring Boot's endpoint access control and are
 * off by default: {@code management.endpoint.delayqueue.access=unrestricted} turns them
 * on.
 */
@Endpoint(id = "delayqueue", defaultAccess = Access.READ_ONLY)
public class DelayQueueEndpoint {

	static final int DEAD_LETTER_PAGE = 20;

	private static final String ACTIONS = "'replay' (entryId or group optional), 'cancel' (messageId), "
			+ "'pause' or 'resume' (group optional), 'limit-rate' (rateLimit, group optional), "
			+ "'remove-rate-limit' (group optional), 'limit-concurrency' (concurrencyLimit, group optional), "
			+ "'remove-concurrency-limit' (group optional), 'limit-size' (sizeLimit), 'remove-size-limit', "
			+ "'change-partitions' (partitions), 'finish-partition-change', or 'pause-schedule', "
			+ "'resume-schedule', 'trigger-schedule' or 'delete-schedule' (schedule)";

	static final int MAX_PAYLOAD_SHOWN = 1024;

	/** How long a read of the endpoint or the health indicator waits for Redis. */
	static final Duration READ_BOUND = Duration.ofSeconds(1);

	private final DelayQueueEngine engine;

	private final ObjectProvider<DelayListenerEndpointRegistry> listeners;

	/**
	 * Creates the endpoint.
	 * @param engine the engine
	 * @param listeners the listener registry, if any
	 */
	public DelayQueueEndpoint(DelayQueueEngine engine, ObjectProvider<DelayListenerEndpointRegistry> listeners) {
		this.engine = engine;
		this.listeners = listeners;
	}

	/**
	 * Lists the queues (those in the Redis registry and those this application listens
	 * to) with their counts, and this application's listeners.
	 * @return the queues and listeners
	 */
	@ReadOperation
	public QueuesDescriptor queues() {
		Map<String, QueueStats> queues = new TreeMap<>();
		Map<String, QueueControlState> paused = new TreeMap<>();
		try {
			BoundedCalls.call(READ_BOUND, () -> {
				TreeSet<String> names = new TreeSet<>(this.engine.admin().queues());
				this.listeners.ifAvailable((registry) -> names.addAll(registry.getQueues()));
				for (String name : names) {
					queues.put(name, this.engine.admin().stats(name));
					QueueControlState controls = this.engine.admin().controls(name);
					if (controls.paused() || !controls.pausedGroups().isEmpty()) {
						paused.put(name, controls);
					}
				}
				return null;
			});
		}
		catch (BoundedCalls.TimeoutException ex) {
			return new QueuesDescriptor(Map.copyOf(queues), Map.copyOf(paused), listeners(), ex.getMessage());
		}
		return new QueuesDescriptor(queues, paused, listeners(), null);
	}

	/**
	 * Shows one queue: its counts and a page of dead letters.
	 * @param queue the queue
	 * @param after the entry id after which the page starts, or {@code null}
	 * @return the queue
	 */
	@ReadOperation
	public QueueDescriptor queue(@Selector String queue, @Nullable String after) {
		try {
			return BoundedCalls.call(READ_BOUND, () -> {
				requireKnown(queue);
				List<DeadLetterDescriptor> deadLetters = this.engine.admin()
					.deadLetters(queue, after, DEAD_LETTER_PAGE)
					.stream()
					.map(DeadLetterDescriptor::of)
					.toList();
				QueueStats stats = this.engine.admin().stats(queue);
				Map<String, Map<Integer, String>> owners = new TreeMap<>();
				for (QueueStats.GroupStats group : stats.groups()) {
					Map<Integer, String> owned = this.engine.admin().partitionOwners(queue, group.group());
					if (!owned.isEmpty()) {
						owners.put(group.group(), owned);
					}
				}
				OptionalLong sizeLimit = this.engine.admin().sizeLimit(queue);
				QueueControlState controls = this.engine.admin().controls(queue);
				return new QueueDescriptor(stats, controls, sizeLimit.isPresent() ? sizeLimit.getAsLong() : null,
						this.engine.admin().partitionLayout(queue), owners, deadLetters,
						this.engine.admin().schedules().list(queue).stream().map(ScheduleDescriptor::of).toList(),
						this.engine.isFairShare(queue), slotsTaken(queue, stats, controls), null);
			});
		}
		catch (BoundedCalls.TimeoutException ex) {
			return new QueueDescriptor(null, null, null, null, Map.of(), List.of(), List.of(),
					this.engine.isFairShare(queue), Map.of(), ex.getMessage());
		}
	}

	/**
	 * Replays dead letters, cancels a scheduled message, or changes the queue's partition
	 * count.
	 * @param queue the queue
	 * @param action {@code replay}, {@code cancel}, {@code pause}, {@code resume},
	 * {@code limit-rate}, {@code remove-rate-limit}, {@code limit-concurrency},
	 * {@code remove-concurrency-limit}, {@code limit-size}, {@code remove-size-limit},
	 * {@code change-partitions} or {@code finish-partition-change}
	 * @param entryId the dead letter to replay ({@code replay}); all when absent
	 * @param group the group whose dead letters to replay ({@code replay} without
	 * {@code entryId}; all groups when absent), or to pause or resume (the whole queue
	 * when absent)
	 * @param messageId the message to cancel ({@code cancel})
	 * @param partitions the new partition count ({@code change-partitions})
	 * @param sizeLimit the queue's new maximum of waiting messages ({@code limit-size})
	 * @param rateLimit the new rate limit, as {@code permits/period[/burst][/key]}
	 * ({@code limit-rate})
	 * @param schedule the recurring schedule to pause, resume, trigger or delete
	 * @param concurrencyLimit the new concurrency limit, as {@code max[/key]}
	 * ({@code limit-concurrency})
	 * @return what was done
	 */
	@WriteOperation
	public Map<String, Object> act(@Selector String queue, @Nullable String action, @Nullable String entryId,
			@Nullable String group, @Nullable String messageId, @Nullable Integer partitions, @Nullable Long sizeLimit,
			@Nullable String rateLimit, @Nullable String schedule, @Nullable String concurrencyLimit) {
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("queue", queue);
		result.put("action", action);
		if (action == null) {
			throw new IllegalArgumentException("Missing action; use " + ACTIONS);
		}
		requireKnown(queue);
		switch (action) {
			case "replay" -> {
				if (entryId != null) {
					if (!this.engine.admin().replay(queue, entryId)) {
						throw new NotFoundException("No dead letter '" + entryId + "' in queue '" + queue + "'");
					}
					result.put("replayed", 1);
				}
				else {
					result.put("replayed", this.engine.admin().replayAll(queue, group));
				}
			}
			case "cancel" -> {
				if (messageId == null) {
					throw new IllegalArgumentException("Action 'cancel' needs a messageId");
				}
				result.put("cancelled", this.engine.template().cancel(queue, messageId));
			}
			case "change-partitions" -> {
				if (partitions == null) {
					throw new IllegalArgumentException("Action 'change-partitions' needs partitions (the new count)");
				}
				result.put("layout", this.engine.admin().changePartitions(queue, partitions));
			}
			case "finish-partition-change" -> result.put("layout", this.engine.admin().finishPartitionChange(queue));
			case "pause" -> result.put("controls",
					(group != null) ? this.engine.admin().pause(queue, group) : this.engine.admin().pause(queue));
			case "resume" -> result.put("controls",
					(group != null) ? this.engine.admin().resume(queue, group) : this.engine.admin().resume(queue));
			case "limit-size" -> {
				if (sizeLimit == null) {
					throw new IllegalArgumentException(
							"Action 'limit-size' needs sizeLimit (the queue's maximum of waiting messages)");
				}
				this.engine.admin().limitSize(queue, sizeLimit);
				result.put("sizeLimit", sizeLimit);
			}
			case "limit-rate" -> {
				if (rateLimit == null) {
					throw new IllegalArgumentException(
							"Action 'limit-rate' needs rateLimit (permits/period[/burst][/key], e.g. 500/1s)");
				}
				RateLimit limit = RateLimit.parse(rateLimit);
				result.put("controls", (group != null) ? this.engine.admin().limitRate(queue, group, limit)
						: this.engine.admin().limitRate(queue, limit));
			}
			case "remove-rate-limit" -> result.put("controls", (group != null)
					? this.engine.admin().removeRateLimit(queue, group) : this.engine.admin().removeRateLimit(queue));
			case "limit-concurrency" -> {
				if (concurrencyLimit == null) {
					throw new IllegalArgumentException(
							"Action 'limit-concurrency' needs concurrencyLimit (max[/key], e.g. 10 or 2/key)");
				}
				ConcurrencyLimit limit = ConcurrencyLimit.parse(concurrencyLimit);
				result.put("controls", (group != null) ? this.engine.admin().limitConcurrency(queue, group, limit)
						: this.engine.admin().limitConcurrency(queue, limit));
			}
			case "remove-concurrency-limit" ->
				result.put("controls", (group != null) ? this.engine.admin().removeConcurrencyLimit(queue, group)
						: this.engine.admin().removeConcurrencyLimit(queue));
			case "remove-size-limit" -> {
				this.engine.admin().removeSizeLimit(queue);
				result.put("sizeLimit", null);
			}
			case "pause-schedule", "resume-schedule", "trigger-schedule", "delete-schedule" ->
				result.put("schedule", actOnSchedule(queue, action, schedule));
			default ->
				throw new IllegalArgumentException("Unknown action " + InputText.quote(action) + "; use " + ACTIONS);
		}
		return result;
	}

	/** The slots taken in each group under a concurrency limit of the whole group. */
	private Map<String, Long> slotsTaken(String queue, QueueStats stats, QueueControlState controls) {
		Map<String, Long> taken = new TreeMap<>();
		for (QueueStats.GroupStats group : stats.groups()) {
			ConcurrencyLimit limit = controls.concurrencyLimit(group.group());
			if (limit != null && !limit.perKey()) {
				taken.put(group.group(), this.engine.admin().concurrencySlotsTaken(queue, group.group()));
			}
		}
		return taken;
	}

	private Object actOnSchedule(String queue, String action, @Nullable String schedule) {
		if (schedule == null) {
			throw new IllegalArgumentException("Action " + InputText.quote(action) + " needs a schedule (its name)");
		}
		DelaySchedules.Action act = DelaySchedules.Action.parse(action.substring(0, action.indexOf('-')));
		String done = this.engine.admin()
			.schedules()
			.apply(queue, schedule, act)
			.orElseThrow(() -> new NotFoundException(
					"No schedule " + InputText.quote(schedule) + " in queue " + InputText.quote(queue)));
		return (act == DelaySchedules.Action.TRIGGER) ? Map.of("name", schedule, "messageId", done) : schedule;
	}

	/**
	 * Deletes one dead letter.
	 * @param queue the queue
	 * @param entryId the dead letter's entry id
	 * @return whether it existed
	 */
	@DeleteOperation
	public Map<String, Object> deleteDeadLetter(@Selector String queue, @Selector String entryId) {
		requireKnown(queue);
		if (!this.engine.admin().deleteDeadLetter(queue, entryId)) {
			throw new NotFoundException("No dead letter '" + entryId + "' in queue '" + queue + "'");
		}
		return Map.of("queue", queue, "entryId", entryId, "deleted", true);
	}

	/**
	 * Deletes every dead letter of a queue.
	 * @param queue the queue
	 * @return how many were deleted
	 */
	@DeleteOperation
	public Map<String, Object> purgeDeadLetters(@Selector String queue) {
		requireKnown(queue);
		return Map.of("queue", queue, "purged", this.engine.admin().purgeDeadLetters(queue));
	}

	/**
	 * Refuses a queue that no listener of this application reads and Redis does not know.
	 * @throws IllegalArgumentException when the name is not a valid queue name
	 * @throws NotFoundException when the queue is unknown
	 */
	private void requireKnown(String queue) {
		this.engine.keys(queue);
		DelayListenerEndpointRegistry registry = this.listeners.getIfAvailable();
		if (registry != null && registry.getQueues().contains(queue)) {
			return;
		}
		if (!this.engine.admin().queues().contains(queue)) {
			throw new NotFoundException("Unknown queue '" + queue
					+ "': no listener of this application reads it and it was never sent to or consumed");
		}
	}

	/**
	 * Something the request names does not exist: a queue, or a dead letter. Over HTTP
	 * the answer is 404 with the message in the body.
	 */
	public static class NotFoundException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		/**
		 * Creates the exception.
		 * @param message what was not found
		 */
		public NotFoundException(String message) {
			super(message);
		}

	}

	private List<ListenerDescriptor> listeners() {
		DelayListenerEndpointRegistry registry = this.listeners.getIfAvailable();
		if (registry == null) {
			return List.of();
		}
		return registry.getListenerContainerIds().stream().map((id) -> {
			DelayQueueListenerContainer container = registry.getListenerContainer(id);
			return new ListenerDescriptor(id, container.queue(), container.group(), container.isRunning(),
					container.settings().concurrency(), container.heldMessages(),
					List.copyOf(container.partitionsRead()));
		}).toList();
	}

}
