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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.listener.RateLimitedException;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.core.listener.SnoozeException;

/**
 * The retries in place of an ordered listener with blocking retries: which failures are
 * retried in place, and the wait for their backoff, the lease kept meanwhile.
 */
final class InPlaceRetries {

	// the category of every line about a message's attempts (see Settlements)
	private static final Log logger = LogFactory.getLog(Processor.class);

	private final ListenerContext context;

	private final Holdings holdings;

	private final LeaseFence fence;

	InPlaceRetries(ListenerContext context, Holdings holdings, LeaseFence fence) {
		this.context = context;
		this.holdings = holdings;
		this.fence = fence;
	}

	/**
	 * An ordered listener with blocking retries retries a failed message in place: its
	 * worker waits out the backoff (the lease renewed meanwhile), then runs the handler
	 * again with the next attempt, so the messages of its partition stay behind it.
	 * Attempts made in place are counted in memory: if the container stops during the
	 * backoff, the entry is left pending for the partition's next owner, which starts
	 * again from the attempt recorded in Redis.
	 * @return the backoff of the retry in place; {@code null} when the failure is settled
	 * as usual (a retry through Redis, or a dead letter)
	 */
	Duration backoff(Delivery delivery, Throwable failure) {
		RetryPolicy policy = this.context.settings().retryPolicy();
		// given up by the watchdog: settled already
		if (failure == InterceptorChain.FILTERED || delivery.isSettled() || !this.context.settings().blockingRetries()
				|| failure instanceof RateLimitedException || failure instanceof SnoozeException
				|| !policy.isRetryable(failure) || delivery.attempt >= delivery.maxAttempts) {
			return null;
		}
		Duration backoff = policy.backoff(delivery.attempt);
		if (expiresWithin(delivery, backoff.toMillis())) {
			// retries stop at expiry: the nack script expires it
			return null;
		}
		delivery
			.inTrace(() -> logger.warn("Attempt " + delivery.attempt + " of " + delivery.maxAttempts + " of message '"
					+ delivery.messageId + "' (" + delivery.context.label() + ") failed, retrying in place in "
					+ backoff.toMillis() + " ms (the messages of its partition wait): " + Failures.summary(failure)));
		this.context.observer().retried(this.context.queue(), this.context.group(), delivery.processingTime(), failure);
		return backoff;
	}

	/**
	 * Waits out the backoff of deliveries retried in place, then counts their next
	 * attempt. A delivery given up meanwhile, whose lease was lost, or whose worker
	 * stops, is left pending (for the partition's next owner).
	 * @return the deliveries to run again
	 */
	List<Delivery> await(List<Delivery> deliveries, Duration backoff, WorkerPool.Worker worker) {
		long until = System.nanoTime() + backoff.toNanos();
		List<Delivery> waiting = new ArrayList<>(deliveries);
		for (Delivery delivery : waiting) {
			delivery.keepAliveUntilNanos = until + this.context.settings().leaseRenewalLimit().toNanos();
		}
		while (until - System.nanoTime() > 0) {
			waiting.removeIf((delivery) -> {
				if (delivery.isSettled() || delivery.leaseLost || worker == null || !worker.active()) {
					if (delivery.settle()) {
						// stopping, or the entry went to another consumer: left pending
						this.holdings.finished(delivery);
					}
					return true;
				}
				return false;
			});
			if (waiting.isEmpty()) {
				return waiting;
			}
			Settlements.sleep(Math.min(50, Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime()))));
		}
		// the lease (and the partition's) surely held before each runs again
		waiting.removeIf((delivery) -> {
			long fenced = this.fence.await(delivery, worker);
			if (fenced != StartPermits.START && delivery.settle()) {
				this.holdings.finished(delivery);
			}
			return fenced != StartPermits.START;
		});
		for (Delivery delivery : waiting) {
			delivery.attempt++;
			delivery.startedNanos = System.nanoTime();
			delivery.keepAliveUntilNanos = delivery.startedNanos
					+ this.context.settings().leaseRenewalLimit().toNanos();
		}
		return waiting;
	}

	/**
	 * Whether a delivery's message expires within {@code millis} from now, by the Redis
	 * clock (estimated late: see
	 * {@link io.github.delayqueue.core.internal.redis.RedisClock}).
	 */
	boolean expiresWithin(Delivery delivery, long millis) {
		long expiry = delivery.envelope.expiry();
		// a time to live not yet turned into an expiry cannot be seen here: a due
		// message's envelope always holds its expiry (prelude.lua)
		return expiry > 0 && this.context.redisClock().millis(delivery.context.keys()) + millis >= expiry;
	}

}
