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

package io.github.delayqueue.core.support;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * Turns the delivery times and delays of sends and reschedules into the milliseconds the
 * scripts take. Redis keeps due times in milliseconds, so a time or delay with a
 * sub-millisecond part is rounded <em>up</em>: a message is never due before the instant
 * asked for.
 */
public final class DueTimes {

	private static final int NANOS_PER_MILLI = 1_000_000;

	private DueTimes() {
	}

	/**
	 * Converts a delivery time to epoch milliseconds, rounded up.
	 * @param at the delivery time
	 * @return its epoch milliseconds, rounded up to the next whole millisecond
	 */
	public static long epochMillis(Instant at) {
		Objects.requireNonNull(at, "Delivery time must not be null");
		return at.toEpochMilli() + ((at.getNano() % NANOS_PER_MILLI != 0) ? 1 : 0);
	}

	/**
	 * Converts a delay to milliseconds, rounded up; zero or negative is 0 (due at once).
	 * @param delay the delay
	 * @return its milliseconds, rounded up to the next whole millisecond, at least 0
	 */
	public static long delayMillis(Duration delay) {
		Objects.requireNonNull(delay, "Delay must not be null");
		if (delay.isNegative() || delay.isZero()) {
			return 0;
		}
		return delay.toMillis() + ((delay.getNano() % NANOS_PER_MILLI != 0) ? 1 : 0);
	}

}
