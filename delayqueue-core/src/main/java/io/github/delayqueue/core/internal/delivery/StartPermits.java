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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.internal.control.FlowGate;
import io.github.delayqueue.core.internal.redis.Envelope;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.runtime.Failures;

/**
 * Decides when a taken delivery may start under its group's flow controls: it waits,
 * unstarted and its lease renewed, while the queue or group is paused or held by a
 * push-back, until it holds a slot of the group's concurrency limit
 * ({@link ConcurrencySlots}), and until the group's rate limit (in Redis, see
 * {@code rate.lua}) grants a permit; a message whose key is over a per-key limit is to go
 * back to Redis instead.
 */
final class StartPermits {

	/** {@link #await}: the delivery may start. */
	static final long START = 0;

	/** {@link #await}: the container stops; the delivery is left to the stop. */
	static final long LEFT = -1;

	private static final Log logger = LogFactory.getLog(StartPermits.class);

	/** How long one wait lasts before the worker looks again. */
	private static final long WAIT_MILLIS = 100;

	/**
	 * When a message of an unordered listener goes back to Redis because its key is at
	 * its concurrency limit: how long until it is due again.
	 */
	static final long KEY_BUSY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private final ListenerContext context;

	private final ConcurrencySlots slots;

	/** When a failure to take a rate limit permit was last logged. */
	private volatile long permitFailureLoggedNanos = System.nanoTime() - TimeUnit.MINUTES.toNanos(1);

	StartPermits(ListenerContext context, ConcurrencySlots slots) {
		this.context = context;
		this.slots = slots;
	}

	/**
	 * Waits until a delivery may start: it holds its concurrency slot (when its group has
	 * a limit) once this returns {@link #START}.
	 * @return {@link #START}, {@link #LEFT}, or, for a message whose key is over its
	 * limit (unordered listeners), how many nanoseconds from now it may go: to go back to
	 * Redis, due then, so that the messages of other keys behind it flow
	 */
	long await(Delivery delivery, WorkerPool.Worker worker) {
		FlowGate gate = this.context.gate();
		boolean waited = false;
		for (;;) {
			long waitNanos;
			if (!gate.awaitOpen(WAIT_MILLIS)) {
				waitNanos = 0;
				// paused: its slot goes to whoever may start
				this.slots.release(delivery, false);
				this.slots.leaveLine();
			}
			else {
				long held = gate.heldNanos();
				long slot = (held > 0) ? ConcurrencySlots.TAKEN : slot(delivery, gate);
				if (slot == ConcurrencySlots.KEY_BUSY && !this.context.settings().ordered()) {
					return KEY_BUSY_NANOS;
				}
				if (slot != ConcurrencySlots.TAKEN) {
					// waited for a slot of the group already; a key's: a while
					if (slot == ConcurrencySlots.KEY_BUSY) {
						LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
					}
					if (worker == null || !worker.active()) {
						return LEFT;
					}
					continue;
				}
				RateLimit limit = gate.rateLimit();
				waitNanos = (held > 0) ? held : permitWaitNanos(delivery, limit, gate);
				if (waitNanos <= 0) {
					if (waited) {
						this.context.observer().rateLimited(this.context.queue(), this.context.group(), false);
					}
					return START;
				}
				if (held <= 0 && limit != null && limit.perKey() && !this.context.settings().ordered()) {
					return waitNanos;
				}
				waited = true;
			}
			if (this.slots.held().hasFreed()) {
				this.slots.held().flush();
			}
			if (waitNanos > 0) {
				LockSupport.parkNanos(Math.min(waitNanos, TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS)));
			}
			if (worker == null || !worker.active()) {
				return LEFT;
			}
		}
	}

	/**
	 * Takes a concurrency slot when the group has a limit.
	 * @return {@link ConcurrencySlots#TAKEN} (also without a limit),
	 * {@link ConcurrencySlots#AGAIN} or {@link ConcurrencySlots#KEY_BUSY}
	 */
	private long slot(Delivery delivery, FlowGate gate) {
		ConcurrencyLimit limit = gate.concurrencyLimit();
		return (limit != null) ? this.slots.take(delivery, limit) : ConcurrencySlots.TAKEN;
	}

	/**
	 * Holds the group's rate limiter in Redis (when it has one) for a push-back, so that
	 * every instance holds even where the notification is lost.
	 * @param hold how long
	 */
	void hold(Duration hold) {
		RateLimit limit = this.context.gate().rateLimit();
		if (limit == null) {
			return;
		}
		try {
			this.context.scripts()
				.run(Scripts.RATE, List.of(this.context.keys().rateState(this.context.group())), limit.intervalMicros(),
						limit.toleranceMicros(), TimeUnit.NANOSECONDS.toMicros(hold.toNanos()));
		}
		catch (RuntimeException ex) {
			logger.warn(
					"Cannot hold the rate limiter of " + this.context.label() + " in Redis: " + Failures.describe(ex));
		}
	}

	/**
	 * The key a per-key limit counts a message under: its sender's key, else its id;
	 * {@code null} for an unreadable envelope (dead-lettered once started).
	 */
	static String limiterKey(Delivery delivery) {
		if (delivery.unreadable != null) {
			return null;
		}
		try {
			if (delivery.envelope == null) {
				delivery.envelope = Envelope.decode(delivery.envelopeBytes);
			}
		}
		catch (IllegalArgumentException ex) {
			return null;
		}
		return (delivery.envelope.key() != null) ? delivery.envelope.key() : delivery.messageId;
	}

	/**
	 * Takes a permit of the group's rate limit: 0 when taken, else how long to wait. For
	 * a limit of the whole group one worker of the container asks Redis at a time, and
	 * waits out the answers itself, so that a container's workers do not all ask at every
	 * spacing (their calls would load Redis and the JVM, and delay the starts).
	 */
	private long permitWaitNanos(Delivery delivery, RateLimit limit, FlowGate gate) {
		if (limit == null) {
			return 0;
		}
		if (limit.perKey()) {
			String key = limiterKey(delivery);
			return (key != null) ? permit(delivery.context.keys().keyRateState(this.context.group(), key), limit) : 0;
		}
		ReentrantLock asking = gate.permitLock();
		try {
			if (!asking.tryLock(WAIT_MILLIS, TimeUnit.MILLISECONDS)) {
				return 1;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return 1;
		}
		try {
			long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
			for (;;) {
				long wait = permit(this.context.keys().rateState(this.context.group()), limit);
				if (wait <= 0 || System.nanoTime() + wait - until > 0) {
					return wait;
				}
				LockSupport.parkNanos(wait);
			}
		}
		finally {
			asking.unlock();
		}
	}

	private long permit(String state, RateLimit limit) {
		try {
			List<Object> reply = this.context.scripts()
				.run(Scripts.RATE, List.of(state), limit.intervalMicros(), limit.toleranceMicros(), 0);
			return TimeUnit.MICROSECONDS.toNanos(ScriptRunner.asLong(reply.get(0)));
		}
		catch (RuntimeException ex) {
			// Redis unreachable: nothing could be acknowledged either; try again shortly,
			// said at WARN every 30 s at most, so that a held group is not left unnoticed
			long now = System.nanoTime();
			if (now - this.permitFailureLoggedNanos > TimeUnit.SECONDS.toNanos(30)) {
				this.permitFailureLoggedNanos = now;
				logger.warn("Cannot take a rate limit permit for " + this.context.label()
						+ "; its handlers wait until Redis answers: " + Failures.describe(ex));
			}
			return TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
		}
	}

}
