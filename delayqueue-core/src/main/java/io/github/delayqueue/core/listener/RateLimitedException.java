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

/**
 * Thrown by a handler to push back: the downstream is limiting it ("429, retry after 30
 * s"). The message goes back without costing an attempt, due again after
 * {@link #getHoldFor()}, and the group's handler starts are held for that long on every
 * instance: told on the queue's control channel, and, when the group has a rate limit,
 * written into its limiter in Redis (which holds even where the notification is lost).
 * See {@code docs/flow-control.md}.
 */
public class RateLimitedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final Duration holdFor;

	/**
	 * @param holdFor how long to hold the group's starts, from 1 ms to 1 day
	 * @param message why, for the log line
	 */
	public RateLimitedException(Duration holdFor, String message) {
		super(message, null, false, false);
		if (holdFor == null || holdFor.compareTo(Duration.ofMillis(1)) < 0
				|| holdFor.compareTo(Duration.ofDays(1)) > 0) {
			throw new IllegalArgumentException(
					"Hold of a RateLimitedException must be from 1 ms to 1 day, but was " + holdFor);
		}
		this.holdFor = holdFor;
	}

	/**
	 * @return how long to hold the group's starts, and when the message is due again
	 */
	public Duration getHoldFor() {
		return this.holdFor;
	}

}
