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

import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;

/**
 * A {@link SupervisedLoop} whose steps run on the engine's {@link LoopRunner}: one step
 * at a time, when the sleep the last one asked for has passed or when woken, and none
 * while it sleeps until woken ({@link SupervisedLoop#UNTIL_WOKEN}). Failures back off and
 * are logged as on a thread of its own ({@link LoopFailures}); anything a step throws,
 * {@code Error}s included, is a failure, so the loop cannot end but by a stop.
 */
final class OnRunner {

	private final Log logger;

	private final String name;

	private final SupervisedLoop.Job job;

	private final LoopRunner runner;

	private final LoopFailures failures;

	private boolean running;

	/** A step is submitted to the runner and has not begun, since {@link #dueSince}. */
	private boolean queued;

	private long dueSince;

	/** A step runs now. */
	private boolean stepping;

	/** Woken while a step ran: the next runs at once. */
	private boolean woken;

	/** The next step, submitted to run after a sleep. */
	private ScheduledFuture<?> timer;

	private int restarts;

	/** The runner refused a step: the engine was closed under the running loop. */
	private boolean closedRunner;

	OnRunner(Log logger, String name, SupervisedLoop.Job job, LoopRunner runner, LoopFailures failures) {
		this.logger = logger;
		this.name = name;
		this.job = job;
		this.runner = runner;
		this.failures = failures;
	}

	synchronized void start() {
		if (this.running) {
			return;
		}
		this.running = true;
		this.failures.reset();
		// a step left over from a stop that timed out ends first, then runs the next
		this.woken = true;
		if (!this.stepping) {
			submit(0);
		}
	}

	/**
	 * @return whether no step runs any more within the timeout
	 */
	boolean stop(Duration timeout) {
		boolean idle;
		synchronized (this) {
			if (!this.running) {
				return !this.stepping;
			}
			this.running = false;
			cancelTimer();
			idle = !this.stepping;
		}
		try {
			this.job.interrupt();
		}
		catch (RuntimeException ex) {
			this.logger.debug("Interrupting the " + this.name + " failed", ex);
		}
		if (idle) {
			stopped();
			return true;
		}
		synchronized (this) {
			long deadline = System.nanoTime() + Math.max(1, timeout.toNanos());
			try {
				while (this.stepping && deadline - System.nanoTime() > 0) {
					TimeUnit.NANOSECONDS.timedWait(this, deadline - System.nanoTime());
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			return !this.stepping;
		}
	}

	synchronized void wake() {
		if (!this.running) {
			return;
		}
		if (this.stepping) {
			this.woken = true;
		}
		else if (!this.queued || this.timer != null) {
			submit(0);
		}
	}

	synchronized boolean isRunning() {
		return this.running;
	}

	synchronized int restarts() {
		return this.restarts;
	}

	/**
	 * @return why the loop does not serve; {@code null} while it does
	 */
	String problem() {
		synchronized (this) {
			if (!this.running) {
				return "the " + this.name + " is not running";
			}
			if (this.closedRunner) {
				return "the " + this.name + " does not run: its engine is closed";
			}
			long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - this.dueSince);
			if (this.queued && waitedMillis >= SupervisedLoop.FAILING_TOO_LONG.toMillis()) {
				return "the " + this.name + " has waited " + LoopFailures.seconds(waitedMillis)
						+ " for a thread of the engine's loop runner";
			}
		}
		return this.failures.problem();
	}

	/** Submits the next step; called under the lock. */
	private void submit(long delayNanos) {
		cancelTimer();
		this.queued = true;
		this.dueSince = System.nanoTime() + delayNanos;
		try {
			ScheduledFuture<?> next = this.runner.schedule(this::step, delayNanos);
			this.timer = (delayNanos > 0) ? next : null;
		}
		catch (RejectedExecutionException ex) {
			// the engine is closed: no step runs any more, and the loop says so
			this.queued = false;
			if (!this.closedRunner) {
				this.closedRunner = true;
				this.logger.warn("The " + this.name + " stopped running: its engine is closed");
			}
		}
	}

	private void cancelTimer() {
		if (this.timer != null) {
			this.timer.cancel(false);
			this.timer = null;
		}
	}

	private void step() {
		synchronized (this) {
			this.queued = false;
			this.timer = null;
			if (!this.running || this.stepping) {
				return;
			}
			this.stepping = true;
			this.woken = false;
		}
		long sleepNanos = 0;
		try {
			sleepNanos = this.job.runOnce();
			this.failures.succeeded();
		}
		catch (Throwable ex) {
			sleepNanos = backOff(ex);
		}
		finally {
			// a step may have left the interrupt flag set on the runner's thread
			Thread.interrupted();
			next(sleepNanos);
		}
	}

	private long backOff(Throwable ex) {
		try {
			return TimeUnit.MILLISECONDS.toNanos(this.failures.failed(ex));
		}
		catch (Throwable unexpected) {
			synchronized (this) {
				this.restarts++;
			}
			Failures.logError(this.logger, "The " + this.name + " failed unexpectedly; going on", unexpected);
			return TimeUnit.MILLISECONDS.toNanos(LoopFailures.MAX_BACKOFF_MILLIS);
		}
	}

	private void next(long sleepNanos) {
		boolean stopped;
		synchronized (this) {
			this.stepping = false;
			notifyAll();
			stopped = !this.running;
			if (!stopped) {
				if (this.woken || sleepNanos <= 0) {
					submit(0);
				}
				else if (sleepNanos < SupervisedLoop.UNTIL_WOKEN) {
					submit(sleepNanos);
				}
			}
		}
		if (stopped) {
			stopped();
		}
	}

	private void stopped() {
		try {
			this.job.stopped();
		}
		catch (RuntimeException ex) {
			this.logger.debug("Cleaning up the " + this.name + " failed", ex);
		}
	}

}
