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
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.codec.MessageDecodingException;
import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.HandlerTimeoutException;
import io.github.delayqueue.core.listener.SnoozeException;
import io.github.delayqueue.core.internal.redis.Envelope;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.micrometer.observation.Observation;

/**
 * Runs the handler of one delivery: waits for its start, decodes it, checks its expiry,
 * runs the handler (again in place, for an ordered listener's blocking retries), then has
 * it acknowledged when the handler returned, or settled by {@link Settlements} when it
 * threw or could not be decoded. Whatever the handler does (throws an {@link Error},
 * throws an exception whose message cannot be read, leaves its thread interrupted), the
 * worker goes on.
 */
final class Processor {

	private static final Log logger = LogFactory.getLog(Processor.class);

	/** What {@link #begin} returns for a delivery that does not reach the handler. */
	static final Object SKIPPED = new Object();

	private final ListenerContext context;

	private final StartPermits permits;

	private final ConcurrencySlots slots;

	private final Holdings holdings;

	private final Acker acker;

	private final Type payloadType;

	/** The handler of one message at a time; {@code null} for a batch listener's. */
	private final DelayMessageHandler<Object> handler;

	private final boolean acceptsNull;

	private final Settlements settlements;

	private final LeaseFence fence;

	private final InPlaceRetries retries;

	/** The container's interceptors, {@code null} when it has none. */
	private final InterceptorChain interceptors;

	/**
	 * @param handler the handler of one message at a time, {@code null} when a
	 * {@link BatchProcessor} runs the handler
	 * @param acceptsNull whether the handler accepts {@code null} payloads
	 * @param interceptors the container's interceptors, {@code null} when it has none
	 */
	@SuppressWarnings("unchecked")
	Processor(ListenerContext context, Holdings holdings, Acker acker, ConcurrencySlots slots, LeaseFence fence,
			Type payloadType, DelayMessageHandler<?> handler, boolean acceptsNull, InterceptorChain interceptors) {
		this.fence = fence;
		this.interceptors = interceptors;
		this.context = context;
		this.slots = slots;
		this.permits = new StartPermits(context, this.slots);
		this.holdings = holdings;
		this.acker = acker;
		this.payloadType = payloadType;
		this.handler = (DelayMessageHandler<Object>) handler;
		this.acceptsNull = acceptsNull;
		this.settlements = new Settlements(context, holdings, this.permits);
		this.retries = new InPlaceRetries(context, holdings, fence);
	}

	void prepare() {
		try {
			this.context.codec().prepare(this.payloadType);
		}
		catch (RuntimeException ex) {
			logger.warn("Cannot prepare decoding of " + this.payloadType.getTypeName() + ": " + Failures.describe(ex));
		}
	}

	/**
	 * Runs the handler on one delivery, and settles it.
	 * @param delivery the delivery a worker took
	 * @param worker the worker
	 */
	void process(Delivery delivery, WorkerPool.Worker worker) {
		try {
			Object payload = begin(delivery, worker);
			if (payload == SKIPPED) {
				return;
			}
			Throwable failure = handle(payload, delivery);
			while (failure != null) {
				Duration backoff = this.retries.backoff(delivery, failure);
				if (backoff == null) {
					break;
				}
				if (this.retries.await(List.of(delivery), backoff, worker).isEmpty()) {
					return;
				}
				failure = handle(payload, delivery);
			}
			finish(delivery, failure);
		}
		finally {
			// held from its start until its handler returned, settled or not (a handler
			// given up by the watchdog keeps it until it returns); one acknowledged was
			// released in finish()
			this.slots.release(delivery, false);
		}
	}

	/**
	 * @return the container's concurrency slots
	 */
	ConcurrencySlots slots() {
		return this.slots;
	}

	/**
	 * Takes a delivery up to its handler: waits for its start, marks it running, decodes
	 * it and checks its expiry. One that cannot be decoded is dead-lettered, one that
	 * expired is expired, one over its key's rate limit goes back to Redis.
	 * @param delivery the delivery a worker took
	 * @param worker the worker
	 * @return its payload, or {@link #SKIPPED} when it does not reach the handler
	 */
	Object begin(Delivery delivery, WorkerPool.Worker worker) {
		if (!awaitStart(delivery, worker)) {
			return SKIPPED;
		}
		if (!delivery.start(worker)) {
			return SKIPPED;
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
				delivery.inTrace(() -> this.settlements.deadLetter(delivery, ex));
			}
			return SKIPPED;
		}
		if (expired(delivery)) {
			if (delivery.settle()) {
				delivery.inTrace(() -> this.settlements.expire(delivery));
			}
			return SKIPPED;
		}
		return payload;
	}

	/**
	 * Settles a delivery whose handler ended: acknowledged when it returned or an
	 * interceptor filtered it out ({@link InterceptorChain#FILTERED}), else retried,
	 * snoozed or dead-lettered (see {@link Settlements#fail}). Nothing is done when the
	 * watchdog gave it up meanwhile.
	 * @param delivery the delivery
	 * @param failure what the handler threw, {@code null} when it returned
	 */
	void finish(Delivery delivery, Throwable failure) {
		if (!delivery.settle()) {
			// given up by the watchdog while the handler ran
			return;
		}
		try {
			if (failure == null || failure == InterceptorChain.FILTERED) {
				delivery.filtered = failure != null;
				// first: its slot is freed before the acknowledger sees it (carried by
				// the next take, or flushed once the acknowledger is idle)
				this.slots.release(delivery, true);
				this.acker.add(delivery);
			}
			else {
				this.settlements.fail(delivery, failure);
			}
		}
		catch (RuntimeException | Error ex) {
			// never hold a settled delivery: its entry stays pending, and recovery takes
			// it after the visibility timeout
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
			// last: a wait for a permit may have outlasted the lease
			permit = this.fence.await(delivery, worker);
		}
		if (permit == StartPermits.START) {
			return true;
		}
		if (delivery.settle()) {
			if (permit == StartPermits.LEFT || permit == LeaseFence.FENCED) {
				this.holdings.finished(delivery);
			}
			else {
				this.settlements.redelay(delivery, permit);
			}
		}
		return false;
	}

	/**
	 * Counts a delivery reaching its handler, with its lateness: called just before the
	 * handler, after the interceptors' {@code before}.
	 */
	void delivered(Delivery delivery) {
		long lateness = this.context.clock().millis() - delivery.dueMillis;
		this.context.observer()
			.delivered(this.context.queue(), this.context.group(), delivery.attempt,
					Duration.ofMillis(Math.max(0, lateness)));
	}

	private Throwable handle(Object payload, Delivery delivery) {
		Observation observation = observe(delivery);
		// in scope while the handler runs: its logs carry the trace, its calls continue
		// it
		Observation.Scope scope = observation.openScope();
		try {
			Throwable failure = (this.interceptors != null)
					? this.interceptors.run(payload, delivery, () -> handleNow(payload, delivery))
					: call(payload, delivery);
			// a snooze is an outcome the handler chose, not an error of its attempt
			if (failure != null && failure != InterceptorChain.FILTERED && !(failure instanceof SnoozeException)) {
				observation.error(failure);
			}
			return failure;
		}
		finally {
			scope.close();
			observation.stop();
			// the handler's interrupt must not end the worker or fail the ack
			Thread.interrupted();
		}
	}

	private Throwable call(Object payload, Delivery delivery) {
		try {
			handleNow(payload, delivery);
			return null;
		}
		catch (Throwable ex) {
			return ex;
		}
	}

	/**
	 * Calls the handler, counted as delivered (a message filtered out by an interceptor
	 * never is); a handler that returns after the watchdog gave it up did not succeed.
	 */
	private void handleNow(Object payload, Delivery delivery) throws Exception {
		delivered(delivery);
		this.handler.handle(payload, delivery);
		givenUp(delivery);
	}

	/**
	 * Throws when the watchdog gave a delivery up while its handler ran: a handler that
	 * returns then did not succeed (its message was retried or dead-lettered meanwhile),
	 * and its interceptors are told so ({@code onFailure}), not {@code onSuccess}.
	 * @param delivery the delivery whose handler returned
	 * @throws HandlerTimeoutException when it was given up
	 */
	void givenUp(Delivery delivery) {
		if (delivery.isSettled()) {
			throw givenUpFailure(delivery);
		}
	}

	/**
	 * @return the failure of a delivery whose handler returned after it was given up
	 */
	HandlerTimeoutException givenUpFailure(Delivery delivery) {
		return new HandlerTimeoutException("The handler returned after " + delivery.processingTime().toMillis()
				+ " ms, past the lease renewal limit (" + this.context.settings().leaseRenewalLimit()
				+ "): it had been abandoned, and its message retried or dead-lettered meanwhile");
	}

	/** Starts the observation of an attempt; the delivery keeps it for its log lines. */
	Observation observe(Delivery delivery) {
		Observation observation = this.context.observations()
			.process(this.context.queue(), this.context.group(), delivery.id(), delivery.attempt, delivery.headers())
			.start();
		delivery.observation = observation;
		return observation;
	}

	/**
	 * @return the retries in place of an ordered listener with blocking retries
	 */
	InPlaceRetries retries() {
		return this.retries;
	}

	/** Whether a delivery's message expired, by the Redis clock. */
	private boolean expired(Delivery delivery) {
		return this.retries.expiresWithin(delivery, 0);
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
		if (payload == null && !this.acceptsNull) {
			throw new MessageDecodingException("The payload decodes to null, and the handler does not accept null "
					+ "(declare the payload parameter @Nullable to receive it)", null);
		}
		return payload;
	}

	/**
	 * Settles a delivery whose handler failed (see {@link Settlements#fail}). The caller
	 * holds the right to settle it.
	 */
	void fail(Delivery delivery, Throwable failure) {
		this.settlements.fail(delivery, failure);
	}

}
