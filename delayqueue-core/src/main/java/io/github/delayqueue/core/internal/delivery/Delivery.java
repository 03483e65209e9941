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
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.core.internal.redis.Envelope;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.micrometer.observation.Observation;

/**
 * One stream entry held by a container, from its read (or recovery) until it is settled:
 * acknowledged, failed (retry or dead letter), or released. Its state moves one way:
 * waiting → running → settled, or waiting → settled; {@link #settle()} lets exactly one
 * party (the handler's worker, or the watchdog giving up a hung handler) settle it.
 */
public final class Delivery implements DelayMessageContext {

	private static final int WAITING = 0;

	private static final int RUNNING = 1;

	private static final int SETTLED = 2;

	private static final Duration MAX_EXTENSION = Duration.ofDays(36_500);

	final String stream;

	final String entryId;

	final String messageId;

	final byte[] envelopeBytes;

	/** Why the entry is no message of this library, or {@code null}. */
	final String unreadable;

	/** For a retry, the failure of the attempt before it; {@code null} for none. */
	final WireFormat.Failure lastFailure;

	final long dueMillis;

	/** The message's priority, 0 for none: a container starts higher ones first. */
	final int priority;

	/** The attempt: raised in place by an ordered listener's blocking retries. */
	volatile int attempt;

	/** The context of the delivery's partition. */
	final ListenerContext context;

	private final LeaseKeeper leases;

	private final AtomicInteger state = new AtomicInteger(WAITING);

	Envelope envelope;

	int maxAttempts;

	volatile long startedNanos;

	volatile long keepAliveUntilNanos;

	volatile boolean leaseLost;

	/**
	 * A moment (System.nanoTime) from which the lease surely lasts the visibility
	 * timeout: when the read, recovery or renewal that gave it was sent.
	 */
	volatile long leaseFrom;

	volatile WorkerPool.Worker worker;

	/**
	 * Set when the master changed before its handler started: the entry may have been
	 * read from the old master after its replica's promotion, and the lease is to be
	 * confirmed on the new one first ({@link LeaseFence}).
	 */
	volatile boolean leaseUnconfirmed;

	/**
	 * The concurrency slot it holds ({@link ConcurrencySlots}), or {@code null}: set by
	 * {@link #holdSlot}, taken back by {@link #giveSlot}.
	 */
	private volatile String slot;

	/**
	 * Whether its worker relies on its {@link #slot} to start: it is no longer
	 * {@link #lendSlot given back} for another worker's delivery.
	 */
	private boolean slotClaimed;

	/**
	 * The observation of the latest attempt (it may have stopped): the library's log
	 * lines about this delivery are written in its scope, so they carry its trace.
	 */
	volatile Observation observation;

	/** Set when an interceptor filtered it out: acknowledged, counted as filtered. */
	boolean filtered;

	/**
	 * @param deliveries the entry's delivery count in the group once this delivery took
	 * it
	 * @param leaseFrom when the call that gave it was sent (System.nanoTime)
	 */
	Delivery(ListenerContext context, LeaseKeeper leases, String stream, String entryId, Map<String, byte[]> fields,
			long deliveries, long leaseFrom) {
		this.context = context;
		this.leaseFrom = leaseFrom;
		this.leases = leases;
		this.stream = stream;
		this.entryId = entryId;
		WireFormat.Ready ready = WireFormat.Ready.parse(fields, deliveries);
		this.messageId = ready.messageId();
		this.envelopeBytes = ready.envelope();
		this.unreadable = ready.unreadable();
		this.lastFailure = ready.lastFailure();
		this.dueMillis = ready.dueMillis();
		this.priority = Envelope.priorityOf(this.envelopeBytes);
		this.attempt = ready.attempt();
		this.maxAttempts = context.settings().retryPolicy().maxAttempts();
	}

	/** Marks the handler as started on a worker; false when already settled. */
	boolean start(WorkerPool.Worker worker) {
		this.worker = worker;
		this.startedNanos = System.nanoTime();
		this.keepAliveUntilNanos = this.startedNanos + this.context.settings().leaseRenewalLimit().toNanos();
		return this.state.compareAndSet(WAITING, RUNNING);
	}

	/** Takes the right to settle the delivery; true for exactly one caller. */
	boolean settle() {
		return this.state.getAndSet(SETTLED) != SETTLED;
	}

	boolean isRunning() {
		return this.state.get() == RUNNING;
	}

	boolean isSettled() {
		return this.state.get() == SETTLED;
	}

	Duration processingTime() {
		long started = this.startedNanos;
		return (started == 0) ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - started);
	}

	@Override
	public String queue() {
		return this.context.queue();
	}

	@Override
	public String group() {
		return this.context.group();
	}

	@Override
	public String id() {
		return this.messageId;
	}

	@Override
	public int attempt() {
		return this.attempt;
	}

	@Override
	public int maxAttempts() {
		return this.maxAttempts;
	}

	@Override
	public Instant dueTime() {
		return Instant.ofEpochMilli(this.dueMillis);
	}

	@Override
	public Map<String, String> headers() {
		return (this.envelope != null) ? this.envelope.headers() : Map.of();
	}

	@Override
	public boolean extendLease(Duration duration) {
		if (duration == null || duration.isNegative() || duration.isZero()) {
			throw new IllegalArgumentException("Lease extension must be positive, but was " + duration);
		}
		// at most a century: nanoTime arithmetic stays far from overflow
		long until = System.nanoTime() + ((duration.compareTo(MAX_EXTENSION) < 0) ? duration : MAX_EXTENSION).toNanos();
		if (until - this.keepAliveUntilNanos > 0) {
			this.keepAliveUntilNanos = until;
		}
		return !isSettled() && this.leases.renewNow(this);
	}

	/**
	 * @return the concurrency slot it holds, or {@code null}
	 */
	String slot() {
		return this.slot;
	}

	/**
	 * Gives it a concurrency slot, unless it holds one already (a read and its worker may
	 * take one each at once) or it was settled.
	 * @return whether it holds this slot now
	 */
	synchronized boolean holdSlot(String taken) {
		if (this.slot != null || isSettled()) {
			return false;
		}
		this.slot = taken;
		return true;
	}

	/**
	 * Takes its concurrency slot back, to be freed.
	 * @return the slot it held, or {@code null}
	 */
	synchronized String giveSlot() {
		String held = this.slot;
		this.slot = null;
		this.slotClaimed = false;
		return held;
	}

	/**
	 * Its worker is to start it: the slot it holds, if any, stays with it.
	 * @return the slot it holds, or {@code null}
	 */
	synchronized String claimSlot() {
		this.slotClaimed = this.slot != null;
		return this.slot;
	}

	/**
	 * Gives up the slot it holds for another delivery's worker, unless its own worker
	 * claimed it: it takes another when its worker starts it.
	 * @return the slot, or {@code null}
	 */
	synchronized String lendSlot() {
		if (this.slotClaimed) {
			return null;
		}
		String held = this.slot;
		this.slot = null;
		return held;
	}

	/**
	 * The master changed: unless it runs already, its lease is confirmed before it
	 * starts.
	 */
	void confirmLease() {
		if (!isRunning()) {
			this.leaseUnconfirmed = true;
		}
	}

	/**
	 * Renews the lease now, in one call.
	 * @return whether it is renewed: {@code false} when Redis did not answer or the entry
	 * went to another consumer ({@link #leaseLost})
	 */
	boolean renewLease() {
		return this.leases.renewNow(this);
	}

	@Override
	public String toString() {
		return "message '" + this.messageId + "' (entry " + this.entryId + ", attempt " + this.attempt + ") of "
				+ this.context.label();
	}

	/**
	 * Runs an action in the scope of this delivery's latest observation: the library's
	 * log lines about it then carry the message's trace (through MDC), as the handler's
	 * do. One scope per thread at a time: not nested in another of this delivery's.
	 * @param action the action
	 */
	void inTrace(Runnable action) {
		Observation current = this.observation;
		Observation.Scope scope = (current != null && !current.isNoop()) ? current.openScope() : null;
		try {
			action.run();
		}
		finally {
			if (scope != null) {
				scope.close();
			}
		}
	}

}
