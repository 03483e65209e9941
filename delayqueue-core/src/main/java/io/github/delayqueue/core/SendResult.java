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

import java.time.Instant;

/**
 * What a send did.
 *
 * @param queue the queue
 * @param id the message id (generated when the caller gave none)
 * @param status what happened
 * @param dueTime when the message is (or, for a duplicate, the existing one is) due, by
 * the Redis clock; {@code null} when deferred or refused
 */
public record SendResult(String queue, String id, Status status, Instant dueTime) {

	/**
	 * Whether this send created or replaced a scheduled message.
	 * @return {@code false} for a duplicate or a refusal
	 */
	public boolean accepted() {
		return this.status != Status.DUPLICATE && this.status != Status.REFUSED;
	}

	/**
	 * The outcome of a send.
	 */
	public enum Status {

		/**
		 * Scheduled: for later, or already due behind messages due as early or earlier
		 * that the scheduler has yet to move (the stream keeps due order).
		 */
		SCHEDULED,
		/** Already due: added to the stream for delivery at once. */
		READY,
		/** A message with this id is still scheduled; nothing changed. */
		DUPLICATE,
		/** Replaced the scheduled message with this id (payload and due time). */
		REPLACED,
		/**
		 * Refused: the queue holds its maximum of waiting messages (its size limit, see
		 * {@link DelayQueueAdmin#limitSize}); nothing was written. {@code sendAll}
		 * reports it here; a single {@code send} throws {@link QueueFullException}.
		 */
		REFUSED,
		/**
		 * Not sent yet: sent once the current transaction commits, dropped if it rolls
		 * back ({@code DelayQueueEngineBuilder.sendAfterCommit}); the due time is not
		 * known yet ({@code null}). {@code sendAfterCommit} returns the result of the
		 * send itself.
		 */
		DEFERRED

	}

}
