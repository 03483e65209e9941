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
import java.time.Instant;
import java.util.Objects;

/**
 * Turns the delivery times and delays of sends and reschedules into the milliseconds the
 * scripts take, checked before anything reaches Redis. Redis keeps due times in
 * milliseconds, so a time or delay with a sub-millisecond part is rounded <em>up</em>: a
 * message is never due before the instant asked for. Delivery times must lie between
 * {@link #MIN} and {@link #MAX} (four-digit years); for a delay, the limit is
 * {@link #MAX} measured from this JVM's clock (the scripts also cap a delay at
 * {@link #MAX}, by the Redis clock).
 */
public final class DueTimes {

	/** The latest delivery time accepted: {@code 9999-12-31T23:59:59.999Z}. */
	public static final Instant MAX = Instant.parse("9999-12-31T23:59:59.999Z");

	/** The earliest delivery time accepted: {@code 0000-01-01T00:00:00Z}. */
	public static final Instant MIN = Instant.parse("0000-01-01T00:00:00Z");

	private static final long MAX_MILLIS = MAX.toEpochMilli();

	private static final int NANOS_PER_MILLI = 1_000_000;

	private DueTimes() {
	}

	/**
	 * Checks a delivery time and converts it to epoch milliseconds, rounded up.
	 * @param at the delivery time
	 * @return its epoch milliseconds, rounded up to the next whole millisecond
	 * @throws IllegalArgumentException when it is before {@link #MIN} or after
	 * {@link #MAX}
	 */
	public static long epochMillis(Instant at) {
		Objects.requireNonNull(at, "Delivery time must not be null");
		if (at.isAfter(MAX)) {
			throw new IllegalArgumentException("Delivery time must be at most " + MAX + ", but was " + at);
		}
		if (at.isBefore(MIN)) {
			throw new IllegalArgumentException("Delivery time must be at least " + MIN + ", but was " + at);
		}
		return at.toEpochMilli() + ((at.getNano() % NANOS_PER_MILLI != 0) ? 1 : 0);
	}

	/**
	 * Checks a delay and converts it to milliseconds, rounded up; zero or negative is 0
	 * (due at once).
	 * @param delay the delay
	 * @return its milliseconds, rounded up to the next whole millisecond, at least 0
	 * @throws IllegalArgumentException when it would end after {@link #MAX} by this JVM's
	 * clock
	 */
	public static long delayMillis(Duration delay) {
		Objects.requireNonNull(delay, "Delay must not be null");
		if (delay.isNegative() || delay.isZero()) {
			return 0;
		}
		Duration longest = Duration.ofMillis(Math.max(0, MAX_MILLIS - System.currentTimeMillis()));
		if (delay.compareTo(longest) > 0) {
			throw new IllegalArgumentException(
					"Delay must end by " + MAX + ", so be at most " + longest + " from now, but was " + delay);
		}
		return delay.toMillis() + ((delay.getNano() % NANOS_PER_MILLI != 0) ? 1 : 0);
	}

	/** The longest expire-after, in days. */
	public static final int MAX_EXPIRE_AFTER_DAYS = 3650;

	/**
	 * Checks an expire-after.
	 * @param expireAfter the duration
	 * @param what what it is, for the error
	 * @return the duration
	 * @throws IllegalArgumentException when out of range
	 */
	public static Duration checkExpireAfter(Duration expireAfter, String what) {
		if (expireAfter == null || expireAfter.compareTo(Duration.ofMillis(1)) < 0
				|| expireAfter.compareTo(Duration.ofDays(MAX_EXPIRE_AFTER_DAYS)) > 0) {
			throw new IllegalArgumentException(what + " must be from 1 ms to " + MAX_EXPIRE_AFTER_DAYS
					+ " days (it counts from the due time), but was " + expireAfter);
		}
		return expireAfter;
	}

}
