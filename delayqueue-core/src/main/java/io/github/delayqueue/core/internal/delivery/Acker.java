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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.redis.ConcurrentAcks;
import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.internal.runtime.LoopRunner;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;

import org.springframework.data.redis.connection.stream.RecordId;

/**
 * Acknowledges handled deliveries in batches ({@code XACK}, one per stream) on a
 * {@link SupervisedLoop}. A delivery handled after the container stopped (its handler
 * outlived the shutdown timeout) is acknowledged at once on the handler's thread, so no
 * entry stays pending because its ack came late.
 */
final class Acker implements SupervisedLoop.Job {

	private static final Log logger = LogFactory.getLog(Acker.class);

	private static final int MAX_BATCH = 512;

	/** How long freed slots wait for an acknowledgement to carry them. */
	private static final long CARRY_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

	/** How long freed slots Redis did not take wait before they are sent again. */
	private static final long FREE_AGAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

	private final ListenerContext context;

	private final Holdings holdings;

	private final BlockingQueue<Delivery> pending = new LinkedBlockingQueue<>();

	private final List<Delivery> batch = new ArrayList<>();

	private final SupervisedLoop loop;

	/**
	 * How long acknowledgements are kept to be sent again after a change of master: the
	 * window in which a failover can lose them (writes the replica had not received yet,
	 * writes to an old master the Sentinels had not yet turned into a replica).
	 */
	static final long RECENT_NANOS = TimeUnit.SECONDS.toNanos(10);

	/** The most acknowledgements kept to be sent again. */
	static final int RECENT_MAX = 100_000;

	/** Acknowledgements sent in the last {@link #RECENT_NANOS}, oldest first. */
	private final Deque<Sent> recent = new ArrayDeque<>();

	private int recentCount;

	/** Set when the master changed: the loop sends the recent acknowledgements again. */
	private volatile boolean sendAgain;

	/**
	 * The container's concurrency slots: those freed are sent once no ack comes for 1 ms.
	 */
	private final ConcurrencySlots slots;

	/**
	 * Set by a step that found nothing to send and sleeps: the next acknowledgement or
	 * freed slot wakes it.
	 */
	private final AtomicBoolean idle = new AtomicBoolean();

	/** Since when freed slots wait with no acknowledgement to carry them, 0 for none. */
	private long freedSince;

	/**
	 * @param loops the engine's loop runner: the acker holds no thread while it has
	 * nothing to send
	 */
	Acker(ListenerContext context, Holdings holdings, ConcurrencySlots slots, LoopRunner loops) {
		this.context = context;
		this.holdings = holdings;
		this.slots = slots;
		this.loop = new SupervisedLoop("acker of " + context.label(), loops, this);
		slots.held().whenFreed(this::nudge);
	}

	/** Wakes the loop if its last step found nothing to send. */
	private void nudge() {
		if (this.idle.compareAndSet(true, false)) {
			this.loop.wake();
		}
	}

	void start() {
		this.loop.start();
	}

	String problem() {
		return this.loop.problem();
	}

	void add(Delivery delivery) {
		this.pending.add(delivery);
		nudge();
		if (!this.loop.isRunning()) {
			flush(System.nanoTime());
			this.slots.held().flush();
		}
	}

	/** Stops the loop, then acknowledges what is pending, trying until the deadline. */
	void stop(long deadlineNanos) {
		this.loop.stop(Duration.ofNanos(Math.max(0, deadlineNanos - System.nanoTime())).plusSeconds(1));
		flush(deadlineNanos);
		this.slots.held().flush();
	}

	/**
	 * Sends the acknowledgements of the last seconds again, from the loop: the master
	 * changed, and the old one may have taken them without passing them on. XACK of an
	 * entry acknowledged already changes nothing.
	 */
	void sendRecentAgain() {
		this.sendAgain = true;
		this.loop.wake();
	}

	@Override
	public long runOnce() {
		if (this.sendAgain) {
			resend();
		}
		this.slots.held().followServer();
		if (this.batch.isEmpty()) {
			this.pending.drainTo(this.batch, MAX_BATCH);
		}
		if (this.batch.isEmpty()) {
			return idleStep();
		}
		this.freedSince = 0;
		// a failure keeps the batch for the next try, after the loop's backoff
		ack(this.batch);
		this.batch.clear();
		// the slots of the handlers acknowledged (released before their ack was added) go
		// with the next read's take, or once no acknowledgement came for a millisecond
		return 0;
	}

	/**
	 * Nothing to acknowledge: sends the freed slots once no acknowledgement came for a
	 * millisecond to carry them, and sleeps until woken (by an acknowledgement, a freed
	 * slot, a change of master) once nothing waits.
	 */
	private long idleStep() {
		if (this.slots.held().hasFreed()) {
			long now = System.nanoTime();
			if (this.freedSince == 0) {
				this.freedSince = now;
			}
			long left = CARRY_NANOS - (now - this.freedSince);
			if (left > 0) {
				return left;
			}
			this.slots.held().flush();
			this.freedSince = 0;
			if (this.slots.held().hasFreed()) {
				// Redis refused them: again after a while
				return FREE_AGAIN_NANOS;
			}
		}
		this.idle.set(true);
		if (!this.pending.isEmpty() || this.slots.held().hasFreed()) {
			// added as it went to sleep
			this.idle.set(false);
			return 0;
		}
		return SupervisedLoop.UNTIL_WOKEN;
	}

	@Override
	public void stopped() {
		// the loop's batch goes back to be flushed by stop()
		this.pending.addAll(this.batch);
		this.batch.clear();
	}

	private synchronized void flush(long deadlineNanos) {
		List<Delivery> rest = new ArrayList<>();
		this.pending.drainTo(rest);
		if (rest.isEmpty()) {
			return;
		}
		for (int attempt = 1;; attempt++) {
			try {
				ack(rest);
				return;
			}
			catch (RuntimeException ex) {
				if (attempt >= 3 && System.nanoTime() - deadlineNanos > 0) {
					logger.warn("Could not acknowledge " + rest.size() + " message(s) of " + this.context.label()
							+ "; they will be redelivered after the visibility timeout: " + Failures.describe(ex));
					rest.forEach(this.holdings::finished);
					return;
				}
				sleep(100L * attempt);
			}
		}
	}

	private void ack(List<Delivery> deliveries) {
		Map<String, List<RecordId>> byStream = new LinkedHashMap<>();
		for (Delivery delivery : deliveries) {
			byStream.computeIfAbsent(delivery.stream, (stream) -> new ArrayList<>()).add(RecordId.of(delivery.entryId));
		}
		this.context.scripts().execute((connection) -> {
			ConcurrentAcks.ack(connection, this.context.group(), byStream);
			return null;
		});
		remember(byStream);
		for (Delivery delivery : deliveries) {
			this.holdings.finished(delivery);
			if (delivery.filtered) {
				this.context.observer().filtered(this.context.queue(), this.context.group());
			}
			else {
				this.context.observer().acked(this.context.queue(), this.context.group(), delivery.processingTime());
			}
		}
	}

	private synchronized void remember(Map<String, List<RecordId>> byStream) {
		long now = System.nanoTime();
		int count = byStream.values().stream().mapToInt(List::size).sum();
		this.recent.addLast(new Sent(now, byStream, count));
		this.recentCount += count;
		while (!this.recent.isEmpty() && (now - this.recent.peekFirst().at() > RECENT_NANOS
				|| this.recentCount - this.recent.peekFirst().count() >= RECENT_MAX)) {
			this.recentCount -= this.recent.removeFirst().count();
		}
	}

	private void resend() {
		Map<String, List<RecordId>> byStream = new LinkedHashMap<>();
		synchronized (this) {
			for (Sent sent : this.recent) {
				sent.byStream()
					.forEach((stream, ids) -> byStream.computeIfAbsent(stream, (key) -> new ArrayList<>()).addAll(ids));
			}
		}
		// a failure leaves the flag set: sent again after the loop's backoff
		this.context.scripts().execute((connection) -> {
			ConcurrentAcks.ack(connection, this.context.group(), byStream);
			return null;
		});
		this.sendAgain = false;
		int count = byStream.values().stream().mapToInt(List::size).sum();
		if (count > 0) {
			logger.info("Sent the " + count + " acknowledgement(s) of the last "
					+ TimeUnit.NANOSECONDS.toSeconds(RECENT_NANOS) + " s of " + this.context.label()
					+ " again, to the new master");
		}
	}

	/** Acknowledgements sent together. */
	private record Sent(long at, Map<String, List<RecordId>> byStream, int count) {
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
