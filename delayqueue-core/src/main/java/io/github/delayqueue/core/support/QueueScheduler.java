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

package io.github.delayqueue.core.support;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.MessageListener;

/**
 * The scheduler loop of one queue on one node: runs the promote script (due messages to
 * the stream, due retries of the node's groups to their retry streams), then sleeps until
 * the next due time by the Redis clock, at most {@code maxIdle}, and wakes early when a
 * producer publishes an earlier due time. Any number of nodes may run it at once: the
 * script moves each message exactly once. When Redis is unreachable it backs off up to 5s
 * and resumes by itself.
 */
public final class QueueScheduler {

	private static final Log logger = LogFactory.getLog(QueueScheduler.class);

	private static final long MAX_BACKOFF_MS = 5000;

	private final ScriptRunner scripts;

	private final QueueKeys keys;

	private final WakeUps wakeUps;

	private final int batchSize;

	private final long maxIdleNanos;

	/** The node's groups of this queue, with how many containers of each run here. */
	private final Map<String, Integer> groups = new ConcurrentHashMap<>();

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition wakeUp = this.lock.newCondition();

	private final Thread thread;

	private final MessageListener subscription;

	private volatile boolean running = true;

	private boolean woken;

	/**
	 * Creates and starts a scheduler.
	 * @param scripts the script runner
	 * @param keys the queue's keys
	 * @param wakeUps the wake-up subscriptions
	 * @param batchSize the most messages moved per source and call
	 * @param maxIdle the longest sleep between two promote calls
	 */
	public QueueScheduler(ScriptRunner scripts, QueueKeys keys, WakeUps wakeUps, int batchSize, Duration maxIdle) {
		this.scripts = scripts;
		this.keys = keys;
		this.wakeUps = wakeUps;
		this.batchSize = batchSize;
		this.maxIdleNanos = maxIdle.toNanos();
		this.subscription = wakeUps.subscribe(keys.wakeChannel(), (due) -> wake());
		this.thread = new Thread(this::run, "delayqueue-scheduler-" + keys.queue());
		this.thread.setDaemon(true);
		this.thread.start();
	}

	/**
	 * Adds a group whose retries this node promotes.
	 * @param group the group
	 */
	public void addGroup(String group) {
		this.groups.merge(group, 1, Integer::sum);
		wake();
	}

	/**
	 * Removes a group; stops the scheduler when it was the last.
	 * @param group the group
	 * @return whether the scheduler stopped
	 */
	public boolean removeGroup(String group) {
		this.groups.computeIfPresent(group, (name, count) -> (count > 1) ? count - 1 : null);
		if (this.groups.isEmpty()) {
			stop();
			return true;
		}
		return false;
	}

	/**
	 * Wakes the loop to promote now.
	 */
	public void wake() {
		this.lock.lock();
		try {
			this.woken = true;
			this.wakeUp.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Stops the loop.
	 */
	public void stop() {
		this.running = false;
		this.wakeUps.unsubscribe(this.subscription);
		wake();
		try {
			this.thread.join(TimeUnit.SECONDS.toMillis(10));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void run() {
		long backoff = 0;
		while (this.running) {
			long sleepNanos;
			try {
				List<Object> reply = this.scripts.run(Scripts.PROMOTE_ALLOW_OOM, Scripts.PROMOTE,
						this.keys.promoteKeys(List.copyOf(this.groups.keySet())), this.batchSize);
				if (backoff > 0) {
					logger.info("Scheduler of queue '" + this.keys.queue() + "' reaches Redis again");
					backoff = 0;
				}
				this.wakeUps.ensureStarted();
				long nextDue = ScriptRunner.asLong(reply.get(1));
				boolean full = ScriptRunner.asLong(reply.get(3)) == 1;
				if (full) {
					continue;
				}
				long nowMicros = ScriptRunner.asLong(reply.get(4));
				sleepNanos = (nextDue < 0) ? this.maxIdleNanos
						: Math.min(this.maxIdleNanos, TimeUnit.MICROSECONDS.toNanos(nextDue * 1000 - nowMicros));
			}
			catch (RuntimeException ex) {
				if (!this.running) {
					return;
				}
				backoff = (backoff == 0) ? 100 : Math.min(MAX_BACKOFF_MS, backoff * 2);
				if (backoff == 100 || backoff == MAX_BACKOFF_MS) {
					logger.warn("Scheduler of queue '" + this.keys.queue() + "' cannot reach Redis, retrying in "
							+ backoff + "ms: " + ScriptRunner.describe(ex));
				}
				sleepNanos = TimeUnit.MILLISECONDS.toNanos(backoff);
			}
			sleep(sleepNanos);
		}
	}

	private void sleep(long nanos) {
		this.lock.lock();
		try {
			long remaining = nanos;
			while (remaining > 0 && !this.woken && this.running) {
				remaining = this.wakeUp.awaitNanos(remaining);
			}
			this.woken = false;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			this.running = false;
		}
		finally {
			this.lock.unlock();
		}
	}

}
