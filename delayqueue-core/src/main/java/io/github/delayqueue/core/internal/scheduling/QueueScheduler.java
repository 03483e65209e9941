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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.github.delayqueue.core.internal.runtime.LoopRunner;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;

/**
 * Moves one queue's due messages, and the due retries of the groups consuming it on this
 * node, from their schedules to their streams: a {@link SupervisedLoop} that runs the
 * promote script, then sleeps until the earliest due time it knows of. What it knows
 * comes from the promote call's answer (the earliest entry of every schedule it reads),
 * from the wake-ups a sender publishes (a due time earlier than the schedule's head), and
 * from this node (a retry scheduled by one of its handlers). An idle queue costs no Redis
 * command but a sweep every {@code schedulerMaxIdle} (30 s by default), which catches a
 * wake-up lost while the subscription seemed up; a resubscription (after a reconnect or a
 * failover) promotes at once. Created and stopped by {@link Schedulers} only.
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

	private WakeUps.Subscription subscription;

	/** Set by a wake-up that asks for a promote call now. */
	private final AtomicBoolean promoteNow = new AtomicBoolean(true);

	/** The earliest due time told in-JVM or by a wake-up (epoch ms, local clock). */
	private final AtomicLong dueAt = new AtomicLong(Long.MAX_VALUE);

	/** When the sleep after the last promote call ends ({@code System.nanoTime()}). */
	private long sweepAt;

	/** The Redis clock less the local one, as of the last promote call (ms). */
	private volatile long redisAheadMillis;

	private final Consumer<String> beforeMoves;

	/**
	 * In a fair-share queue, how many entries a promote call leaves for the group
	 * furthest ahead to read, at most, moving waiting messages to the stream: enough to
	 * wake its readers, which move the rest as they read.
	 */
	static final int FAIR_WAKE_WINDOW = 16;

	/**
	 * How long one step goes on calling while batches are full: under the runner's 50 ms
	 * that counts a step as blocked.
	 */
	private static final long BACKLOG_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(40);

	private final String fairShare;

	/** How long before a far slot starts it is moved into the schedule. */
	private final long farLeadMillis;

	QueueScheduler(ScriptRunner scripts, QueueKeys keys, WakeUps wakeUps, int batchSize, Duration maxIdle,
			Consumer<String> beforeMoves, boolean fairShare, long farLeadMillis, LoopRunner loops) {
		this.beforeMoves = beforeMoves;
		this.fairShare = fairShare ? "1" : "0";
		this.farLeadMillis = farLeadMillis;
		this.scripts = scripts;
		this.keys = keys;
		this.wakeUps = wakeUps;
		this.batchSize = batchSize;
		this.maxIdleNanos = maxIdle.toNanos();
		this.sweepAt = System.nanoTime();
		this.planner = new SchedulePlanner(scripts);
		String partition = (keys.partition() == 0) ? "" : " (partition " + keys.partition() + ")";
		// on the engine's runner: a scheduler that sleeps until its next due time holds
		// no
		// thread
		this.loop = new SupervisedLoop("scheduler of queue '" + keys.queue() + "'" + partition, loops, this);
	}

	void start() {
		this.subscription = this.wakeUps.subscribe(this.keys.wakeChannel(), this::wakeAt, this::wake);
		this.loop.start();
	}

	/** Called under the registry's lock. */
	void addGroup(String group) {
		this.groups.merge(group, 1, Integer::sum);
		wake();
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

	/** Promotes now: a wake-up may have been lost, or something came due. */
	void wake() {
		this.promoteNow.set(true);
		this.loop.wake();
	}

	/**
	 * Promotes at a due time (at once if it is due), unless an earlier one is known.
	 * @param dueMillis epoch ms, by the Redis clock
	 */
	void wakeAt(long dueMillis) {
		long local = dueMillis - this.redisAheadMillis;
		if (local <= System.currentTimeMillis()) {
			wake();
			return;
		}
		long before = this.dueAt.getAndAccumulate(local, Math::min);
		if (local < before) {
			// the loop sleeps longer: it sleeps again, until this one
			this.loop.wake();
		}
	}

	void stop() {
		this.wakeUps.unsubscribe(this.subscription);
		this.loop.stop(Duration.ofSeconds(10));
	}

	@Override
	public long runOnce() {
		long now = System.currentTimeMillis();
		long sleep = untilDue(now);
		if (sleep > 0) {
			// woken only to sleep until an earlier due time
			return sleep;
		}
		// a call that fails is retried after the backoff, not after the sleep
		this.sweepAt = System.nanoTime();
		if (this.keys.partition() == 0) {
			this.beforeMoves.accept(this.keys.queue());
		}
		// a backlog due at once is moved call after call in one step, as a thread of its
		// own did, not a call per turn of the runner: in a fair-share queue the readers
		// fill the stream from what was moved so far, and a key due with the backlog but
		// moved last would wait behind more of it than the bound (fairness.md)
		long budgetEnd = System.nanoTime() + BACKLOG_STEP_NANOS;
		long next;
		do {
			next = promote();
		}
		while (next == 0 && System.nanoTime() - budgetEnd < 0);
		return next;
	}

	/**
	 * One promote call.
	 * @return how long to sleep after it: 0 when due messages remain (it moved a full
	 * batch)
	 */
	private long promote() {
		List<Object> reply = this.scripts.run(Scripts.PROMOTE_ALLOW_OOM, Scripts.PROMOTE,
				this.keys.promoteKeys(List.copyOf(this.groups.keySet())), this.batchSize, this.fairShare,
				FAIR_WAKE_WINDOW, this.farLeadMillis);
		this.redisAheadMillis = ScriptRunner.asLong(reply.get(2)) - System.currentTimeMillis();
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
		long next = (nextDue < 0) ? this.maxIdleNanos
				: Math.min(this.maxIdleNanos, TimeUnit.MICROSECONDS.toNanos(nextDue * 1000 - nowMicros));
		this.sweepAt = System.nanoTime() + next;
		return next;
	}

	/**
	 * Tells how long to sleep before the next promote call: 0 when one is asked for now,
	 * a due time told meanwhile has come, or the sleep after the last call is over.
	 * Before a call, clears every due time told so far, due or not: each was told after
	 * its entry was written (a sender's or a nack's wake-up is published by the script
	 * that writes it, and {@link Schedulers#wake} is called after that script), so the
	 * call reads it and sleeps no longer than until it. A due time left behind would be
	 * one the loop no longer sleeps towards (woken by its sweep a millisecond before it,
	 * by another clock offset, or by a wake-up), and {@link #wakeAt} would drop every
	 * later one as not earlier, until the next sweep.
	 */
	private long untilDue(long nowMillis) {
		if (!this.promoteNow.getAndSet(false)) {
			long due = this.dueAt.get();
			long untilSweep = this.sweepAt - System.nanoTime();
			if (due > nowMillis && untilSweep > 0) {
				return Math.min(untilSweep, TimeUnit.MILLISECONDS.toNanos(due - nowMillis));
			}
		}
		this.dueAt.set(Long.MAX_VALUE);
		return 0;
	}

	private static List<String> names(Object reply) {
		if (!(reply instanceof List<?> list)) {
			return List.of();
		}
		return list.stream().map(ScriptRunner::asString).toList();
	}

}
