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
package io.github.delayqueue.core.internal.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.github.delayqueue.core.internal.runtime.BoundedCalls;
import io.github.delayqueue.core.internal.runtime.Failures;

/**
 * Retries a Redis call that Redis Cluster refused for a moment, with a bounded backoff:
 * {@code TRYAGAIN} (the call's keys are split between two masters while their slot
 * migrates) and {@code CLUSTERDOWN} (a slot not served for a moment, e.g. during a
 * failover). Redis refuses these before it runs anything, so a retry cannot apply a write
 * twice. Past {@link #BUDGET}, or shortly before the bounded call it runs in ends (the
 * engine's operation timeout, see {@link BoundedCalls#nanosLeft()}), the last refusal is
 * thrown: the caller then knows the call was refused every time, not cut off while it may
 * have run.
 */
public final class SlotRetries {

	/** How long a call keeps retrying before the refusal is thrown. */
	public static final Duration BUDGET = Duration.ofSeconds(3);

	/**
	 * The first pause after a momentary refusal; it doubles up to
	 * {@link #MAX_PAUSE_NANOS}.
	 */
	public static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

	/** The longest pause between tries. */
	public static final long MAX_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	/**
	 * Left of a bounded call's time when retrying stops: room for the last attempt to be
	 * answered before the bound interrupts the thread.
	 */
	private static final long BOUND_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

	private SlotRetries() {
	}

	/**
	 * Runs a call, retrying it while Redis Cluster refuses it for a moment.
	 * @param call the call
	 * @param <T> its result
	 * @return its result
	 */
	public static <T> T call(Supplier<T> call) {
		return call(call, SlotRetries::isMomentary);
	}

	/**
	 * Runs a call, retrying it while it fails in a way the caller deems momentary.
	 * @param call the call
	 * @param momentary which failures to retry (e.g. {@link #isMomentary} and
	 * redirections the caller follows itself)
	 * @param <T> its result
	 * @return its result
	 */
	public static <T> T call(Supplier<T> call, Predicate<Throwable> momentary) {
		long now = System.nanoTime();
		long deadline = now + Math.min(BUDGET.toNanos(), Math.max(0, BoundedCalls.nanosLeft() - BOUND_MARGIN_NANOS));
		long pause = FIRST_PAUSE_NANOS;
		while (true) {
			try {
				return call.get();
			}
			catch (RuntimeException ex) {
				if (!momentary.test(ex) || System.nanoTime() + pause - deadline > 0 || !sleep(pause)) {
					throw ex;
				}
				pause = Math.min(pause * 2, MAX_PAUSE_NANOS);
			}
		}
	}

	/**
	 * Returns whether a failure is a momentary refusal of Redis Cluster that a retry may
	 * overcome.
	 * @param ex the failure
	 * @return whether it is {@code TRYAGAIN}, {@code CLUSTERDOWN} or {@code UNBLOCKED}
	 */
	public static boolean isMomentary(Throwable ex) {
		return Failures.hasMessage(ex, "TRYAGAIN") || Failures.hasMessage(ex, "CLUSTERDOWN")
				|| Failures.hasMessage(ex, "UNBLOCKED");
	}

	private static boolean sleep(long nanos) {
		try {
			TimeUnit.NANOSECONDS.sleep(nanos);
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
