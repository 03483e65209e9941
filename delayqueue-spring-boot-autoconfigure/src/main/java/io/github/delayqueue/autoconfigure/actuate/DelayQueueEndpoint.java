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

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelaySchedules;
import io.github.delayqueue.core.ScheduleInfo;
import io.github.delayqueue.core.PartitionLayout;
import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.QueueStats;
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
			+ "'remove-rate-limit' (group optional), 'limit-size' (sizeLimit), 'remove-size-limit', "
			+ "'change-partitions' (partitions), 'finish-partition-change', or 'pause-schedule', "
			+ "'resume-schedule', 'trigger-schedule' or 'delete-schedule' (schedule)";

	private static final int MAX_PAYLOAD_SHOWN = 1024;

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
				return new QueueDescriptor(stats, this.engine.admin().controls(queue),
						sizeLimit.isPresent() ? sizeLimit.getAsLong() : null,
						this.engine.admin().partitionLayout(queue), owners, deadLetters,
						this.engine.admin().schedules().list(queue).stream().map(ScheduleDescriptor::of).toList(),
						this.engine.isFairShare(queue), null);
			});
		}
		catch (BoundedCalls.TimeoutException ex) {
			return new QueueDescriptor(null, null, null, null, Map.of(), List.of(), List.of(),
					this.engine.isFairShare(queue), ex.getMessage());
		}
	}

	/**
	 * Replays dead letters, cancels a scheduled message, or changes the queue's partition
	 * count.
	 * @param queue the queue
	 * @param action {@code replay}, {@code cancel}, {@code pause}, {@code resume},
	 * {@code limit-rate}, {@code remove-rate-limit}, {@code limit-size},
	 * {@code remove-size-limit}, {@code change-partitions} or
	 * {@code finish-partition-change}
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
	 * @return what was done
	 */
	@WriteOperation
	public Map<String, Object> act(@Selector String queue, @Nullable String action, @Nullable String entryId,
			@Nullable String group, @Nullable String messageId, @Nullable Integer partitions, @Nullable Long sizeLimit,
			@Nullable String rateLimit, @Nullable String schedule) {
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
			case "remove-size-limit" -> {
				this.engine.admin().removeSizeLimit(queue);
				result.put("sizeLimit", null);
			}
			case "pause-schedule", "resume-schedule", "trigger-schedule", "delete-schedule" ->
				result.put("schedule", actOnSchedule(queue, action, schedule));
			default -> throw new IllegalArgumentException("Unknown action '" + action + "'; use " + ACTIONS);
		}
		return result;
	}

	private Object actOnSchedule(String queue, String action, @Nullable String schedule) {
		if (schedule == null) {
			throw new IllegalArgumentException("Action '" + action + "' needs a schedule (its name)");
		}
		DelaySchedules.Action act = DelaySchedules.Action.parse(action.substring(0, action.indexOf('-')));
		String done = this.engine.admin()
			.schedules()
			.apply(queue, schedule, act)
			.orElseThrow(() -> new NotFoundException("No schedule '" + schedule + "' in queue '" + queue + "'"));
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

	/**
	 * Every queue's counts and this application's listeners.
	 *
	 * @param queues counts by queue name
	 * @param paused the queues that are paused, or have a paused group, with what is
	 * paused
	 * @param listeners the listeners
	 * @param error why the counts are missing or incomplete (Redis did not answer in
	 * time), or {@code null}
	 */
	public record QueuesDescriptor(Map<String, QueueStats> queues, Map<String, QueueControlState> paused,
			List<ListenerDescriptor> listeners, @Nullable String error) {
	}

	/**
	 * One listener of this application.
	 *
	 * @param id the endpoint id
	 * @param queue the queue
	 * @param group the group
	 * @param running whether it is running
	 * @param concurrency how many handlers run at once
	 * @param held deliveries it holds (running or prefetched)
	 * @param partitions the partitions it reads (those it owns, when exclusive or
	 * ordered)
	 */
	public record ListenerDescriptor(String id, String queue, String group, boolean running, int concurrency, int held,
			List<Integer> partitions) {
	}

	/**
	 * One queue's counts and a page of its dead letters.
	 *
	 * @param stats the counts
	 * @param controls whether the queue, or which of its groups, is paused
	 * @param sizeLimit the queue's maximum of waiting messages, {@code null} for none
	 * @param partitions the partition count in Redis, and a change of it in progress
	 * @param partitionOwners for each group consuming the queue exclusively or in order:
	 * the consumer owning each partition
	 * @param deadLetters the oldest dead letters (after the requested entry)
	 * @param schedules the queue's recurring schedules
	 * @param fairShare whether this application declares the queue fair-share
	 * @param error why the counts are missing (Redis did not answer in time), or
	 * {@code null}
	 */
	public record QueueDescriptor(@Nullable QueueStats stats, @Nullable QueueControlState controls,
			@Nullable Long sizeLimit, @Nullable PartitionLayout partitions,
			Map<String, Map<Integer, String>> partitionOwners, List<DeadLetterDescriptor> deadLetters,
			List<ScheduleDescriptor> schedules, boolean fairShare, @Nullable String error) {
	}

	/**
	 * A recurring schedule as shown by the endpoint.
	 *
	 * @param name its name
	 * @param ticks how it ticks ({@code cron ... (zone)} or {@code every ...})
	 * @param missedTicks what happens to missed ticks
	 * @param paused whether it is paused
	 * @param nextTick its pending tick, or {@code null}
	 * @param lastTick its last tick, or {@code null}
	 * @param fired the ticks fired
	 * @param skipped the ticks skipped
	 * @param headers the headers of its messages
	 * @param payload its payload as text, as for dead letters
	 */
	public record ScheduleDescriptor(String name, String ticks, String missedTicks, boolean paused,
			@Nullable Instant nextTick, @Nullable Instant lastTick, long fired, long skipped,
			Map<String, String> headers, String payload) {

		static ScheduleDescriptor of(ScheduleInfo schedule) {
			return new ScheduleDescriptor(schedule.name(), schedule.description(), schedule.missedTicks().name(),
					schedule.paused(), schedule.nextTick(), schedule.lastTick(), schedule.fired(), schedule.skipped(),
					schedule.headers(), DeadLetterDescriptor.text(schedule.payload()));
		}

	}

	/**
	 * A dead letter as shown by the endpoint: the payload as UTF-8 text when it is text
	 * (cut at 1 KiB), else its size.
	 *
	 * @param entryId the entry id (to replay or delete it)
	 * @param messageId the message id
	 * @param group the group whose attempts failed
	 * @param attempts the attempts made
	 * @param errorClass the last failure's class
	 * @param errorMessage the last failure's message
	 * @param dueTime when the message was due
	 * @param deadTime when it was dead-lettered
	 * @param headers the headers
	 * @param payload the payload text, or a description of binary content
	 */
	public record DeadLetterDescriptor(String entryId, String messageId, String group, int attempts, String errorClass,
			String errorMessage, Instant dueTime, Instant deadTime, Map<String, String> headers, String payload) {

		static DeadLetterDescriptor of(DeadLetter letter) {
			return new DeadLetterDescriptor(letter.entryId(), letter.messageId(), letter.group(), letter.attempts(),
					letter.errorClass(), letter.errorMessage(), letter.dueTime(), letter.deadTime(), letter.headers(),
					text(letter.payload()));
		}

		static String text(byte[] payload) {
			return PayloadText.preview(payload, MAX_PAYLOAD_SHOWN);
		}

	}

}
