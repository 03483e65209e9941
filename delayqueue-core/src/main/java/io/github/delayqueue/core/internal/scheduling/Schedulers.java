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

package io.github.delayqueue.core.internal.scheduling;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.github.delayqueue.core.internal.runtime.LoopRunner;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.ScriptRunner;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The schedulers of one engine, one per queue consumed on this node. A group joins when a
 * container of it starts and leaves when it stops; the queue's scheduler runs while at
 * least one group is joined. Joins and leaves are serialized, so in any interleaving of
 * starts and stops a joined group always has a running scheduler: a scheduler that is
 * stopping is never handed a new group (a new one is started instead).
 */
public final class Schedulers implements AutoCloseable {

	private final ScriptRunner scripts;

	private final WakeUps wakeUps;

	private final int batchSize;

	/** How long before a far slot starts it is moved into the schedule. */
	private final long farLeadMillis;

	private final Duration maxIdle;

	private final Consumer<String> beforeMoves;

	private final Predicate<String> fairShare;

	private final Map<QueueKeys, QueueScheduler> byQueue = new ConcurrentHashMap<>();

	private boolean closed;

	/** Runs the schedulers' steps. */
	private final LoopRunner loops;

	/**
	 * Creates the registry.
	 * @param scripts the script runner
	 * @param connectionFactory the connection factory of the wake-up subscription
	 * @param batchSize the most messages moved per source and promote call
	 * @param maxIdle the longest sleep between two promote calls: the sweep that catches
	 * a lost wake-up (no longer than the far tier's lead, so that a far slot created by a
	 * send, which publishes no wake-up, is moved in time)
	 * @param beforeMoves what the scheduler of a queue's partition 0 does before each
	 * promote call (registers the queue's declared schedules), given the queue; a failure
	 * is retried with the loop
	 * @param fairShare whether a queue is fair-share
	 */
	public Schedulers(ScriptRunner scripts, RedisConnectionFactory connectionFactory, int batchSize, Duration maxIdle,
			Consumer<String> beforeMoves, Predicate<String> fairShare, long farLeadMillis, LoopRunner loops) {
		this.loops = loops;
		this.fairShare = fairShare;
		this.farLeadMillis = farLeadMillis;
		this.scripts = scripts;
		this.wakeUps = new WakeUps(connectionFactory);
		this.batchSize = batchSize;
		this.maxIdle = (farLeadMillis > 0 && maxIdle.toMillis() > farLeadMillis) ? Duration.ofMillis(farLeadMillis)
				: maxIdle;
		this.beforeMoves = beforeMoves;
	}

	/**
	 * Registers a group as consuming a queue on this node: the queue's scheduler promotes
	 * its due messages and the group's due retries.
	 * @param queue the keys of the queue (or of one of its partitions)
	 * @param group the group
	 */
	public synchronized void join(QueueKeys queue, String group) {
		QueueNames.group(group);
		if (this.closed) {
			throw new IllegalStateException("The engine is closed");
		}
		QueueScheduler scheduler = this.byQueue.get(queue);
		if (scheduler == null) {
			scheduler = new QueueScheduler(this.scripts, queue, this.wakeUps, this.batchSize, this.maxIdle,
					this.beforeMoves, this.fairShare.test(queue.queue()), this.farLeadMillis, this.loops);
			scheduler.start();
			this.byQueue.put(queue, scheduler);
		}
		scheduler.addGroup(group);
	}

	/**
	 * Removes a group; the queue's scheduler stops with its last group.
	 * @param queue the keys of the queue (or of one of its partitions)
	 * @param group the group
	 */
	public void leave(QueueKeys queue, String group) {
		QueueScheduler stopping = null;
		synchronized (this) {
			QueueScheduler scheduler = this.byQueue.get(queue);
			if (scheduler != null && scheduler.removeGroup(group)) {
				this.byQueue.remove(queue);
				stopping = scheduler;
			}
		}
		// outside the lock: a join meanwhile starts a scheduler of its own
		if (stopping != null) {
			stopping.stop();
		}
	}

	/**
	 * Tells the queue's scheduler on this node of a due time, e.g. of a retry one of its
	 * handlers scheduled: it promotes then, not at its next sweep. Nothing when no
	 * scheduler of the queue runs here.
	 * @param queue the keys of the queue (or of one of its partitions)
	 * @param dueMillis epoch ms, by the Redis clock
	 */
	public void wake(QueueKeys queue, long dueMillis) {
		// no lock: called after every send
		QueueScheduler scheduler = this.byQueue.get(queue);
		if (scheduler != null) {
			scheduler.wakeAt(dueMillis);
		}
	}

	/**
	 * Tells why a queue has no scheduler on this node whose loop is served: none runs, or
	 * it is being replaced, or its promotions have failed for seconds.
	 * @param queue the keys of the queue (or of one of its partitions)
	 * @return the reason, {@code null} while it is served
	 */
	public synchronized String problem(QueueKeys queue) {
		QueueScheduler scheduler = this.byQueue.get(queue);
		return (scheduler != null) ? scheduler.problem() : "no scheduler of queue '" + queue.queue() + "' runs";
	}

	/**
	 * Stops every scheduler and the wake-up subscription.
	 */
	@Override
	public void close() {
		List<QueueScheduler> stopping;
		synchronized (this) {
			this.closed = true;
			stopping = new ArrayList<>(this.byQueue.values());
			this.byQueue.clear();
		}
		stopping.forEach(QueueScheduler::stop);
		this.wakeUps.close();
	}

	/**
	 * @return the wake-up subscription of the schedulers
	 */
	public WakeUps wakeUps() {
		return this.wakeUps;
	}

}
