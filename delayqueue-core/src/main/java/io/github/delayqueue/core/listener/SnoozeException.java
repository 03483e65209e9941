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
import java.util.Map;

/**
 * Thrown by a handler to snooze its message: put it back, due again after
 * {@link #getDelay()}, without using an attempt ("check the payment again in 5 minutes").
 * The acknowledgement and the re-scheduling are one script, so a crash between them
 * neither loses the message nor delivers it twice. Each snooze is counted in the
 * message's header {@value #SNOOZES_HEADER} ({@link DelayMessageContext#snoozes()}). A
 * snooze past the message's expiry expires it; one past the listener's {@code maxSnoozes}
 * (default 1,000) makes it a dead letter that says so. A snoozed message does not hold
 * the later messages of its key or partition, ordered listeners included: they are
 * delivered while it sleeps. See {@code docs/core-usage.md#snoozing}.
 */
public class SnoozeException extends RuntimeException {

	/** The header that counts a message's snoozes. */
	public static final String SNOOZES_HEADER = "delayqueue-snoozes";

	/** The longest snooze. */
	public static final Duration MAX_DELAY = Duration.ofDays(365);

	private static final long serialVersionUID = 1L;

	private final Duration delay;

	/**
	 * @param delay how long from now until the message is due again, from 1 ms to 365
	 * days
	 */
	public SnoozeException(Duration delay) {
		this(delay, "snoozed");
	}

	/**
	 * @param delay how long from now until the message is due again, from 1 ms to 365
	 * days
	 * @param reason why, for the log line
	 */
	public SnoozeException(Duration delay, String reason) {
		super(reason, null, false, false);
		if (delay == null || delay.compareTo(Duration.ofMillis(1)) < 0 || delay.compareTo(MAX_DELAY) > 0) {
			throw new IllegalArgumentException("A snooze must be from 1 ms to 365 days, but was " + delay);
		}
		this.delay = delay;
	}

	/**
	 * Reads a message's snooze count.
	 * @param headers the message's headers
	 * @return the count of its {@value #SNOOZES_HEADER} header, 0 when it has none or one
	 * that is not a count
	 */
	public static int countIn(Map<String, String> headers) {
		String count = headers.get(SNOOZES_HEADER);
		if (count == null) {
			return 0;
		}
		try {
			return Math.max(0, Integer.parseInt(count));
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	/**
	 * @return how long from now until the message is due again
	 */
	public Duration getDelay() {
		return this.delay;
	}

}
