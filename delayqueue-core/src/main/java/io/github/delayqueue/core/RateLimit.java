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

package io.github.delayqueue.core;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.core.internal.InputText;

/**
 * A rate limit on handler starts: at most {@code permits} per {@code period} across every
 * instance, plus a burst. Enforced in Redis with GCRA (the generic cell rate algorithm):
 * starts are spaced {@code period / permits} apart on the Redis clock, and up to
 * {@code burst} may go at once after a quiet spell. In any window of one period at most
 * {@code permits + burst - 1} handlers start; there is no window boundary at which twice
 * the limit passes.
 *
 * @param permits handler starts per period, from 1 to {@value #MAX_PERMITS}
 * @param period the period, from 1 ms to 1 day
 * @param burst how many may start at once after a quiet spell, from 1 (none above the
 * even spacing) to {@value #MAX_PERMITS}
 * @param perKey whether the limit applies to each message key on its own (the key that
 * picks the partition, the id when the sender set none) rather than to the whole group: a
 * message whose key is over its limit goes back, due when its key may go, and the other
 * keys flow
 * @see DelayQueueAdmin#limitRate(String, RateLimit)
 */
public record RateLimit(int permits, Duration period, int burst, boolean perKey) {

	/** The most permits per period, and the largest burst. */
	public static final int MAX_PERMITS = 1_000_000;

	private static final Pattern TEXT = Pattern
		.compile("\\s*(\\d+)\\s*/\\s*(\\d+)\\s*(ms|s|m|h|d)\\s*(?:/\\s*(\\d+)\\s*)?(/\\s*key\\s*)?");

	/**
	 * Creates a rate limit, checking it.
	 * @param permits handler starts per period
	 * @param period the period
	 * @param burst how many may start at once
	 * @param perKey whether it applies to each key on its own
	 * @throws IllegalArgumentException when out of range
	 */
	public RateLimit {
		if (permits < 1 || permits > MAX_PERMITS) {
			throw new IllegalArgumentException(
					"Rate limit permits must be from 1 to " + MAX_PERMITS + ", but was " + permits);
		}
		if (period == null || period.compareTo(Duration.ofMillis(1)) < 0 || period.compareTo(Duration.ofDays(1)) > 0) {
			throw new IllegalArgumentException("Rate limit period must be from 1 ms to 1 day, but was " + period);
		}
		if (burst < 1 || burst > MAX_PERMITS) {
			throw new IllegalArgumentException(
					"Rate limit burst must be from 1 to " + MAX_PERMITS + ", but was " + burst);
		}
	}

	/**
	 * A rate limit of the whole group.
	 * @param permits handler starts per period
	 * @param period the period
	 * @param burst how many may start at once
	 */
	public RateLimit(int permits, Duration period, int burst) {
		this(permits, period, burst, false);
	}

	/**
	 * Returns the same limit applied to each message key on its own.
	 * @return the limit per key
	 */
	public RateLimit eachKey() {
		return new RateLimit(this.permits, this.period, this.burst, true);
	}

	/**
	 * A rate limit without burst above the even spacing.
	 * @param permits handler starts per period
	 * @param period the period
	 * @return the limit
	 */
	public static RateLimit of(int permits, Duration period) {
		return new RateLimit(permits, period, 1);
	}

	/**
	 * Reads a rate limit written as {@code permits/period[/burst][/key]}, the period a
	 * number with a unit ({@code ms}, {@code s}, {@code m}, {@code h}, {@code d}), and
	 * {@code /key} for a limit per message key: {@code 500/1s}, {@code 100/1m/10},
	 * {@code 5/1s/key}.
	 * @param text the text
	 * @return the limit
	 * @throws IllegalArgumentException when the text is not a rate limit, or out of range
	 */
	public static RateLimit parse(String text) {
		Matcher matcher = (text != null) ? TEXT.matcher(text) : null;
		if (matcher == null || !matcher.matches()) {
			throw new IllegalArgumentException("Rate limit " + InputText.quote(text)
					+ " is not permits/period[/burst][/key] with a period such as 500ms, 1s, 1m, 1h or 1d "
					+ "(e.g. 500/1s, 100/1m/10, 5/1s/key)");
		}
		try {
			long amount = Long.parseLong(matcher.group(2));
			Duration period = switch (matcher.group(3)) {
				case "ms" -> Duration.ofMillis(amount);
				case "s" -> Duration.ofSeconds(amount);
				case "m" -> Duration.ofMinutes(amount);
				case "h" -> Duration.ofHours(amount);
				default -> Duration.ofDays(amount);
			};
			int burst = (matcher.group(4) != null) ? Integer.parseInt(matcher.group(4)) : 1;
			return new RateLimit(Integer.parseInt(matcher.group(1)), period, burst, matcher.group(5) != null);
		}
		catch (NumberFormatException | ArithmeticException ex) {
			// not chained: a NumberFormatException's message repeats the number whole
			throw new IllegalArgumentException("Rate limit " + InputText.quote(text) + " has a number out of range ("
					+ ex.getClass().getSimpleName() + ")");
		}
	}

	/**
	 * @return the spacing of starts on the Redis clock, in microseconds (at least 1)
	 */
	public long intervalMicros() {
		return Math.max(1, TimeUnit.NANOSECONDS.toMicros(this.period.toNanos()) / this.permits);
	}

	/**
	 * @return how far ahead of the spacing starts may run, in microseconds: the burst
	 */
	public long toleranceMicros() {
		return (this.burst - 1) * intervalMicros();
	}

	/**
	 * @return {@code permits/periodMs ms/burst[/key]}, as {@link #parse} reads it
	 */
	@Override
	public String toString() {
		return this.permits + "/" + this.period.toMillis() + "ms/" + this.burst + (this.perKey ? "/key" : "");
	}

}
