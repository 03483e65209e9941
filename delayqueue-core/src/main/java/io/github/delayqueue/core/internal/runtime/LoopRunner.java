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

package io.github.delayqueue.core.internal.runtime;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The few threads of one engine that run the steps of its {@link SupervisedLoop loops}
 * made {@link SupervisedLoop#SupervisedLoop(String, LoopRunner, SupervisedLoop.Job) on a
 * runner} (the containers' ackers and lease keepers, the schedulers): a step runs when
 * due or woken, and a loop that sleeps holds no thread. However many queues, partitions
 * and groups the engine serves, {@link #THREADS} threads ({@code delayqueue-loop-<n>})
 * run the steps, and one ({@code delayqueue-loop-timer}) hands each over when due.
 * <p>
 * A step may block on Redis (a call to a master that hangs waits for the command timeout,
 * a slot split is retried for seconds): while steps wait {@link #STARVED_MILLIS} for a
 * thread and steps have run that long, the runner adds a thread for each of those, up to
 * {@link #MAX_THREADS}, so that loops on a master that answers are not held back by those
 * on one that does not; it is back to {@link #THREADS} 2 s after no step ran that long. A
 * step that waits {@link SupervisedLoop#FAILING_TOO_LONG} for a thread all the same makes
 * its loop not serve.
 */
public final class LoopRunner implements AutoCloseable {

	/** How many threads run the steps while none waits for one. */
	public static final int THREADS = 4;

	/** The most threads that run steps, while steps wait for one. */
	public static final int MAX_THREADS = 64;

	/** How long a step waits for a thread before the runner adds one. */
	static final long STARVED_MILLIS = 50;

	/** How long the added threads stay after no step ran that long. */
	private static final long SHRINK_AFTER_NANOS = TimeUnit.SECONDS.toNanos(2);

	private final ScheduledThreadPoolExecutor timer;

	private final ThreadPoolExecutor workers;

	/** Whether a look at the steps waiting is scheduled (guarded by this). */
	private boolean looking;

	/** When a step last ran {@link #STARVED_MILLIS} or longer (guarded by this). */
	private long lastStuck;

	/** The threads in a step, and since when. */
	private final Map<Thread, Long> running = new ConcurrentHashMap<>();

	public LoopRunner() {
		this.timer = new ScheduledThreadPoolExecutor(1, DaemonThreads.factory("delayqueue-loop-timer-"));
		this.timer.setRemoveOnCancelPolicy(true);
		this.workers = new ThreadPoolExecutor(THREADS, THREADS, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
				DaemonThreads.factory("delayqueue-loop-")) {

			@Override
			protected void beforeExecute(Thread thread, Runnable step) {
				LoopRunner.this.running.put(thread, System.nanoTime());
			}

			@Override
			protected void afterExecute(Runnable step, Throwable failure) {
				LoopRunner.this.running.remove(Thread.currentThread());
			}

		};
	}

	/**
	 * Runs a step after a delay.
	 * @param step the step
	 * @param delayNanos the delay, 0 for now
	 * @return its future, to cancel it; {@code null} for a step run now
	 * @throws RejectedExecutionException once the runner is closed
	 */
	ScheduledFuture<?> schedule(Runnable step, long delayNanos) {
		if (delayNanos > 0) {
			return this.timer.schedule(() -> handOver(step), delayNanos, TimeUnit.NANOSECONDS);
		}
		if (this.timer.isShutdown()) {
			throw new RejectedExecutionException("The loop runner is closed");
		}
		// refused once closed, as the timer refuses
		this.workers.execute(new Waiting(step, System.nanoTime()));
		lookIfWaiting();
		return null;
	}

	/** On the timer's thread, when a step is due. */
	private void handOver(Runnable step) {
		try {
			this.workers.execute(new Waiting(step, System.nanoTime()));
		}
		catch (RejectedExecutionException ex) {
			// closed: the step runs here, and the next one its loop asks for is refused,
			// so that the loop says its engine is closed
			step.run();
			return;
		}
		lookIfWaiting();
	}

	private void lookIfWaiting() {
		if (!this.workers.getQueue().isEmpty()) {
			lookSoon();
		}
	}

	private synchronized void lookSoon() {
		if (this.looking || this.timer.isShutdown()) {
			return;
		}
		this.looking = true;
		try {
			this.timer.schedule(this::look, STARVED_MILLIS, TimeUnit.MILLISECONDS);
		}
		catch (RejectedExecutionException ex) {
			this.looking = false;
		}
	}

	/**
	 * Adds threads while the oldest step waiting has waited {@link #STARVED_MILLIS} and
	 * steps have run that long (blocked on Redis, most likely): one for each such step,
	 * or as many as wait if more (doubling at most). Steps that wait behind short ones (a
	 * busy machine, a start-up) add none. Back to {@link #THREADS} once no step has run
	 * that long for a while.
	 */
	private void look() {
		boolean again;
		synchronized (this) {
			this.looking = false;
			long now = System.nanoTime();
			long starved = TimeUnit.MILLISECONDS.toNanos(STARVED_MILLIS);
			long stuck = this.running.values().stream().filter((since) -> now - since >= starved).count();
			if (stuck > 0) {
				this.lastStuck = now;
			}
			Runnable oldest = this.workers.getQueue().peek();
			int threads = this.workers.getCorePoolSize();
			if (oldest instanceof Waiting waiting && now - waiting.since >= starved && stuck > 0) {
				if (threads < MAX_THREADS) {
					// a thread for each step that blocks, and as many as wait (doubling
					// at
					// most): the steps blocked on a hung master come and go
					int more = (int) Math.min(MAX_THREADS,
							threads + Math.max(stuck, Math.min(threads, this.workers.getQueue().size())));
					this.workers.setMaximumPoolSize(Math.max(this.workers.getMaximumPoolSize(), more));
					this.workers.setCorePoolSize(more);
				}
			}
			else if (threads > THREADS && now - this.lastStuck >= SHRINK_AFTER_NANOS) {
				// the threads added end once idle (more than the maximum)
				this.workers.setCorePoolSize(THREADS);
				this.workers.setMaximumPoolSize(THREADS);
			}
			again = !this.workers.getQueue().isEmpty() || this.workers.getCorePoolSize() > THREADS;
		}
		if (again) {
			lookSoon();
		}
	}

	/**
	 * @return how many threads run steps now
	 */
	int threads() {
		return this.workers.getPoolSize();
	}

	/**
	 * @return whether it was closed
	 */
	public boolean isClosed() {
		return this.timer.isShutdown();
	}

	/** Runs no step after the running ones. */
	@Override
	public void close() {
		this.timer.shutdown();
		this.workers.shutdown();
	}

	/** A step handed over, and since when it waits for a thread. */
	private record Waiting(Runnable step, long since) implements Runnable {

		@Override
		public void run() {
			this.step.run();
		}

	}

}
