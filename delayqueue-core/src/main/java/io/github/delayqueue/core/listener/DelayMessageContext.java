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
import java.time.Instant;
import java.util.Map;

/**
 * One delivery of a message to a handler.
 */
public interface DelayMessageContext {

	/**
	 * @return the queue
	 */
	String queue();

	/**
	 * @return the consumer group
	 */
	String group();

	/**
	 * @return the message id (the caller's or the generated one)
	 */
	String id();

	/**
	 * @return the attempt number, from 1
	 */
	int attempt();

	/**
	 * @return the most attempts this message gets in this group
	 */
	int maxAttempts();

	/**
	 * @return when the message was due, by the Redis clock
	 */
	Instant dueTime();

	/**
	 * @return the message's headers
	 */
	Map<String, String> headers();

	/**
	 * Keeps this delivery's lease alive for at least this long from now (the watchdog
	 * renews running deliveries only up to the container's lease-renewal limit), and
	 * renews it at once.
	 * @param duration how long the handler still needs
	 * @return {@code false} when the lease was already lost to another consumer (the
	 * message will be, or is being, delivered again)
	 * @throws IllegalArgumentException when the duration is {@code null}, zero or
	 * negative (one over a century counts as a century)
	 */
	boolean extendLease(Duration duration);

	/**
	 * Returns how many times this message was snoozed (see {@link SnoozeException}).
	 * @return the count of its {@value SnoozeException#SNOOZES_HEADER} header, 0 when it
	 * has none or one that is not a count
	 */
	default int snoozes() {
		return SnoozeException.countIn(headers());
	}

}
