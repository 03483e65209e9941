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

package io.github.delayqueue.core.internal.delivery;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.runtime.DaemonThreads;
import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;

/**
 * The workers of one container: {@code concurrency} of them take waiting deliveries and
 * run the handler. The pool outlives a stop: after a stop that timed out, a worker whose
 * handler still runs stays counted, and a start adds only the workers missing, so never
 * more than {@code concurrency} handlers run at once. A worker that ends while the pool
 * runs is logged at ERROR and replaced; a worker whose handler hangs past the lease
 * renewal limit is {@link #abandon abandoned} (interrupted, no longer counted) and
 * replaced.
 * <p>
 * Each worker runs for as long as the pool does, so the executor must run each on a
 * thread of its own at once: a start fails when the executor refuses a worker or has not
 * run every worker within {@link SupervisedLoop#FAILING_TOO_LONG} (a pool of fewer
 * threads than the concurrency, a busy pool), and later a worker it refuses or leaves
 * waiting that long makes the pool {@link #problem() not serve}.
 */
final class WorkerPool {

	private static final Log logger = LogFactory.getLog(WorkerPool.class);

	private static final long POLL_MILLIS = 100;

	private final ListenerContext context;

	private final Holdings holdings;

	private final Processor processor;

	/** Runs a batch listener's handler; {@code null} for one message at a time. */
	private final BatchProcessor batches;

	private final Executor executor;

	private final AtomicLong abandoned = new AtomicLong();

	private volatile boolean running;

	/** Workers counted against the concurrency: started and not ended or abandoned. */
	private int live;

	/** Workers handed to the executor that have not begun to run, and since when. */
	private final Map<Worker, Long> handed = new LinkedHashMap<>();

	/** Why the executor refused the last worker, while one is missing for that. */
	private String refusal;

	WorkerPool(ListenerContext context, Holdings holdings, Processor processor, BatchProcessor batches) {
		this.context = context;
		this.holdings = holdings;
		this.processor = processor;
		this.batches = batches;
		if (context.settings().executor() != null) {
			this.executor = context.settings().executor();
		}
		else {
			ThreadFactory threads = DaemonThreads.factory(context.threadName("worker-"));
			this.executor = (task) -> threads.newThread(task).start();
		}
	}

	/**
	 * Starts the workers missing, and waits until each runs.
	 * @throws IllegalStateException when the executor refuses one, or has not run them
	 * all within {@link SupervisedLoop#FAILING_TOO_LONG}
	 */
	synchronized void start() {
		this.running = true;
		fill(true);
		long deadline = System.nanoTime() + SupervisedLoop.FAILING_TOO_LONG.toNanos();
		try {
			while (!this.handed.isEmpty() && deadline - System.nanoTime() > 0) {
				TimeUnit.NANOSECONDS.timedWait(this, deadline - System.nanoTime());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (!this.handed.isEmpty()) {
			int waiting = this.handed.size();
			// not counted: should the executor run one later, it ends at once
			this.handed.keySet().forEach(this::detach);
			this.handed.clear();
			throw new IllegalStateException("The executor of " + this.context.label() + " (" + this.executor
					+ ") did not run " + waiting + " of its " + this.context.settings().concurrency()
					+ " workers within " + SupervisedLoop.FAILING_TOO_LONG.toSeconds() + " s: each worker runs "
					+ "as long as the listener, so the executor must run each on a thread of its own at once (give "
					+ "it at least as many free threads as the concurrency, or no executor)");
		}
	}

	/** Lets the workers end once their handler returned; {@link #awaitIdle} waits. */
	synchronized void stop() {
		this.running = false;
		notifyAll();
	}

	/**
	 * Waits until no counted worker is left.
	 * @return whether that happened before the deadline
	 */
	synchronized boolean awaitIdle(long deadlineNanos) {
		try {
			while (this.live > 0 && !this.running) {
				long remaining = deadlineNanos - System.nanoTime();
				if (remaining <= 0) {
					return false;
				}
				TimeUnit.NANOSECONDS.timedWait(this, remaining);
			}
			return this.live == 0;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

	/**
	 * @return the workers counted against the concurrency
	 */
	synchronized int live() {
		return this.live;
	}

	/**
	 * @return why the pool does not run all its workers, {@code null} while it does
	 */
	synchronized String problem() {
		int concurrency = this.context.settings().concurrency();
		if (!this.running) {
			return "its workers are stopped";
		}
		if (this.refusal != null) {
			return this.refusal;
		}
		Long oldest = this.handed.isEmpty() ? null : this.handed.values().iterator().next();
		long waitingMillis = (oldest != null) ? TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - oldest) : 0;
		if (waitingMillis >= SupervisedLoop.FAILING_TOO_LONG.toMillis()) {
			return this.handed.size() + " of its " + concurrency + " workers have waited " + (waitingMillis / 1000)
					+ " s for a thread of the executor " + this.executor;
		}
		return (this.live < concurrency) ? "only " + this.live + " of its " + concurrency + " workers run" : null;
	}

	long abandonedCount() {
		return this.abandoned.get();
	}

	/**
	 * Hands the missing workers to the executor.
	 * @param starting whether the pool starts: then a refusal is thrown, else logged
	 * (once until all run again) and tried again at the next check
	 */
	private void fill(boolean starting) {
		int concurrency = this.context.settings().concurrency();
		while (this.running && this.live < concurrency) {
			Worker worker = new Worker();
			this.live++;
			this.handed.put(worker, System.nanoTime());
			try {
				this.executor.execute(worker);
			}
			catch (RuntimeException ex) {
				this.live--;
				this.handed.remove(worker);
				String reason = "the executor " + this.executor + " refused a worker (" + this.live + " of "
						+ concurrency + " run): " + Failures.describe(ex);
				if (starting) {
					throw new IllegalStateException(
							"Cannot start the workers of " + this.context.label() + ": " + reason, ex);
				}
				if (this.refusal == null) {
					logger.warn("Cannot start a worker of " + this.context.label() + "; trying again at each lease "
							+ "renewal, not healthy until all run: " + reason);
				}
				this.refusal = reason;
				return;
			}
			catch (Error ex) {
				// no thread for it (the JVM can make no more): not counted, and the start
				// fails
				this.live--;
				this.handed.remove(worker);
				throw ex;
			}
		}
		if (this.refusal != null && this.live == concurrency) {
			this.refusal = null;
			logger.info("All " + concurrency + " workers of " + this.context.label() + " run again");
		}
	}

	/** Starts workers missing after an executor refused one; called by the watchdog. */
	synchronized void replenish() {
		fill(false);
	}

	/** A worker runs: no longer waiting for a thread. */
	private synchronized void begun(Worker worker) {
		if (this.handed.remove(worker) != null) {
			notifyAll();
		}
	}

	private boolean goOn(Worker worker) {
		// the common case without the lock: a worker that goes on stays counted, as
		// start() and abandon() expect
		if (this.running && !worker.detached) {
			return true;
		}
		synchronized (this) {
			if (worker.detached) {
				return false;
			}
			if (!this.running) {
				detach(worker);
				return false;
			}
			return true;
		}
	}

	private void detach(Worker worker) {
		if (!worker.detached) {
			worker.detached = true;
			this.live--;
			notifyAll();
		}
	}

	private synchronized void ended(Worker worker, Throwable death) {
		if (worker.detached) {
			return;
		}
		detach(worker);
		if (this.running) {
			logger.error(
					"A worker of " + this.context.label() + " ended unexpectedly ("
							+ ((death != null) ? Failures.summary(death) : "no exception") + "); starting another",
					death);
			fill(false);
		}
	}

	/**
	 * Gives up the worker running a hung handler: it no longer counts, a replacement
	 * starts, and its thread is interrupted. What the handler does when it returns is
	 * ignored: its delivery was settled by the caller.
	 */
	void abandon(Worker worker) {
		synchronized (this) {
			if (worker.detached) {
				return;
			}
			detach(worker);
			this.abandoned.incrementAndGet();
			fill(false);
		}
		Thread thread = worker.thread;
		if (thread != null) {
			thread.interrupt();
		}
	}

	final class Worker implements Runnable {

		private volatile boolean detached;

		private volatile Thread thread;

		/**
		 * @return whether this worker is to go on: the pool runs and did not abandon it
		 */
		boolean active() {
			return WorkerPool.this.running && !this.detached;
		}

		@Override
		public void run() {
			this.thread = Thread.currentThread();
			begun(this);
			Throwable death = null;
			boolean normal = false;
			try {
				while (goOn(this)) {
					if (!WorkerPool.this.context.gate().awaitOpen(POLL_MILLIS)) {
						// paused: start nothing
						continue;
					}
					// a slot freed here goes to Redis with the acknowledgements (the
					// acker's)
					Delivery delivery = WorkerPool.this.holdings.next(POLL_MILLIS);
					if (delivery != null) {
						if (WorkerPool.this.batches != null) {
							runBatch(delivery);
						}
						else {
							try {
								WorkerPool.this.processor.process(delivery, this);
							}
							finally {
								WorkerPool.this.holdings.done(delivery);
							}
						}
					}
				}
				normal = true;
			}
			catch (Throwable ex) {
				death = ex;
			}
			finally {
				this.thread = null;
				if (!normal) {
					ended(this, death);
				}
			}
		}

		private void runBatch(Delivery first) {
			List<Delivery> batch = List.of(first);
			try {
				batch = WorkerPool.this.batches.gather(first, this);
				WorkerPool.this.batches.process(batch, this);
			}
			finally {
				batch.forEach(WorkerPool.this.holdings::done);
			}
		}

	}

}
