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
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Bounds how long a blocking Redis call may take on the caller's thread, whatever the
 * client's command timeout (60 s by default in Spring Boot): past the bound the calling
 * thread is interrupted, which ends a Lettuce command wait at once, and the call fails
 * with {@link TimeoutException}. The caller's interrupt flag is cleared again, so no
 * interrupt leaks out of the call.
 * <p>
 * A call that timed out may still have been applied by Redis: the caller must treat it as
 * of unknown outcome.
 */
public final class BoundedCalls {

	private static final ScheduledExecutorService timer = timer();

	/** The deadline ({@code System.nanoTime()}) of the bounded call this thread is in. */
	private static final ThreadLocal<Long> deadline = new ThreadLocal<>();

	private BoundedCalls() {
	}

	private static ScheduledExecutorService timer() {
		ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1,
				DaemonThreads.factory("delayqueue-deadlines-"));
		// almost every call ends in time: its alarm leaves the queue at once
		timer.setRemoveOnCancelPolicy(true);
		return timer;
	}

	/**
	 * Runs a call on this thread, bounded in time.
	 * @param bound the longest the call may take; {@code null} for no bound
	 * @param call the call
	 * @param <T> its result
	 * @return its result
	 * @throws TimeoutException when the bound passed first
	 */
	public static <T> T call(Duration bound, Supplier<T> call) {
		return call(bound, "Redis", call);
	}

	/**
	 * Runs a call on this thread, bounded in time, to a server other than Redis.
	 * @param bound the longest the call may take; {@code null} for no bound
	 * @param server what the call waits for, as the timeout names it (e.g. "the
	 * database")
	 * @param call the call
	 * @param <T> its result
	 * @return its result
	 * @throws TimeoutException when the bound passed first
	 */
	public static <T> T call(Duration bound, String server, Supplier<T> call) {
		if (bound == null) {
			return call.get();
		}
		Watch watch = new Watch(Thread.currentThread());
		Long outer = deadline.get();
		long own = System.nanoTime() + bound.toNanos();
		deadline.set((outer != null && outer - own < 0) ? outer : own);
		ScheduledFuture<?> alarm = timer.schedule(watch::expire, bound.toNanos(), TimeUnit.NANOSECONDS);
		try {
			T result = call.get();
			// answered in time, or just after the alarm: the result stands either way
			watch.finish();
			return result;
		}
		catch (RuntimeException | Error ex) {
			if (watch.finish()) {
				TimeoutException timeout = new TimeoutException(server, bound);
				timeout.addSuppressed(ex);
				throw timeout;
			}
			throw ex;
		}
		finally {
			alarm.cancel(false);
			if (outer != null) {
				deadline.set(outer);
			}
			else {
				deadline.remove();
			}
		}
	}

	/**
	 * Returns how long the bounded call this thread is in has left, so that a call
	 * retrying inside it (e.g. {@code SlotRetries}) can give up with its own reason
	 * before the bound interrupts it.
	 * @return the nanoseconds left; {@link Long#MAX_VALUE} outside a bounded call
	 */
	public static long nanosLeft() {
		Long end = deadline.get();
		return (end != null) ? end - System.nanoTime() : Long.MAX_VALUE;
	}

	private static final class Watch {

		private final Thread thread;

		private boolean done;

		private boolean expired;

		Watch(Thread thread) {
			this.thread = thread;
		}

		synchronized void expire() {
			if (!this.done) {
				this.expired = true;
				this.thread.interrupt();
			}
		}

		/** Ends the watch; returns whether it expired (the interrupt is then cleared). */
		synchronized boolean finish() {
			this.done = true;
			if (this.expired) {
				Thread.interrupted();
			}
			return this.expired;
		}

	}

	/**
	 * A call that did not end within its bound; it may or may not have been applied. Its
	 * message names the server that did not answer.
	 */
	public static final class TimeoutException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		TimeoutException(String server, Duration bound) {
			super(server + " did not answer within " + bound.toMillis() + " ms");
		}

	}

}
