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

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.core.internal.InputText;

/**
 * A concurrency limit on handlers: at most {@code max} running at once across every
 * instance, for the whole consumer group, or for each message key on its own. A slot is
 * taken in Redis when a handler is about to start and freed when it returns (whatever its
 * outcome: acknowledged, retried, dead-lettered, snoozed), or, when its holder died, once
 * its lease would have expired.
 *
 * @param max how many may run at once, from 1 to {@value #MAX}
 * @param perKey whether the limit applies to each message key on its own (the key that
 * picks the partition, the id when the sender set none) rather than to the whole group: a
 * message whose key is at its limit goes back to Redis, and the other keys flow
 * @see DelayQueueAdmin#limitConcurrency(String, int)
 */
public record ConcurrencyLimit(int max, boolean perKey) {

	/** The largest limit. */
	public static final int MAX = 10_000;

	private static final Pattern TEXT = Pattern.compile("\\s*(\\d+)\\s*(/\\s*key\\s*)?");

	/**
	 * Creates a limit, checking it.
	 * @param max how many may run at once
	 * @param perKey whether it applies to each key on its own
	 * @throws IllegalArgumentException when out of range
	 */
	public ConcurrencyLimit {
		if (max < 1 || max > MAX) {
			throw new IllegalArgumentException("Concurrency limit must be from 1 to " + MAX + ", but was " + max);
		}
	}

	/**
	 * A limit of the whole group.
	 * @param max how many may run at once
	 * @return the limit
	 */
	public static ConcurrencyLimit of(int max) {
		return new ConcurrencyLimit(max, false);
	}

	/**
	 * Returns the same limit applied to each message key on its own.
	 * @return the limit per key
	 */
	public ConcurrencyLimit eachKey() {
		return new ConcurrencyLimit(this.max, true);
	}

	/**
	 * Reads a limit written as {@code max[/key]}: {@code 10}, {@code 2/key}.
	 * @param text the text
	 * @return the limit
	 * @throws IllegalArgumentException when the text is not a limit, or out of range
	 */
	public static ConcurrencyLimit parse(String text) {
		Matcher matcher = (text != null) ? TEXT.matcher(text) : null;
		if (matcher == null || !matcher.matches()) {
			throw new IllegalArgumentException("Concurrency limit " + InputText.quote(text)
					+ " is not max[/key] (e.g. 10, or 2/key for each message key)");
		}
		try {
			return new ConcurrencyLimit(Integer.parseInt(matcher.group(1)), matcher.group(2) != null);
		}
		catch (NumberFormatException ex) {
			// not chained: its message repeats the digits whole
			throw new IllegalArgumentException(
					"Concurrency limit must be from 1 to " + MAX + ", but was " + InputText.quote(text.trim()));
		}
	}

	/**
	 * @return {@code max[/key]}, as {@link #parse} reads it
	 */
	@Override
	public String toString() {
		return this.max + (this.perKey ? "/key" : "");
	}

}
