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

package io.github.delayqueue.core.internal.delivery;

import java.lang.reflect.Type;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.codec.MessageDecodingException;
import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.MessageExpiredException;
import io.github.delayqueue.core.listener.RateLimitedException;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.core.internal.redis.Envelope;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.github.delayqueue.core.observation.DelayQueueObservations;
import io.micrometer.observation.Observation;

/**
 * Runs the handler of one delivery and settles it: acknowledged when the handler
 * returned; retried after the policy's backoff, or dead-lettered, when it threw or could
 * not be decoded. Whatever the handler does (throws an {@link Error}, throws an exception
 * whose message cannot be read, leaves its thread interrupted), the worker goes on.
 */
final class Processor {

	private static final Log logger = LogFactory.getLog(Processor.class);

	private static final int MAX_ERROR_MESSAGE = 1024;

	private static final int MAX_STACK_TRACE = 8 * 1024;

	private final ListenerContext context;

	private final StartPermits permits;

	private final Holdings holdings;

	private final Acker acker;

	private final Type payloadType;

	private final DelayMessageHandler<Object> handler;

	@SuppressWarnings("unchecked")
	Processor(ListenerContext context, Holdings holdings, Acker acker, Type payloadType,
			DelayMessageHandler<?> handler) {
		this.context = context;
		this.permits = new StartPermits(context);
		this.holdings = holdings;
		this.acker = acker;
		this.payloadType = payloadType;
		this.handler = (DelayMessageHandler<Object>) handler;
	}

	void prepare() {
		try {
			this.context.codec().prepare(this.payloadType);
		}
		catch (RuntimeException ex) {
			logger.warn("Cannot prepare decoding of " + this.payloadType.getTypeName() + ": " + Failures.describe(ex));
		}
	}

	void process(Delivery delivery, WorkerPool.Worker worker) {
		if (!awaitStart(delivery, worker)) {
			return;
		}
		if (!delivery.start(worker)) {
			return;
		}
		Object payload;
		try {
			payload = decode(delivery);
		}
		catch (RuntimeException ex) {
			// undecodable, or its attempts ran out while leases expired
			if (delivery.settle()) {
				if (delivery.envelope != null) {
					// the attempt failed before its handler: observed as failed, and the
					// dead-letter line carries the message's trace
					observe(delivery).error(ex).stop();
				}
				delivery.inTrace(() -> deadLetter(delivery, ex));
			}
			return;
		}
		if (expired(delivery)) {
			if (delivery.settle()) {
				delivery.inTrace(() -> expire(delivery));
			}
			return;
		}
		Throwable failure = handle(payload, delivery);
		while (failure != null) {
			InPlace next = retryInPlace(delivery, failure, worker);
			if (next == InPlace.LEFT) {
				return;
			}
			if (next == InPlace.NO) {
				break;
			}
			failure = handle(payload, delivery);
		}
		if (!delivery.settle()) {
			// given up by the watchdog while the handler ran
			return;
		}
		try {
			if (failure == null) {
				this.acker.add(delivery);
			}
			else {
				fail(delivery, failure);
			}
		}
		catch (RuntimeException | Error ex) {
			// never hold a settled delivery: its entry stays pending, and recovery takes
			// it
			// after the visibility timeout
			this.holdings.finished(delivery);
			Failures.logError(logger,
					"Could not settle " + delivery + "; it is redelivered after the visibility timeout", ex);
		}
	}

	/**
	 * Waits until the delivery may start (see {@link StartPermits}).
	 * @return whether it may start; {@code false} when the container stops (left to the
	 * stop, which hands it back) or its key is over its rate limit (sent back to Redis)
	 */
	private boolean awaitStart(Delivery delivery, WorkerPool.Worker worker) {
		long permit = this.permits.await(delivery, worker);
		if (permit == StartPermits.START) {
			return true;
		}
		if (delivery.settle()) {
			if (permit == StartPermits.LEFT) {
				this.holdings.finished(delivery);
			}
			else {
				redelay(delivery, permit);
			}
		}
		return false;
	}

	/** Returns a message whose key is over its rate limit, without costing an attempt. */
	private void redelay(Delivery delivery, long waitNanos) {
		long millis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(waitNanos + 999_999));
		if (nack(delivery, "retry", millis, carried(delivery), delivery.attempt) != null) {
			this.context.observer().rateLimited(this.context.queue(), this.context.group(), true);
		}
	}

	/**
	 * A handler pushed back: holds the group's starts here, and in its limiter in Redis
	 * for every instance when it has a rate limit; the message goes back without costing
	 * an attempt.
	 */
	private void pushBack(Delivery delivery, RateLimitedException pushBack) {
		Duration hold = pushBack.getHoldFor();
		this.context.gate().holdEverywhere(hold);
		this.permits.hold(hold);
		logger.info("The handler of " + this.context.label() + " pushed back (" + pushBack.getMessage()
				+ "): holding the group's starts for " + hold.toMillis() + " ms; message '" + delivery.messageId
				+ "' is due again then, at the same attempt");
		nack(delivery, "retry", hold.toMillis(), carried(delivery), delivery.attempt);
	}

	private Throwable handle(Object payload, Delivery delivery) {
		long lateness = this.context.clock().millis() - delivery.dueMillis;
		this.context.observer()
			.delivered(this.context.queue(), this.context.group(), delivery.attempt,
					Duration.ofMillis(Math.max(0, lateness)));
		Observation observation = observe(delivery);
		// in scope while the handler runs: its logs carry the trace, its calls continue
		// it
		Observation.Scope scope = observation.openScope();
		try {
			this.handler.handle(payload, delivery);
			return null;
		}
		catch (Throwable ex) {
			observation.error(ex);
			return ex;
		}
		finally {
			scope.close();
			observation.stop();
			// the handler's interrupt must not end the worker or fail the ack
			Thread.interrupted();
		}
	}

	/** Starts the observation of an attempt; the delivery keeps it for its log lines. */
	private Observation observe(Delivery delivery) {
		Observation observation = DelayQueueObservations
			.process(this.context.observations(), this.context.queue(), this.context.group(), delivery.id(),
					delivery.attempt, delivery.headers())
			.start();
		delivery.observation = observation;
		return observation;
	}

	private enum InPlace {

		/** Run the handler again. */
		AGAIN,

		/** Settle the failure as usual: a retry through Redis, or a dead letter. */
		NO,

		/**
		 * The delivery was left pending (the container stops) or given up: nothing to do.
		 */
		LEFT

	}

	/**
	 * An ordered listener with blocking retries retries a failed message in place: its
	 * worker waits out the backoff (the lease renewed meanwhile), then runs the handler
	 * again with the next attempt, so the messages of its partition stay behind it.
	 * Attempts made in place are counted in memory: if the container stops during the
	 * backoff, the entry is left pending for the partition's next owner, which starts
	 * again from the attempt recorded in Redis.
	 */
	private InPlace retryInPlace(Delivery delivery, Throwable failure, WorkerPool.Worker worker) {
		RetryPolicy policy = this.context.settings().retryPolicy();
		if (!this.context.settings().blockingRetries() || failure instanceof RateLimitedException
				|| !policy.isRetryable(failure) || delivery.attempt >= delivery.maxAttempts) {
			return InPlace.NO;
		}
		Duration backoff = policy.backoff(delivery.attempt);
		if (expiresWithin(delivery, backoff.toMillis())) {
			// retries stop at expiry: the nack script expires it
			return InPlace.NO;
		}
		delivery
			.inTrace(() -> logger.warn("Attempt " + delivery.attempt + " of " + delivery.maxAttempts + " of message '"
					+ delivery.messageId + "' (" + delivery.context.label() + ") failed, retrying in place in "
					+ backoff.toMillis() + " ms (the messages of its partition wait): " + Failures.summary(failure)));
		this.context.observer().retried(this.context.queue(), this.context.group(), delivery.processingTime(), failure);
		long until = System.nanoTime() + backoff.toNanos();
		delivery.keepAliveUntilNanos = until + this.context.settings().leaseRenewalLimit().toNanos();
		while (until - System.nanoTime() > 0) {
			if (delivery.isSettled() || delivery.leaseLost || worker == null || !worker.active()) {
				if (delivery.settle()) {
					// stopping, or the entry went to another consumer: left pending
					this.holdings.finished(delivery);
				}
				return InPlace.LEFT;
			}
			sleep(Math.min(50, Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime()))));
		}
		delivery.attempt++;
		delivery.startedNanos = System.nanoTime();
		delivery.keepAliveUntilNanos = delivery.startedNanos + this.context.settings().leaseRenewalLimit().toNanos();
		return InPlace.AGAIN;
	}

	/**
	 * Whether a delivery's message expired, by the Redis clock (estimated late: see
	 * {@link io.github.delayqueue.core.internal.redis.RedisClock}).
	 */
	private boolean expired(Delivery delivery) {
		return expiresWithin(delivery, 0);
	}

	private boolean expiresWithin(Delivery delivery, long millis) {
		long expiry = delivery.envelope.expiry();
		// a time to live not yet turned into an expiry cannot be seen here: a due
		// message's
		// envelope always holds its expiry (prelude.lua)
		return expiry > 0 && this.context.redisClock().millis(delivery.context.keys()) + millis >= expiry;
	}

	/** Dead-letters or discards an expired message without handing it to its handler. */
	private void expire(Delivery delivery) {
		String message = "Expired at " + Instant.ofEpochMilli(delivery.envelope.expiry())
				+ " (Redis clock) before attempt " + delivery.attempt + " started, "
				+ (delivery.envelope.expiry() - delivery.dueMillis) + " ms after it was due";
		WireFormat.Failure last = delivery.lastFailure;
		WireFormat.Failure expired = (last != null) ? new WireFormat.Failure(MessageExpiredException.class.getName(),
				truncate(message + "; the last attempt failed with " + last.errorClass() + ": " + last.message(),
						MAX_ERROR_MESSAGE),
				last.stackTrace()) : failure(new MessageExpiredException(message));
		// attempt N never started: N - 1 were made
		String result = nack(delivery, "expire", 0, expired, delivery.attempt + 1, delivery.attempt - 1);
		if (result != null) {
			expired(delivery, result);
		}
	}

	/** Logs and counts an expired message: {@code deadEntry} empty when discarded. */
	private void expired(Delivery delivery, String deadEntry) {
		boolean dead = !deadEntry.isEmpty();
		logger.info("Message '" + delivery.messageId + "' of " + delivery.context.label() + " expired at "
				+ Instant.ofEpochMilli(delivery.envelope.expiry()) + " (Redis clock) and was "
				+ (dead ? "dead-lettered as " + QueueNames.deadLetterId(delivery.context.keys().partition(), deadEntry)
						: "discarded"));
		this.context.observer().expired(this.context.queue(), this.context.group(), dead);
	}

	private Object decode(Delivery delivery) {
		if (delivery.unreadable != null) {
			throw new MessageDecodingException(delivery.unreadable, null);
		}
		try {
			if (delivery.envelope == null) {
				delivery.envelope = Envelope.decode(delivery.envelopeBytes);
			}
		}
		catch (IllegalArgumentException ex) {
			throw new MessageDecodingException("Undecodable message envelope: " + Failures.message(ex), ex);
		}
		if (delivery.envelope.maxAttempts() > 0) {
			delivery.maxAttempts = delivery.envelope.maxAttempts();
		}
		if (delivery.attempt > delivery.maxAttempts) {
			WireFormat.Failure before = delivery.lastFailure;
			throw new IllegalStateException("Attempts exhausted (" + delivery.maxAttempts
					+ "): the lease of the last attempt expired before it was acknowledged"
					+ ((before != null)
							? "; an earlier attempt failed with " + before.errorClass() + ": " + before.message()
							: ""));
		}
		Object payload;
		try {
			payload = this.context.codec().decode(delivery.envelope.payload(), this.payloadType);
		}
		catch (MessageDecodingException ex) {
			throw ex;
		}
		catch (RuntimeException ex) {
			// a codec breaking its contract must not kill the worker thread
			throw new MessageDecodingException("Cannot decode payload: " + Failures.summary(ex), ex);
		}
		if (payload == null && !this.handler.acceptsNullPayload()) {
			throw new MessageDecodingException("The payload decodes to null, and the handler does not accept null "
					+ "(declare the payload parameter @Nullable to receive it)", null);
		}
		return payload;
	}

	/**
	 * Settles a delivery whose handler failed: a retry after the policy's backoff while
	 * attempts are left and the failure is retryable, else a dead letter. The caller
	 * holds the right to settle it.
	 */
	void fail(Delivery delivery, Throwable failure) {
		delivery.inTrace(() -> settleFailure(delivery, failure));
	}

	private void settleFailure(Delivery delivery, Throwable failure) {
		if (failure instanceof RateLimitedException pushBack) {
			pushBack(delivery, pushBack);
			return;
		}
		RetryPolicy policy = this.context.settings().retryPolicy();
		if (policy.isRetryable(failure) && delivery.attempt < delivery.maxAttempts) {
			Duration backoff = policy.backoff(delivery.attempt);
			logger.warn("Attempt " + delivery.attempt + " of " + delivery.maxAttempts + " of message '"
					+ delivery.messageId + "' (" + delivery.context.label() + ") failed, retrying in "
					+ backoff.toMillis() + " ms: " + Failures.summary(failure));
			if (nack(delivery, "retry", backoff.toMillis(), failure(failure)) != null) {
				this.context.observer()
					.retried(this.context.queue(), this.context.group(), delivery.processingTime(), failure);
			}
		}
		else {
			deadLetter(delivery, failure);
		}
	}

	private void deadLetter(Delivery delivery, Throwable failure) {
		String deadEntry = nack(delivery, "dead", 0, failure(failure));
		if (deadEntry != null) {
			Failures.logError(logger,
					"Dead-lettered message '" + delivery.messageId + "' of " + delivery.context.label() + " after "
							+ Math.min(delivery.attempt, delivery.maxAttempts) + " attempt(s) as dead letter "
							+ QueueNames.deadLetterId(delivery.context.keys().partition(), deadEntry)
							+ " (replay it with that entry id): " + Failures.summary(failure),
					failure);
			this.context.observer()
				.dead(this.context.queue(), this.context.group(), delivery.processingTime(), failure);
		}
	}

	/**
	 * Runs the nack script; on a Redis failure tries twice more, then leaves the message
	 * to lease recovery (it is redelivered after the visibility timeout).
	 * @return the dead-letter entry id or the retry's due time; {@code null} when the
	 * delivery was not this consumer's any more or Redis could not be reached
	 */
	private String nack(Delivery delivery, String action, long delayMillis, WireFormat.Failure error) {
		return nack(delivery, action, delayMillis, error, delivery.attempt + 1);
	}

	/**
	 * @param nextAttempt the attempt a retry is
	 */
	private String nack(Delivery delivery, String action, long delayMillis, WireFormat.Failure error, int nextAttempt) {
		// a retry at the same attempt (held back by a rate limit or a push back) never
		// started that attempt
		int made = (nextAttempt > delivery.attempt) ? Math.min(delivery.attempt, delivery.maxAttempts)
				: delivery.attempt - 1;
		return nack(delivery, action, delayMillis, error, nextAttempt, made);
	}

	/**
	 * @param attemptsMade the attempts made, for a dead letter
	 */
	private String nack(Delivery delivery, String action, long delayMillis, WireFormat.Failure error, int nextAttempt,
			int attemptsMade) {
		try {
			for (int attempt = 1;; attempt++) {
				try {
					List<Object> reply = this.context.scripts()
						.run(Scripts.NACK,
								List.of(delivery.stream, delivery.context.keys().retryDelayed(this.context.group()),
										delivery.context.keys().dead()),
								this.context.group(), this.context.consumer(), delivery.entryId, action, delayMillis,
								nextAttempt, delivery.messageId, delivery.envelopeBytes, attemptsMade,
								error.errorClass(), error.message(), delivery.context.keys().wakeChannel(),
								delivery.dueMillis, error.stackTrace(),
								this.context.settings().discardExpired() ? "discard" : "dead",
								MessageExpiredException.class.getName());
					long status = ScriptRunner.asLong(reply.get(0));
					if (status == 0) {
						logger
							.info("The lease of " + delivery + " was lost to another consumer; leaving it to that one");
						return null;
					}
					String result = ScriptRunner.asString(reply.get(1));
					if (status == 2 && !action.equals("expire")) {
						// a retry that would be due after the expiry: expired instead
						expired(delivery, result);
						return null;
					}
					return result;
				}
				catch (RuntimeException ex) {
					if (attempt >= 3) {
						logger.warn("Cannot record the failure of " + delivery
								+ " in Redis; it will be redelivered after the visibility timeout: "
								+ Failures.describe(ex));
						return null;
					}
					sleep(100L * attempt);
				}
			}
		}
		finally {
			this.holdings.finished(delivery);
		}
	}

	/** A failure as Redis keeps it: its message and stack trace truncated. */
	private static WireFormat.Failure failure(Throwable error) {
		return new WireFormat.Failure(error.getClass().getName(), truncate(Failures.message(error), MAX_ERROR_MESSAGE),
				Failures.stackTrace(error, MAX_STACK_TRACE));
	}

	/**
	 * The failure a message held back without starting carries on: the one of its attempt
	 * before, if any.
	 */
	private static WireFormat.Failure carried(Delivery delivery) {
		return (delivery.lastFailure != null) ? delivery.lastFailure : WireFormat.Failure.NONE;
	}

	private static String truncate(String text, int max) {
		return (text.length() > max) ? text.substring(0, max) + "..." : text;
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
