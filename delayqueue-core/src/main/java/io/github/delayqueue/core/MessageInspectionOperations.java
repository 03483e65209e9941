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
import java.util.List;
import java.util.Optional;

/**
 * What can be read of a queue's messages before and while they are handled: pages of the
 * scheduled ones, one looked up by id, where a time falls in the schedule, the in-flight
 * ones, and what Redis still shows of one that is not scheduled. Every read is bounded
 * work. Implemented by {@link DelayQueueAdmin}; code that only reads messages (a support
 * tool, a health check) can depend on this interface.
 */
public interface MessageInspectionOperations {

	/**
	 * Returns a page of a queue's scheduled messages in due order (ties in id order),
	 * across its partitions: per partition, one range read of at most a page and its
	 * envelopes from the schedule, and the far tier's time slots up to the page's last
	 * due time (each slot read whole: a minute's messages with the default
	 * {@code compactAfter}).
	 * @param queue the queue
	 * @param after the {@link ScheduledMessage#cursor()} of the last message of the
	 * previous page, {@code <epoch ms>:} (no id) for the page of the first messages due
	 * at or after a time, or {@code null} for the first page
	 * @param count the page size, from 1 to 1000
	 * @return the page, fewer than {@code count} at the end
	 * @throws IllegalArgumentException when the cursor or the page size is invalid
	 */
	List<ScheduledMessage> scheduled(String queue, String after, int count);

	/**
	 * Looks up a scheduled message by id, where {@code cancel} looks: the partition its
	 * id maps to, then the others.
	 * @param queue the queue
	 * @param id the message id
	 * @return the message, empty when it is not scheduled (never sent, already due, or
	 * cancelled)
	 */
	Optional<ScheduledMessage> scheduledMessage(String queue, String id);

	/**
	 * Returns what Redis still shows of a message that is not scheduled, one trace per
	 * group: ready, in flight, retrying (or a replayed dead letter waiting), handled (its
	 * stream entry not yet trimmed: about 30 s after every group acknowledged it), or a
	 * dead letter, with when. Empty when Redis shows nothing: the engine keeps no record
	 * of a message once it was handled and trimmed, cancelled, or never sent. Bounded
	 * work, in the partition of the id first: the newest 2,000 dead letters, the newest
	 * 2,000 entries of the queue's streams and of each group's retry stream, and the
	 * first 2,000 of each group's retry schedule and of a fair-share queue's waiting
	 * line; older ones are not seen.
	 * @param queue the queue
	 * @param id the message id
	 * @return the traces, one per group (and one without a group for a fair-share queue's
	 * waiting line)
	 */
	List<MessageTrace> messageTrace(String queue, String id);

	/**
	 * Returns where a time falls in a queue's schedule: how many messages are due before
	 * it, of how many. Exact for the schedule and a far tier of at most 64 index buckets
	 * (about 2,000 messages), counted in its index. A larger far tier is counted in its
	 * nodes: every node that ends by the time counts its length ({@code XLEN}), a node
	 * that starts before it and ends after it is read (at most 20,000 entries in all; the
	 * length of any further one is left to the margin). This is exact unless the far tier
	 * holds entries of cancelled or replaced messages not yet removed (removal is lazy):
	 * then the count lies within {@link ScheduledPosition#margin()} of {@code before}, an
	 * estimate from 64 index buckets kept within those bounds, and the margin is at most
	 * the number of such entries. Work: per partition a {@code ZCOUNT}, a {@code ZCARD},
	 * one script that reads at most 64 small ZSETs, and for a large far tier one
	 * {@code XLEN} per node (a node holds up to 2,000 messages) and the reads of the
	 * nodes around the time. Counted while nothing is written meanwhile. Pass
	 * {@code <epoch ms>:} as the {@code after} of {@link #scheduled} to read the page
	 * that starts there.
	 * @param queue the queue
	 * @param at the time
	 * @return the position
	 */
	ScheduledPosition scheduledPosition(String queue, Instant at);

	/**
	 * Returns a queue's in-flight messages: those delivered to a consumer of any group
	 * and not yet acknowledged, across partitions, main and retry streams. Bounded work:
	 * the sort is over the {@code count} oldest entries of each partition's and group's
	 * pending lists (the longest idle are among them unless leases were extended).
	 * @param queue the queue
	 * @param order what comes first: the longest idle, or the most delivered
	 * @param count how many to return, from 1 to 1000
	 * @return the first {@code count} in that order
	 * @throws IllegalArgumentException when the count is out of range
	 */
	List<InFlightMessage> inFlight(String queue, InFlightMessage.Order order, int count);

}
