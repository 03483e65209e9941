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

/**
 * Callbacks for what happens to messages, for metrics and tracing. Every method has a
 * no-op default; implementations must be fast and must not throw. Called on engine
 * threads.
 */
public interface DelayQueueObserver {

	/** An observer that does nothing. */
	DelayQueueObserver NOOP = new DelayQueueObserver() {
	};

	/**
	 * A message was sent.
	 * @param result what the send did
	 */
	default void sent(SendResult result) {
	}

	/**
	 * A message was handed to a handler.
	 * @param queue the queue
	 * @param group the group
	 * @param attempt the attempt number, from 1
	 * @param lateness how long after its due time it was received
	 */
	default void delivered(String queue, String group, int attempt, Duration lateness) {
	}

	/**
	 * A handler returned normally and the message was acknowledged.
	 * @param queue the queue
	 * @param group the group
	 * @param processing how long the handler ran
	 */
	default void acked(String queue, String group, Duration processing) {
	}

	/**
	 * An interceptor filtered a message out before its handler (see
	 * {@link io.github.delayqueue.core.listener.DelayMessageInterceptor#before}); it was
	 * acknowledged without being handled.
	 * @param queue the queue
	 * @param group the group
	 */
	default void filtered(String queue, String group) {
	}

	/**
	 * A handler failed and a retry was scheduled.
	 * @param queue the queue
	 * @param group the group
	 * @param processing how long the handler ran
	 * @param error the failure
	 */
	default void retried(String queue, String group, Duration processing, Throwable error) {
	}

	/**
	 * A message was dead-lettered.
	 * @param queue the queue
	 * @param group the group
	 * @param processing how long the handler ran on the last attempt
	 * ({@link Duration#ZERO} when no handler ran: the payload could not be decoded, or
	 * the lease of the last attempt expired)
	 * @param error the last failure
	 */
	default void dead(String queue, String group, Duration processing, Throwable error) {
	}

	/**
	 * A message expired before it was handled (see
	 * {@link DelayMessage.Builder#expireAfter}): no handler received it.
	 * @param queue the queue
	 * @param group the group
	 * @param deadLettered whether it became a dead letter ({@code false}: discarded)
	 */
	default void expired(String queue, String group, boolean deadLettered) {
	}

	/**
	 * A message could not start at once because of its group's rate limit.
	 * @param queue the queue
	 * @param group the group
	 * @param redelayed whether it went back to Redis, due when its key may go (a limit
	 * per key); {@code false}: it waited for its permit and started
	 */
	default void rateLimited(String queue, String group, boolean redelayed) {
	}

	/**
	 * A handler snoozed its message (see
	 * {@link io.github.delayqueue.core.listener.SnoozeException}): it is due again after
	 * the delay, at the same attempt.
	 * @param queue the queue
	 * @param group the group
	 * @param delay how long until it is due again
	 */
	default void snoozed(String queue, String group, Duration delay) {
	}

	/**
	 * Messages whose lease had expired were claimed by this consumer.
	 * @param queue the queue
	 * @param group the group
	 * @param count how many
	 */
	default void recovered(String queue, String group, int count) {
	}

	/**
	 * A handler ran past the lease renewal limit: its message was given up (retried or
	 * dead-lettered) and its thread abandoned to a replacement worker.
	 * @param queue the queue
	 * @param group the group
	 */
	default void abandoned(String queue, String group) {
	}

}
