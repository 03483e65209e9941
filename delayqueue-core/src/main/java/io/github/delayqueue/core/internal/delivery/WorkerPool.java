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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;

/**
 * The workers of one container: at most {@code concurrency} of them take waiting
 * deliveries and run the handler. A worker is a task handed to an executor when a
 * delivery waits and no worker is parked to take it: the engine's elastic pool of worker
 * threads, shared by all its listeners, or the executor the listener was given (virtual
 * threads under Spring Boot when enabled). It takes deliveries while there are some,
 * parks for {@link #LINGER_MILLIS} when there are none, and then ends, giving its thread
 * back: an idle container holds no thread, and {@code concurrency} bounds the handlers
 * that run at once, not the threads a container keeps.
 * <p>
 * The pool outlives a stop: after a stop that timed out, a worker whose handler still
 * runs stays counted, so never more than {@code concurrency} handlers run at once. A
 * worker that ends unexpectedly is logged at ERROR and replaced when work waits; a worker
 * whose handler hangs past the lease renewal limit is {@link #abandon abandoned}
 * (interrupted, no longer counted) and its place given to another. An executor that
 * refuses a worker, or leaves one waiting {@link SupervisedLoop#FAILING_TOO_LONG}, makes
 * the pool {@link #problem() not serve}.
 */
final class WorkerPool {

	private static final Log logger = LogFactory.getLog(WorkerPool.class);

	/** How long a worker with nothing to do stays parked before it ends. */
	static final long LINGER_MILLIS = 1000;

	private final ListenerContext context;

	private final Holdings holdings;

	private final Processor processor;

	/** Runs a batch listener's handler; {@code null} for one message at a time. */
	private final BatchProcessor batches;

	private final WorkerHandoffs handoffs;

	/** Whether the executor is the listener's own: checked at start. */
	private final boolean ownExecutor;

	private final AtomicLong abandoned = new AtomicLong();

	private volatile boolean running;

	/**
	 * Workers counted against the concurrency: handed over and not ended or abandoned.
	 */
	private volatile int live;

	/**
	 * @param shared the engine's pool of worker threads, used unless the listener has an
	 * executor of its own
	 */
	WorkerPool(ListenerContext context, Holdings holdings, Processor processor, BatchProcessor batches,
			Executor shared) {
		this.context = context;
		this.holdings = holdings;
		this.processor = processor;
		this.batches = batches;
		this.ownExecutor = context.settings().executor() != null;
		this.handoffs = new WorkerHandoffs(context.label(), this.ownExecutor ? context.settings().executor() : shared,
				context.settings().concurrency());
		holdings.whenUnserved(this::unserved);
	}

	/**
	 * Starts handing workers over as deliveries wait. A listener's own executor is tried
	 * at once with one worker.
	 * @throws IllegalStateException when that executor refuses the worker, or has not run
	 * it within {@link SupervisedLoop#FAILING_TOO_LONG}
	 */
	void start() {
		Worker probe;
		synchronized (this) {
			this.running = true;
			probe = this.ownExecutor ? reserve() : null;
		}
		if (probe == null) {
			unserved();
			return;
		}
		String refused = execute(probe);
		if (refused != null) {
			throw new IllegalStateException("Cannot start the workers of " + this.context.label() + ": " + refused);
		}
		if (!this.handoffs.awaitBegun(probe)) {
			// not counted: should the executor run it later, it ends at once
			synchronized (this) {
				detach(probe);
			}
			throw new IllegalStateException("The executor of " + this.context.label() + " (" + this.handoffs.executor()
					+ ") did not run a worker within " + SupervisedLoop.FAILING_TOO_LONG.toSeconds()
					+ " s: give it free threads, or no executor (the engine's own pool of worker threads)");
		}
	}

	/** Lets the workers end once their handler returned; {@link #awaitIdle} waits. */
	void stop() {
		synchronized (this) {
			this.running = false;
			notifyAll();
		}
		this.holdings.wakeAll();
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
	int live() {
		return this.live;
	}

	/**
	 * @return how many deliveries held now would go to a worker at once: the parked
	 * workers and the places free under the concurrency
	 */
	int available() {
		return this.holdings.idleWorkers() + Math.max(0, this.context.settings().concurrency() - this.live);
	}

	/**
	 * @return why the pool does not serve, {@code null} while it does
	 */
	synchronized String problem() {
		return this.running ? this.handoffs.problem() : "its workers are stopped";
	}

	long abandonedCount() {
		return this.abandoned.get();
	}

	/**
	 * A delivery waits and no worker is parked to take it: hands one more worker over,
	 * while the pool runs, the gate is open, the concurrency allows, and no worker handed
	 * over is still to begin (that one takes it, and asks for the next while more wait).
	 * After a refusal only the watchdog's {@link #replenish} tries again.
	 */
	void unserved() {
		Worker worker;
		synchronized (this) {
			if (this.handoffs.refused() || !this.handoffs.noneWaiting()) {
				return;
			}
			worker = wanted() ? reserve() : null;
		}
		if (worker != null) {
			execute(worker);
		}
	}

	/** Hands a worker over after the executor refused one; called by the watchdog. */
	void replenish() {
		Worker worker;
		synchronized (this) {
			if (!this.handoffs.refused() || !this.handoffs.noneWaiting()) {
				return;
			}
			worker = wanted() ? reserve() : null;
		}
		if (worker != null) {
			execute(worker);
		}
	}

	/** Whether one more worker is to be handed over; called under the lock. */
	private boolean wanted() {
		return this.running && this.live < this.context.settings().concurrency() && this.context.gate().isOpen()
				&& this.holdings.hasWaiting();
	}

	/** Counts a worker to hand over; called under the lock. */
	private Worker reserve() {
		Worker worker = new Worker();
		this.live++;
		this.handoffs.handing(worker);
		return worker;
	}

	/**
	 * Hands a reserved worker to the executor, outside the lock.
	 * @return why the executor refused it (then it no longer counts), or {@code null}
	 */
	private String execute(Worker worker) {
		String refused;
		try {
			refused = this.handoffs.execute(worker, this.live);
		}
		catch (Error ex) {
			synchronized (this) {
				detach(worker);
			}
			throw ex;
		}
		if (refused != null) {
			synchronized (this) {
				detach(worker);
			}
		}
		return refused;
	}

	private boolean goOn(Worker worker) {
		// the common case without the lock: a worker that goes on stays counted, as
		// abandon() expects
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

	/**
	 * A worker found nothing to take: it ends, unless a delivery it may take waits now
	 * (one added as it gave up waiting, which no one else was asked for).
	 * @return whether it ends
	 */
	private synchronized boolean retire(Worker worker) {
		if (worker.detached) {
			return true;
		}
		if (this.running && this.context.gate().isOpen() && this.holdings.hasWaiting()) {
			return false;
		}
		detach(worker);
		return true;
	}

	private void detach(Worker worker) {
		if (!worker.detached) {
			worker.detached = true;
			this.live--;
			notifyAll();
		}
	}

	private void ended(Worker worker, Throwable death) {
		synchronized (this) {
			if (worker.detached) {
				return;
			}
			detach(worker);
			if (!this.running) {
				return;
			}
			logger.error("A worker of " + this.context.label() + " ended unexpectedly ("
					+ ((death != null) ? Failures.summary(death) : "no exception") + "); another takes its place",
					death);
		}
		unserved();
	}

	/**
	 * Gives up the worker running a hung handler: it no longer counts, another takes its
	 * place, and its thread is interrupted. What the handler does when it returns is
	 * ignored: its delivery was settled by the caller.
	 */
	void abandon(Worker worker) {
		synchronized (this) {
			if (worker.detached) {
				return;
			}
			detach(worker);
			this.abandoned.incrementAndGet();
		}
		Thread thread = worker.thread;
		if (thread != null) {
			thread.interrupt();
		}
		unserved();
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
			WorkerPool.this.handoffs.begun(this);
			Throwable death = null;
			boolean normal = false;
			try {
				while (goOn(this)) {
					// a slot freed here goes to Redis with the acknowledgements (the
					// acker's); paused, a worker takes nothing and ends, and the gate's
					// opening hands workers over again
					Delivery delivery = WorkerPool.this.context.gate().isOpen()
							? WorkerPool.this.holdings.next(LINGER_MILLIS) : null;
					if (delivery == null) {
						if (retire(this)) {
							break;
						}
						continue;
					}
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
