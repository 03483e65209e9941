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

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.redis.Envelope;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.listener.MessageExpiredException;
import io.github.delayqueue.core.listener.RateLimitedException;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.core.listener.SnoozeException;

/**
 * Records in Redis how a delivery that was not acknowledged ends, with one call of
 * {@code nack.lua}: a retry after the policy's backoff (carrying the failure to the next
 * attempt), a dead letter, an expiry, or a message held back (rate limit, push-back) that
 * goes back at the same attempt. A Redis failure is tried twice more, then the message is
 * left to lease recovery; either way the delivery is no longer held.
 */
final class Settlements {

	/** The processor's category: what users filter the delivery's log lines by. */
	private static final Log logger = LogFactory.getLog(Processor.class);

	private static final int MAX_ERROR_MESSAGE = 1024;

	private static final int MAX_STACK_TRACE = 8 * 1024;

	private final ListenerContext context;

	private final Holdings holdings;

	private final StartPermits permits;

	Settlements(ListenerContext context, Holdings holdings, StartPermits permits) {
		this.context = context;
		this.holdings = holdings;
		this.permits = permits;
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
		if (failure instanceof SnoozeException snooze) {
			snooze(delivery, snooze);
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

	void deadLetter(Delivery delivery, Throwable failure) {
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
		return nack(delivery, action, delayMillis, error, nextAttempt, attemptsMade, delivery.envelopeBytes);
	}

	/**
	 * @param envelope the envelope a retry carries (the delivery's own, or one with a
	 * header changed)
	 */
	private String nack(Delivery delivery, String action, long delayMillis, WireFormat.Failure error, int nextAttempt,
			int attemptsMade, byte[] envelope) {
		try {
			for (int attempt = 1;; attempt++) {
				try {
					List<Object> reply = this.context.scripts()
						.run(Scripts.NACK,
								List.of(delivery.stream, delivery.context.keys().retryDelayed(this.context.group()),
										delivery.context.keys().dead()),
								this.context.group(), this.context.consumer(), delivery.entryId, action, delayMillis,
								nextAttempt, delivery.messageId, envelope, attemptsMade, error.errorClass(),
								error.message(), delivery.context.keys().wakeChannel(), delivery.dueMillis,
								error.stackTrace(), this.context.settings().discardExpired() ? "discard" : "dead",
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
					if (status == 1 && action.equals("retry")) {
						// in-JVM too: the script's wake-up is published only for the head
						// of the retries, and may be lost
						this.context.schedulers().wake(delivery.context.keys(), ScriptRunner.asLong(reply.get(1)));
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

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Returns a message whose key is over its rate limit, without costing an attempt. */
	void redelay(Delivery delivery, long waitNanos) {
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

	/**
	 * A handler snoozed: the message goes back, due after the snooze, at the same
	 * attempt, its snooze count one more in its header; in one script with the
	 * acknowledgement. A snooze past the listener's limit makes it a dead letter that
	 * says so; one past its expiry expires it (the script).
	 */
	private void snooze(Delivery delivery, SnoozeException snooze) {
		int done = delivery.snoozes();
		int max = this.context.settings().maxSnoozes();
		// compared before counting one more: a header of Integer.MAX_VALUE must not wrap
		if (done >= max) {
			deadLetter(delivery,
					new SnoozeException(snooze.getDelay(), "Snoozed " + done + " times, the most max-snoozes allows ("
							+ max + "); the last snooze said: " + snooze.getMessage()));
			return;
		}
		int snoozes = done + 1;
		Envelope envelope = delivery.envelope;
		Map<String, String> headers = new LinkedHashMap<>(envelope.headers());
		headers.put(SnoozeException.SNOOZES_HEADER, Integer.toString(snoozes));
		byte[] snoozed = new Envelope(headers, envelope.maxAttempts(), envelope.expiry(), envelope.key(),
				envelope.payload(), envelope.priority())
			.encode();
		long millis = snooze.getDelay().toMillis();
		logger.info("Message '" + delivery.messageId + "' of " + delivery.context.label() + " snoozed for " + millis
				+ " ms (snooze " + snoozes + " of at most " + max + ", attempt " + delivery.attempt
				+ " still to come): " + snooze.getMessage());
		if (nack(delivery, "retry", millis, carried(delivery), delivery.attempt, delivery.attempt - 1,
				snoozed) != null) {
			this.context.observer().snoozed(this.context.queue(), this.context.group(), snooze.getDelay());
		}
	}

	/** Dead-letters or discards an expired message without handing it to its handler. */
	void expire(Delivery delivery) {
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

}
