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

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.codec.MessageDecodingException;
import io.github.delayqueue.core.support.Envelope;
import io.github.delayqueue.core.support.QueueKeys;
import io.github.delayqueue.core.support.ScriptRunner;
import io.github.delayqueue.core.support.Scripts;

/**
 * Runs one delivery through the handler and ends it: ack on return; on a throw, a retry
 * after the policy's backoff or the dead-letter stream. Undecodable envelopes and
 * payloads, and messages past their attempt limit (after lease expiries), go to the
 * dead-letter stream without reaching the handler.
 */
final class Processor {

	private static final Log logger = LogFactory.getLog(Processor.class);

	private static final int MAX_ERROR_MESSAGE = 1024;

	private final DelayQueueListenerContainer container;

	private final Type payloadType;

	private final DelayMessageHandler<Object> handler;

	@SuppressWarnings("unchecked")
	Processor(DelayQueueListenerContainer container, Type payloadType, DelayMessageHandler<?> handler) {
		this.container = container;
		this.payloadType = payloadType;
		this.handler = (DelayMessageHandler<Object>) handler;
	}

	void prepare() {
		try {
			this.container.engine.codec().prepare(this.payloadType);
		}
		catch (RuntimeException ex) {
			logger.warn("Cannot prepare decoding of " + this.payloadType.getTypeName() + ": " + ex.getMessage());
		}
	}

	void process(Delivery delivery) {
		RetryPolicy policy = this.container.settings.retryPolicy();
		DelayQueueObserver observer = this.container.engine.observer();
		delivery.maxAttempts = policy.maxAttempts();
		Object payload;
		try {
			delivery.envelope = Envelope.decode(delivery.envelopeBytes);
			if (delivery.envelope.maxAttempts() > 0) {
				delivery.maxAttempts = delivery.envelope.maxAttempts();
			}
			if (delivery.attempt > delivery.maxAttempts) {
				deadLetter(delivery, new IllegalStateException("Attempts exhausted (" + delivery.maxAttempts
						+ "): the lease of the last attempt expired before it was acknowledged"));
				return;
			}
		}
		catch (IllegalArgumentException ex) {
			deadLetter(delivery, new MessageDecodingException("Undecodable message envelope: " + ex.getMessage(), ex));
			return;
		}
		try {
			payload = this.container.engine.codec().decode(delivery.envelope.payload(), this.payloadType);
		}
		catch (MessageDecodingException ex) {
			deadLetter(delivery, ex);
			return;
		}
		catch (RuntimeException ex) {
			// a codec breaking its contract must not kill the worker thread
			deadLetter(delivery, new MessageDecodingException("Cannot decode payload: " + ex, ex));
			return;
		}
		long lateness = this.container.engine.clock().millis() - delivery.dueMillis;
		observer.delivered(this.container.queue(), this.container.group, delivery.attempt,
				Duration.ofMillis(Math.max(0, lateness)));
		delivery.startedNanos = System.nanoTime();
		delivery.keepAliveUntilNanos = delivery.startedNanos + this.container.settings.leaseRenewalLimit().toNanos();
		this.container.inProgress.add(delivery);
		try {
			this.handler.handle(payload, delivery);
			this.container.inProgress.remove(delivery);
			this.container.acknowledge(delivery);
		}
		catch (Throwable ex) {
			this.container.inProgress.remove(delivery);
			Duration processing = Duration.ofNanos(System.nanoTime() - delivery.startedNanos);
			if (policy.isRetryable(ex) && delivery.attempt < delivery.maxAttempts) {
				Duration backoff = policy.backoff(delivery.attempt);
				if (nack(delivery, "retry", backoff.toMillis(), ex)) {
					observer.retried(this.container.queue(), this.container.group, processing, ex);
				}
			}
			else {
				deadLetter(delivery, processing, ex);
			}
		}
	}

	private void deadLetter(Delivery delivery, Throwable error) {
		deadLetter(delivery, Duration.ZERO, error);
	}

	private void deadLetter(Delivery delivery, Duration processing, Throwable error) {
		logger.warn("Dead-lettering " + delivery + ": " + error);
		if (nack(delivery, "dead", 0, error)) {
			this.container.engine.observer().dead(this.container.queue(), this.container.group, processing, error);
		}
	}

	/**
	 * Runs the nack script; on a Redis failure retries a few times, then leaves the
	 * message to lease recovery (it is redelivered after the visibility timeout).
	 */
	private boolean nack(Delivery delivery, String action, long delayMillis, Throwable error) {
		QueueKeys keys = this.container.keys;
		String message = String.valueOf(error.getMessage());
		if (message.length() > MAX_ERROR_MESSAGE) {
			message = message.substring(0, MAX_ERROR_MESSAGE) + "...";
		}
		try {
			for (int attempt = 1;; attempt++) {
				try {
					List<Object> reply = this.container.engine.scripts()
						.run(Scripts.NACK,
								List.of(delivery.stream, keys.retryDelayed(this.container.group), keys.dead()),
								this.container.group, this.container.consumer, delivery.entryId, action, delayMillis,
								delivery.attempt + 1, delivery.messageId, delivery.envelopeBytes,
								Math.min(delivery.attempt, delivery.maxAttempts), error.getClass().getName(), message,
								keys.wakeChannel(), delivery.dueMillis);
					boolean done = ScriptRunner.asLong(reply.get(0)) == 1;
					if (!done) {
						logger.info("Lease of " + delivery + " was lost to another consumer; leaving it to that one");
					}
					return done;
				}
				catch (RuntimeException ex) {
					if (attempt >= 3 || !this.container.isActive()) {
						logger.warn("Cannot record the failure of " + delivery
								+ " in Redis; it will be redelivered after the visibility timeout: "
								+ ScriptRunner.describe(ex));
						return false;
					}
					DelayQueueListenerContainer.sleep(100L * attempt);
				}
			}
		}
		finally {
			this.container.finished(delivery);
		}
	}

}
