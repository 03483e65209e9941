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

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.runtime.DaemonThreads;
import io.github.delayqueue.core.internal.runtime.Failures;

/**
 * The workers of one container: {@code concurrency} of them take waiting deliveries and
 * run the handler. The pool outlives a stop: after a stop that timed out, a worker whose
 * handler still runs stays counted, and a start adds only the workers missing, so never
 * more than {@code concurrency} handlers run at once. A worker that ends while the pool
 * runs is logged at ERROR and replaced; a worker whose handler hangs past the lease
 * renewal limit is {@link #abandon abandoned} (interrupted, no longer counted) and
 * replaced.
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

	synchronized void start() {
		this.running = true;
		fill();
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
	 * @return whether the pool runs with all its workers
	 */
	synchronized boolean isServing() {
		return this.running && this.live == this.context.settings().concurrency();
	}

	long abandonedCount() {
		return this.abandoned.get();
	}

	private void fill() {
		while (this.running && this.live < this.context.settings().concurrency()) {
			Worker worker = new Worker();
			this.live++;
			try {
				this.executor.execute(worker);
			}
			catch (RuntimeException ex) {
				this.live--;
				logger.error("Cannot start a worker of " + this.context.label() + " (" + this.live + " of "
						+ this.context.settings().concurrency() + " run); trying again at the next check", ex);
				return;
			}
			catch (Error ex) {
				// no thread for it (the JVM can make no more): not counted, and the start
				// fails
				this.live--;
				throw ex;
			}
		}
	}

	/** Starts workers missing after an executor refused one; called by the watchdog. */
	synchronized void replenish() {
		fill();
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
			fill();
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
			fill();
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
