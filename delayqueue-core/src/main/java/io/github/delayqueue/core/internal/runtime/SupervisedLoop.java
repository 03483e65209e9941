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
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Runs one background job of the engine until it is stopped: it calls
 * {@link Job#runOnce()} again and again, sleeping as long as the job asks or until
 * {@link #wake() woken}, on a thread of its own (a job whose steps block, such as a
 * blocking read) or on the engine's {@link LoopRunner} (a job whose steps do not: it
 * holds no thread while it sleeps).
 * <p>
 * Every loop of the engine (readers, schedulers, lease keepers, ackers) runs on this
 * class, so they all behave alike:
 * <ul>
 * <li>a failing step is retried with the same backoff (100 ms doubling to 500 ms);</li>
 * <li>the first failure of an outage is logged at WARN with its reason, the recovery at
 * INFO; the failures in between at DEBUG, but for one more line at WARN once the steps
 * have failed for {@link #FAILING_TOO_LONG} (the loop is not {@link #problem() serving}
 * then);</li>
 * <li>a thread that ends while the loop should run (an {@link Error} escaping the failure
 * handling, say) is logged at ERROR and replaced at once; on a runner, whatever a step
 * throws is a failure, and a step that waits {@link #FAILING_TOO_LONG} for a thread of
 * the runner makes the loop not serve;</li>
 * <li>an interrupt does not end the loop: only {@link #stop(Duration)} does.</li>
 * </ul>
 */
public final class SupervisedLoop {

	private static final Log logger = LogFactory.getLog(SupervisedLoop.class);

	/** A sleep this long or longer lasts until the loop is woken. */
	public static final long UNTIL_WOKEN = TimeUnit.DAYS.toNanos(1);

	private final String name;

	private final Job job;

	private final ThreadFactory threads;

	private final ReentrantLock lock = new ReentrantLock();

	private final Condition wakeUp = this.lock.newCondition();

	private boolean woken;

	private volatile boolean running;

	private volatile Thread thread;

	private volatile int restarts;

	private final LoopFailures failures;

	/** The loop's steps on the engine's runner; {@code null} on a thread of its own. */
	private final OnRunner onRunner;

	/**
	 * How long a loop's steps may fail, one after the other, before the loop no longer
	 * counts as serving its job: a failover or a short outage is ridden out, a key of the
	 * wrong type, a refused command, a Redis out of memory are not.
	 */
	public static final Duration FAILING_TOO_LONG = Duration.ofSeconds(3);

	/**
	 * Creates a loop; it runs once {@link #start() started}.
	 * @param name what the loop does, for thread names and log lines, e.g.
	 * {@code "reader of queue 'orders', group 'billing'"}
	 * @param threadName the name of its thread
	 * @param job the job
	 */
	public SupervisedLoop(String name, String threadName, Job job) {
		this.name = name;
		this.job = job;
		this.threads = DaemonThreads.factory(threadName + "-");
		this.failures = new LoopFailures(logger, name, job);
		this.onRunner = null;
	}

	/**
	 * Creates a loop whose steps run on the engine's runner; it runs once {@link #start()
	 * started}. Its steps must not block for long.
	 * @param name what the loop does, for log lines, e.g.
	 * {@code "acker of queue 'orders', group 'billing'"}
	 * @param runner the engine's loop runner
	 * @param job the job
	 */
	public SupervisedLoop(String name, LoopRunner runner, Job job) {
		this.name = name;
		this.job = job;
		this.threads = null;
		this.failures = new LoopFailures(logger, name, job);
		this.onRunner = new OnRunner(logger, name, job, runner, this.failures);
	}

	/**
	 * Starts the loop; does nothing when it runs.
	 */
	public synchronized void start() {
		if (this.onRunner != null) {
			this.onRunner.start();
			return;
		}
		if (this.running) {
			return;
		}
		this.running = true;
		this.failures.reset();
		spawn();
	}

	private void spawn() {
		Thread started = this.threads.newThread(this::runThread);
		this.thread = started;
		started.start();
	}

	/**
	 * Stops the loop: no further step starts; the job's {@link Job#interrupt()} ends a
	 * step that blocks; waits for the running step to end.
	 * @param timeout how long to wait
	 * @return whether the loop's thread ended within the timeout
	 */
	public boolean stop(Duration timeout) {
		if (this.onRunner != null) {
			return this.onRunner.stop(timeout);
		}
		Thread stopping;
		synchronized (this) {
			if (!this.running) {
				return this.thread == null || !this.thread.isAlive();
			}
			this.running = false;
			stopping = this.thread;
		}
		wake();
		try {
			this.job.interrupt();
		}
		catch (RuntimeException ex) {
			logger.debug("Interrupting the " + this.name + " failed", ex);
		}
		if (stopping == null || stopping == Thread.currentThread()) {
			return true;
		}
		try {
			stopping.join(Math.max(1, timeout.toMillis()));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return !stopping.isAlive();
	}

	/**
	 * Ends the current sleep: the next step runs now.
	 */
	public void wake() {
		if (this.onRunner != null) {
			this.onRunner.wake();
			return;
		}
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
	 * @return whether the loop should run (started and not stopped)
	 */
	public boolean isRunning() {
		return (this.onRunner != null) ? this.onRunner.isRunning() : this.running;
	}

	/**
	 * @return whether the loop runs, its thread is alive, and its steps have not failed
	 * for {@link #FAILING_TOO_LONG}: the job is served
	 */
	public boolean isServing() {
		return problem() == null;
	}

	/**
	 * Tells why the job is not served now: the loop is not running, its thread ended (it
	 * is being replaced), or its steps have failed for {@link #FAILING_TOO_LONG} or
	 * longer.
	 * @return the reason, e.g. {@code "the reader of queue 'orders', group 'billing' has
	 * failed for 4 s: WRONGTYPE …"}; {@code null} while it is served
	 */
	public String problem() {
		if (this.onRunner != null) {
			return this.onRunner.problem();
		}
		Thread current = this.thread;
		if (!this.running) {
			return "the " + this.name + " is not running";
		}
		if (current == null || !current.isAlive()) {
			return "the " + this.name + " ended and is being replaced";
		}
		return this.failures.problem();
	}

	/**
	 * @return how many times a thread that ended unexpectedly was replaced
	 */
	public int restarts() {
		return (this.onRunner != null) ? this.onRunner.restarts() : this.restarts;
	}

	@Override
	public String toString() {
		return this.name;
	}

	private void runThread() {
		Throwable death = null;
		try {
			loop();
		}
		catch (Throwable ex) {
			death = ex;
		}
		finally {
			ended(death);
		}
	}

	private void loop() {
		// a thread left over from a stop that timed out ends once a start has replaced it
		while (this.running && this.thread == Thread.currentThread()) {
			long sleepNanos;
			try {
				sleepNanos = this.job.runOnce();
				this.failures.succeeded();
			}
			catch (Throwable ex) {
				if (!this.running) {
					break;
				}
				sleepNanos = TimeUnit.MILLISECONDS.toNanos(this.failures.failed(ex));
			}
			// a handler or a step may have left the interrupt flag set: only stop() ends
			// the loop
			Thread.interrupted();
			sleep(sleepNanos);
		}
		if (this.thread != Thread.currentThread()) {
			return;
		}
		try {
			this.job.stopped();
		}
		catch (RuntimeException ex) {
			logger.debug("Cleaning up the " + this.name + " failed", ex);
		}
	}

	private void ended(Throwable death) {
		synchronized (this) {
			if (!this.running || this.thread != Thread.currentThread()) {
				return;
			}
			this.restarts++;
			spawn();
		}
		Failures.logError(logger, "The " + this.name + " ended unexpectedly; started it again", death);
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
			// not a stop: stop() sets running
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * One background job.
	 */
	public interface Job {

		/**
		 * Runs one step.
		 * @return how long to sleep before the next step, in nanoseconds (0 or less: run
		 * the next one at once)
		 * @throws Exception when the step failed: the loop backs off and runs it again
		 */
		long runOnce() throws Exception;

		/**
		 * Called on the loop's thread after a step failed, before the backoff: e.g. to
		 * drop a broken connection.
		 * @param failure the failure
		 */
		default void failed(Throwable failure) {
		}

		/**
		 * Called by {@link SupervisedLoop#stop(Duration)} on the stopping thread: ends a
		 * step that blocks (e.g. by closing its connection).
		 */
		default void interrupt() {
		}

		/**
		 * Called on the loop's thread once the loop has stopped.
		 */
		default void stopped() {
		}

	}

}
