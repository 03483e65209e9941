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
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Producing side of the delay queue: schedule, cancel and reschedule messages.
 * <p>
 * A send that returns has been applied by Redis: the message is delivered at least once
 * to every consumer group of the queue, not before its due time by the Redis clock,
 * unless Redis itself loses the write (see {@code docs/guarantees.md}: AOF fsync policy,
 * failover). A send that throws may or may not have been applied; sending again with the
 * same id is safe.
 * <p>
 * Due times are whole milliseconds: a delay or instant with a sub-millisecond part is
 * rounded up, never down. A delivery time must lie between 0000-01-01T00:00:00Z and
 * 9999-12-31T23:59:59.999Z, and a delay must end by then; otherwise an
 * {@link IllegalArgumentException} is thrown before anything reaches Redis.
 */
public interface DelayQueueOperations {

	/**
	 * Schedules a payload for delivery after a delay (measured by the Redis clock).
	 * @param queue the queue
	 * @param payload the payload, not {@code null}
	 * @param delay the delay; zero or negative delivers at once
	 * @return what the send did, with the generated id
	 */
	SendResult send(String queue, Object payload, Duration delay);

	/**
	 * Schedules a payload for delivery at an instant.
	 * @param queue the queue
	 * @param payload the payload, not {@code null}
	 * @param at when to deliver; a past instant delivers at once
	 * @return what the send did, with the generated id
	 */
	SendResult send(String queue, Object payload, Instant at);

	/**
	 * Schedules a message built with {@link DelayMessage#builder(Object)}.
	 * @param message the message
	 * @return what the send did
	 */
	SendResult send(DelayMessage<?> message);

	/**
	 * Schedules many messages with few round trips (the fast path for bulk scheduling).
	 * @param messages the messages, possibly for several queues
	 * @return one result per message, in order
	 */
	List<SendResult> sendAll(Collection<? extends DelayMessage<?>> messages);

	/**
	 * Cancels a scheduled message.
	 * @param queue the queue
	 * @param id the message id
	 * @return whether it was still scheduled (a message already due cannot be cancelled)
	 */
	boolean cancel(String queue, String id);

	/**
	 * Moves a scheduled message to a new delay from now.
	 * @param queue the queue
	 * @param id the message id
	 * @param delay the new delay
	 * @return whether it was still scheduled
	 */
	boolean reschedule(String queue, String id, Duration delay);

	/**
	 * Moves a scheduled message to a new instant.
	 * @param queue the queue
	 * @param id the message id
	 * @param at the new delivery time
	 * @return whether it was still scheduled
	 */
	boolean reschedule(String queue, String id, Instant at);

	/**
	 * Sends a message once the current Spring transaction commits, and never if it rolls
	 * back: for a message that belongs to what the transaction writes ("cancel this order
	 * in 30 minutes", sent in the transaction that creates the order). The message is
	 * checked now (an invalid one throws here, in the transaction); its delay counts from
	 * the commit. Outside a transaction (no transaction synchronization active) it is
	 * sent at once. A crash between the commit and the send loses the message (see
	 * {@code docs/core-usage.md}).
	 * @param message the message
	 * @return the result once sent; cancelled when the transaction rolls back, failed
	 * when the send after the commit failed (also logged as an error)
	 */
	CompletableFuture<SendResult> sendAfterCommit(DelayMessage<?> message);

	/**
	 * {@link #sendAfterCommit(DelayMessage)} for several messages.
	 * @param messages the messages
	 * @return the results once sent
	 */
	CompletableFuture<List<SendResult>> sendAllAfterCommit(Collection<? extends DelayMessage<?>> messages);

	/**
	 * Sends a message through the engine's transactional outbox
	 * ({@link DelayQueueEngineBuilder#outbox}): inside a transaction of the outbox's data
	 * source, it is written to the outbox table through the transaction's connection, so
	 * it exists exactly when the transaction commits, and a relay moves it to Redis
	 * (result status {@link SendResult.Status#DEFERRED}); no crash between the commit and
	 * the send can lose it. Outside a transaction it is sent at once. Its delay counts
	 * from this call. See {@code docs/outbox.md}.
	 * @param message the message
	 * @return what the send did
	 * @throws IllegalStateException when the engine has no outbox, or a transaction is
	 * active that is not one of the outbox's data source
	 */
	SendResult sendWithOutbox(DelayMessage<?> message);

	/**
	 * {@link #sendWithOutbox(DelayMessage)} for several messages.
	 * @param messages the messages
	 * @return what each send did, in order
	 */
	List<SendResult> sendAllWithOutbox(Collection<? extends DelayMessage<?>> messages);

	/**
	 * {@link #send(DelayMessage)} without blocking the caller.
	 * @param message the message
	 * @return the result, or the failure
	 */
	CompletableFuture<SendResult> sendAsync(DelayMessage<?> message);

	/**
	 * {@link #sendAll(Collection)} without blocking the caller.
	 * @param messages the messages
	 * @return the results, or the failure
	 */
	CompletableFuture<List<SendResult>> sendAllAsync(Collection<? extends DelayMessage<?>> messages);

	/**
	 * {@link #cancel(String, String)} without blocking the caller.
	 * @param queue the queue
	 * @param id the message id
	 * @return whether it was still scheduled, or the failure
	 */
	CompletableFuture<Boolean> cancelAsync(String queue, String id);

	/**
	 * {@link #reschedule(String, String, Duration)} without blocking the caller.
	 * @param queue the queue
	 * @param id the message id
	 * @param delay the new delay
	 * @return whether it was still scheduled, or the failure
	 */
	CompletableFuture<Boolean> rescheduleAsync(String queue, String id, Duration delay);

}
