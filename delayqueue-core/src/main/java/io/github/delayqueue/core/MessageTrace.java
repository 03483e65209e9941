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

import org.jspecify.annotations.Nullable;

/**
 * What Redis still shows of a message that is not scheduled, for one group
 * ({@link DelayQueueAdmin#messageTrace}). The engine keeps no record of a message once it
 * was handled (its stream entry is trimmed soon after every group acknowledged it),
 * cancelled, or never sent: those leave no trace.
 *
 * @param queue the queue
 * @param id the message id
 * @param group the group, or {@code null} for a due message no group has read yet (in a
 * fair-share queue's waiting line)
 * @param partition the partition
 * @param state where it is
 * @param at when: the time it became due ({@code READY}, {@code IN_FLIGHT},
 * {@code HANDLED}), its retry is due ({@code RETRYING}), or it became a dead letter
 * ({@code DEAD})
 * @param attempt the attempt it is at, or the last (0 when not known)
 * @param errorClass the last failure's class, or {@code null}
 * @param errorMessage the last failure's message, or {@code null}
 * @param consumer the consumer that holds it ({@code IN_FLIGHT}), or {@code null}
 * @param entryId the stream entry, or the dead letter's entry id ({@code DEAD}), or
 * {@code null}
 */
public record MessageTrace(String queue, String id, @Nullable String group, int partition, State state, Instant at,
		long attempt, @Nullable String errorClass, @Nullable String errorMessage, @Nullable String consumer,
		@Nullable String entryId) {

	/** Where a message that is not scheduled is. */
	public enum State {

		/** Due, waiting for its group to read it. */
		READY,

		/** Delivered to a consumer of its group, not yet acknowledged. */
		IN_FLIGHT,

		/** Failed, waiting for its backoff, or a replayed dead letter waiting. */
		RETRYING,

		/**
		 * Delivered and acknowledged (its entry still in the stream, trimmed soon after).
		 */
		HANDLED,

		/** A dead letter of its group. */
		DEAD

	}

}
