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
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;

/**
 * Hands one container's workers to their executor, and knows which wait for a thread and
 * why the executor refused the last one. Its lock is taken inside the pool's, never the
 * other way round.
 */
final class WorkerHandoffs {

	private static final Log logger = LogFactory.getLog(WorkerHandoffs.class);

	private final String label;

	private final Executor executor;

	private final int concurrency;

	/** Workers handed to the executor that have not begun to run, and since when. */
	private final Map<Runnable, Long> handed = new LinkedHashMap<>();

	/** Why the executor refused the last worker, until one is handed over again. */
	private String refusal;

	WorkerHandoffs(String label, Executor executor, int concurrency) {
		this.label = label;
		this.executor = executor;
		this.concurrency = concurrency;
	}

	Executor executor() {
		return this.executor;
	}

	/**
	 * @return whether no worker handed over waits to begin
	 */
	synchronized boolean noneWaiting() {
		return this.handed.isEmpty();
	}

	/**
	 * @return whether the executor refused the last worker
	 */
	synchronized boolean refused() {
		return this.refusal != null;
	}

	/** A worker is about to be handed over: it waits to begin from now. */
	synchronized void handing(Runnable worker) {
		this.handed.put(worker, System.nanoTime());
	}

	/**
	 * Hands a worker to the executor, outside every lock (an executor may run it in the
	 * caller's thread).
	 * @param live the workers counted now, for the message
	 * @return why the executor refused it, or {@code null}
	 */
	String execute(Runnable worker, int live) {
		try {
			this.executor.execute(worker);
		}
		catch (RuntimeException ex) {
			synchronized (this) {
				this.handed.remove(worker);
				String reason = "the executor " + this.executor + " refused a worker (" + (live - 1) + " of "
						+ this.concurrency + " run): " + Failures.describe(ex);
				if (this.refusal == null) {
					logger.warn("Cannot start a worker of " + this.label + "; trying again at each lease renewal, "
							+ "not healthy until one starts: " + reason);
				}
				this.refusal = reason;
				return reason;
			}
		}
		catch (Error ex) {
			// no thread for it (the JVM can make no more)
			synchronized (this) {
				this.handed.remove(worker);
			}
			throw ex;
		}
		synchronized (this) {
			if (this.refusal != null) {
				this.refusal = null;
				logger.info("The executor of " + this.label + " runs its workers again");
			}
		}
		return null;
	}

	/**
	 * A worker runs: no longer waiting for a thread.
	 */
	synchronized void begun(Runnable worker) {
		if (this.handed.remove(worker) != null) {
			notifyAll();
		}
	}

	/**
	 * Waits until a worker handed over began, at most
	 * {@link SupervisedLoop#FAILING_TOO_LONG}.
	 * @return whether it began; if not, it no longer counts as waiting
	 */
	synchronized boolean awaitBegun(Runnable worker) {
		long deadline = System.nanoTime() + SupervisedLoop.FAILING_TOO_LONG.toNanos();
		try {
			while (this.handed.containsKey(worker) && deadline - System.nanoTime() > 0) {
				TimeUnit.NANOSECONDS.timedWait(this, deadline - System.nanoTime());
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return this.handed.remove(worker) == null;
	}

	/**
	 * @return why the executor does not serve: it refused the last worker, or left one
	 * waiting {@link SupervisedLoop#FAILING_TOO_LONG}; {@code null} while it serves
	 */
	synchronized String problem() {
		if (this.refusal != null) {
			return this.refusal;
		}
		Long oldest = this.handed.isEmpty() ? null : this.handed.values().iterator().next();
		long waitingMillis = (oldest != null) ? TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - oldest) : 0;
		if (waitingMillis >= SupervisedLoop.FAILING_TOO_LONG.toMillis()) {
			return this.handed.size() + " of its " + this.concurrency + " workers have waited " + (waitingMillis / 1000)
					+ " s for a thread of the executor " + this.executor;
		}
		return null;
	}

}
