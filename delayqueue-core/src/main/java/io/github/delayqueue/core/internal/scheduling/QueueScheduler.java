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
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.internal.runtime.SupervisedLoop;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;

import org.springframework.data.redis.connection.MessageListener;

/**
 * Moves one queue's due messages, and the due retries of the groups consuming it on this
 * node, from their schedules to their streams: a {@link SupervisedLoop} that runs the
 * promote script, then sleeps until the next due time, a wake-up, or the longest idle
 * time, whichever comes first. Created and stopped by {@link Schedulers} only.
 */
final class QueueScheduler implements SupervisedLoop.Job {

	private final ScriptRunner scripts;

	private final QueueKeys keys;

	private final WakeUps wakeUps;

	private final int batchSize;

	private final long maxIdleNanos;

	/** The node's groups of this queue, with how many containers of each run here. */
	private final Map<String, Integer> groups = new ConcurrentHashMap<>();

	private final SupervisedLoop loop;

	private final SchedulePlanner planner;

	private MessageListener subscription;

	private final Consumer<String> beforeMoves;

	/**
	 * In a fair-share queue, how many entries a promote call leaves for the group
	 * furthest ahead to read, at most, moving waiting messages to the stream: enough to
	 * wake its readers, which move the rest as they read.
	 */
	static final int FAIR_WAKE_WINDOW = 16;

	private final String fairShare;

	/** How long before a far slot starts it is moved into the schedule. */
	private final long farLeadMillis;

	QueueScheduler(ScriptRunner scripts, QueueKeys keys, WakeUps wakeUps, int batchSize, Duration maxIdle,
			Consumer<String> beforeMoves, boolean fairShare, long farLeadMillis) {
		this.beforeMoves = beforeMoves;
		this.fairShare = fairShare ? "1" : "0";
		this.farLeadMillis = farLeadMillis;
		this.scripts = scripts;
		this.keys = keys;
		this.wakeUps = wakeUps;
		this.batchSize = batchSize;
		this.maxIdleNanos = maxIdle.toNanos();
		this.planner = new SchedulePlanner(scripts);
		String partition = (keys.partition() == 0) ? "" : " (partition " + keys.partition() + ")";
		this.loop = new SupervisedLoop("scheduler of queue '" + keys.queue() + "'" + partition,
				"delayqueue-scheduler-" + keys.tag(), this);
	}

	void start() {
		this.subscription = this.wakeUps.subscribe(this.keys.wakeChannel(), (due) -> this.loop.wake());
		this.loop.start();
	}

	/** Called under the registry's lock. */
	void addGroup(String group) {
		this.groups.merge(group, 1, Integer::sum);
		this.loop.wake();
	}

	/**
	 * Called under the registry's lock.
	 * @return whether that was the last group (the scheduler is to stop)
	 */
	boolean removeGroup(String group) {
		this.groups.computeIfPresent(group, (name, count) -> (count > 1) ? count - 1 : null);
		return this.groups.isEmpty();
	}

	String problem() {
		return this.loop.problem();
	}

	void wake() {
		this.loop.wake();
	}

	void stop() {
		this.wakeUps.unsubscribe(this.subscription);
		this.loop.stop(Duration.ofSeconds(10));
	}

	@Override
	public long runOnce() {
		if (this.keys.partition() == 0) {
			this.beforeMoves.accept(this.keys.queue());
		}
		List<Object> reply = this.scripts.run(Scripts.PROMOTE_ALLOW_OOM, Scripts.PROMOTE,
				this.keys.promoteKeys(List.copyOf(this.groups.keySet())), this.batchSize, this.fairShare,
				FAIR_WAKE_WINDOW, this.farLeadMillis);
		this.wakeUps.ensureStarted();
		List<String> plan = names(reply.get(5));
		if (!plan.isEmpty()) {
			this.planner.plan(this.keys, plan, ScriptRunner.asLong(reply.get(2)));
		}
		long nextDue = ScriptRunner.asLong(reply.get(1));
		boolean full = ScriptRunner.asLong(reply.get(3)) == 1;
		if (full) {
			return 0;
		}
		long nowMicros = ScriptRunner.asLong(reply.get(4));
		return (nextDue < 0) ? this.maxIdleNanos
				: Math.min(this.maxIdleNanos, TimeUnit.MICROSECONDS.toNanos(nextDue * 1000 - nowMicros));
	}

	private static List<String> names(Object reply) {
		if (!(reply instanceof List<?> list)) {
			return List.of();
		}
		return list.stream().map(ScriptRunner::asString).toList();
	}

}
