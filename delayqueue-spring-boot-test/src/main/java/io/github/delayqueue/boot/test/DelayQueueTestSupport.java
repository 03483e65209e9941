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

package io.github.delayqueue.boot.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.ScheduledMessage;
import io.github.delayqueue.core.internal.redis.QueueKeys;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Makes a queue's scheduled messages due now and waits until they were handled, through
 * the real path: the messages are rescheduled in Redis (as
 * {@link io.github.delayqueue.core.DelayQueueOperations#reschedule(String, String, Duration)}
 * does), the scheduler moves them to the stream, and the application's listeners receive,
 * retry or dead-letter them. Nothing calls a handler directly. A bean of
 * {@link EmbeddedRedis} test contexts; build one with an engine elsewhere.
 */
public class DelayQueueTestSupport {

	/** How long {@link #awaitHandled(String)} waits by default. */
	public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

	private final DelayQueueEngine engine;

	private final RedisConnectionFactory connectionFactory;

	/**
	 * Creates the support.
	 * @param engine the application's engine
	 * @param connectionFactory the connection factory the engine uses
	 */
	public DelayQueueTestSupport(DelayQueueEngine engine, RedisConnectionFactory connectionFactory) {
		this.engine = engine;
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Makes every scheduled message of a queue due now.
	 * @param queue the queue
	 * @return how many messages were made due
	 */
	public int fastForward(String queue) {
		return fastForward(queue, (id) -> true);
	}

	/**
	 * Makes one scheduled message due now.
	 * @param queue the queue
	 * @param id the message's id
	 * @return whether it was scheduled (and now is due)
	 */
	public boolean fastForward(String queue, String id) {
		return this.engine.template().reschedule(queue, id, Duration.ZERO);
	}

	/**
	 * Makes the scheduled messages of a queue whose ids match due now, for tests of code
	 * that generates its own ids ({@code ids.test(id)} sees every scheduled id).
	 * @param queue the queue
	 * @param ids which ids to make due
	 * @return how many messages were made due
	 */
	public int fastForward(String queue, Predicate<String> ids) {
		int moved = 0;
		for (String id : scheduledIds(queue)) {
			if (ids.test(id) && fastForward(queue, id)) {
				moved++;
			}
		}
		return moved;
	}

	/**
	 * Returns the ids of a queue's scheduled messages (not yet due, in the schedule or
	 * the far tier), earliest first.
	 * @param queue the queue
	 * @return the ids
	 */
	public List<String> scheduledIds(String queue) {
		this.engine.register(queue);
		List<String> ids = new ArrayList<>();
		String after = null;
		while (true) {
			List<ScheduledMessage> page = this.engine.admin().scheduled(queue, after, 1000);
			page.forEach((message) -> ids.add(message.id()));
			if (page.size() < 1000) {
				return ids;
			}
			after = page.get(page.size() - 1).cursor();
		}
	}

	public void awaitHandled(String queue) {
		awaitHandled(queue, DEFAULT_TIMEOUT);
	}

	/**
	 * Waits until the queue has nothing to handle now: no scheduled message is due, every
	 * group has read every due message and acknowledged (or dead-lettered) what it read,
	 * and no retry waits. Messages scheduled later are left alone; a queue that no group
	 * consumes never settles.
	 * @param queue the queue
	 * @param timeout the longest wait
	 * @throws AssertionError naming what is left when the timeout passed
	 */
	public void awaitHandled(String queue, Duration timeout) {
		long deadline = System.nanoTime() + timeout.toNanos();
		String left;
		while (true) {
			left = unhandled(queue);
			if (left == null) {
				return;
			}
			if (System.nanoTime() - deadline > 0) {
				throw new AssertionError("Queue '" + queue + "' still has messages to handle after " + timeout + ": "
						+ left + paused(queue));
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new AssertionError("Interrupted while waiting for queue '" + queue + "'", ex);
			}
		}
	}

	/** Why nothing may move: the queue or groups of it are paused. */
	private String paused(String queue) {
		QueueControlState controls = this.engine.admin().controls(queue);
		if (controls.paused()) {
			return " (the queue is paused: resume it with DelayQueueAdmin.resume)";
		}
		if (!controls.pausedGroups().isEmpty()) {
			return " (group(s) " + String.join(", ", controls.pausedGroups())
					+ " paused: resume with DelayQueueAdmin.resume(queue, group))";
		}
		return "";
	}

	/** What is left to handle now, or {@code null}. */
	private String unhandled(String queue) {
		long due = dueScheduled(queue);
		QueueStats stats = this.engine.admin().stats(queue);
		if (stats.groups().isEmpty()) {
			return "no consumer group reads it (is its listener running?)";
		}
		List<String> left = new ArrayList<>();
		if (due > 0) {
			left.add(due + " due message(s) (or far-tier slot(s)) not yet moved to the stream");
		}
		for (QueueStats.GroupStats group : stats.groups()) {
			if (group.lag() != 0) {
				left.add("group " + group.group() + ": " + group.lag() + " unread");
			}
			if (group.pending() > 0) {
				left.add("group " + group.group() + ": " + group.pending() + " in flight");
			}
			if (group.retryScheduled() > 0) {
				left.add("group " + group.group() + ": " + group.retryScheduled() + " retry(ies) scheduled");
			}
		}
		return left.isEmpty() ? null : String.join(", ", left);
	}

	private long dueScheduled(String queue) {
		long now = System.currentTimeMillis();
		long due = 0;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (QueueKeys keys : this.engine.partitionKeys(queue)) {
				Long count = connection.zSetCommands()
					.zCount(QueueKeys.bytes(keys.delayed()), Range.closed((double) Long.MIN_VALUE, (double) now));
				due += (count != null) ? count : 0;
				// a far-tier slot already started and not yet moved (no scheduler ran)
				Long slots = connection.zSetCommands()
					.zCount(QueueKeys.bytes(keys.far()), Range.closed((double) Long.MIN_VALUE, (double) now));
				due += (slots != null) ? slots : 0;
			}
		}
		return due;
	}

}
