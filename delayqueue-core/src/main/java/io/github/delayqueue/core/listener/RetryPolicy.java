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

package io.github.delayqueue.core.listener;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import io.github.delayqueue.core.codec.MessageDecodingException;

/**
 * When a failed delivery is tried again: at most {@code maxAttempts} attempts in all, the
 * n-th retry after {@code initialBackoff * multiplier^(n-1)}, capped at
 * {@code maxBackoff}, spread by {@code ±jitter}. Exceptions of the non-retryable types
 * (and undecodable payloads) go to the dead-letter stream at once.
 *
 * @param maxAttempts the most attempts, at least 1
 * @param initialBackoff the delay before the first retry
 * @param multiplier the growth factor of the delay, finite and at least 1
 * @param maxBackoff the largest delay
 * @param jitter the random spread, 0 to 1 (0.2 = ±20%), not NaN
 * @param nonRetryable exception types that are never retried
 */
public record RetryPolicy(int maxAttempts, Duration initialBackoff, double multiplier, Duration maxBackoff,
		double jitter, Set<Class<? extends Throwable>> nonRetryable) {

	/** The longest backoff a policy may have: 10 years. */
	public static final Duration MAX_BACKOFF = Duration.ofDays(3650);

	/** The defaults: 5 attempts, 1s, x2, at most 10m, ±20%. */
	public static final RetryPolicy DEFAULT = new RetryPolicy(5, Duration.ofSeconds(1), 2.0, Duration.ofMinutes(10),
			0.2, Set.of());

	/**
	 * Validates the policy.
	 * @param maxAttempts the most attempts
	 * @param initialBackoff the first delay
	 * @param multiplier the growth factor
	 * @param maxBackoff the largest delay
	 * @param jitter the spread
	 * @param nonRetryable the non-retryable types
	 */
	public RetryPolicy {
		if (maxAttempts < 1) {
			throw new IllegalArgumentException("Max attempts must be at least 1, but was " + maxAttempts);
		}
		Objects.requireNonNull(initialBackoff, "Initial backoff must not be null");
		Objects.requireNonNull(maxBackoff, "Max backoff must not be null");
		if (initialBackoff.isNegative() || maxBackoff.compareTo(initialBackoff) < 0) {
			throw new IllegalArgumentException(
					"Backoff must satisfy 0 <= initial (" + initialBackoff + ") <= max (" + maxBackoff + ")");
		}
		if (maxBackoff.compareTo(MAX_BACKOFF) > 0) {
			throw new IllegalArgumentException(
					"Max backoff must be at most " + MAX_BACKOFF + " (10 years), but was " + maxBackoff);
		}
		if (!Double.isFinite(multiplier)) {
			throw new IllegalArgumentException("Backoff multiplier must be a finite number, but was " + multiplier);
		}
		if (multiplier < 1.0) {
			throw new IllegalArgumentException("Backoff multiplier must be at least 1, but was " + multiplier);
		}
		if (Double.isNaN(jitter) || jitter < 0 || jitter > 1) {
			throw new IllegalArgumentException("Jitter must be between 0 and 1, but was " + jitter);
		}
		nonRetryable = Set.copyOf(nonRetryable);
	}

	/**
	 * A fixed delay between attempts.
	 * @param maxAttempts the most attempts
	 * @param backoff the delay
	 * @return the policy
	 */
	public static RetryPolicy fixed(int maxAttempts, Duration backoff) {
		return new RetryPolicy(maxAttempts, backoff, 1.0, backoff, 0, Set.of());
	}

	/**
	 * Returns this policy with another attempt limit.
	 * @param attempts the most attempts
	 * @return the policy
	 */
	public RetryPolicy withMaxAttempts(int attempts) {
		return new RetryPolicy(attempts, this.initialBackoff, this.multiplier, this.maxBackoff, this.jitter,
				this.nonRetryable);
	}

	/**
	 * Returns this policy with more non-retryable exception types.
	 * @param types the types
	 * @return the policy
	 */
	@SafeVarargs
	public final RetryPolicy withNonRetryable(Class<? extends Throwable>... types) {
		Set<Class<? extends Throwable>> all = new LinkedHashSet<>(this.nonRetryable);
		for (Class<? extends Throwable> type : types) {
			all.add(type);
		}
		return new RetryPolicy(this.maxAttempts, this.initialBackoff, this.multiplier, this.maxBackoff, this.jitter,
				all);
	}

	/**
	 * Returns the delay before the next attempt after attempt {@code attempt} failed.
	 * @param attempt the attempt that failed, from 1
	 * @return the delay
	 */
	public Duration backoff(int attempt) {
		double base = this.initialBackoff.toMillis() * Math.pow(this.multiplier, Math.max(0, attempt - 1));
		double capped = Math.min(base, this.maxBackoff.toMillis());
		double spread = (this.jitter == 0) ? 0
				: capped * this.jitter * (2 * ThreadLocalRandom.current().nextDouble() - 1);
		return Duration.ofMillis(Math.max(0, Math.round(Math.min(capped + spread, this.maxBackoff.toMillis()))));
	}

	/**
	 * Returns whether a failure may be retried.
	 * @param error the failure
	 * @return {@code false} for non-retryable types and undecodable payloads
	 */
	public boolean isRetryable(Throwable error) {
		if (error instanceof MessageDecodingException) {
			return false;
		}
		return this.nonRetryable.stream().noneMatch((type) -> type.isInstance(error));
	}

}
