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

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.internal.runtime.LoopRunner;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;
import io.github.delayqueue.core.event.NonResponsiveHandlerEvent;
import io.github.delayqueue.core.listener.HandlerTimeoutException;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;

/**
 * The container's watchdog, on one {@link SupervisedLoop}: renews the leases of held
 * deliveries, gives up handlers that run past the lease renewal limit, recovers entries
 * whose lease expired (their consumer died) when its {@link RecoveryPlan} says (at start,
 * a visibility timeout later, on a {@link Heartbeats heartbeat} lapse, when entries were
 * given back, at the slow sweep, and periodically while the group has consumers that do
 * not heartbeat), trims acknowledged entries after activity, and at the slow sweep (one
 * instance per partition and group, by a lock) prunes consumers of the group that are
 * long idle and hold nothing and trims dead letters.
 */
final class LeaseKeeper implements SupervisedLoop.Job {

	private static final Log logger = LogFactory.getLog(LeaseKeeper.class);

	private final ListenerContext context;

	/** The contexts of the partitions the container reads now. */
	private final Supplier<List<ListenerContext>> reading;

	private final Holdings holdings;

	private final SupervisedLoop loop;

	private final long renewEveryNanos;

	private final long trimEveryNanos;

	private final long sweepEveryNanos;

	private final PartitionSweep sweeps;

	private final Recovery recovery;

	/** The engine's heartbeat, {@code null} when not joined (recovery as before). */
	private Heartbeats heartbeats;

	private long nextSweep;

	/**
	 * {@link Holdings#received()} at the last trim: trims only after activity (a message
	 * received since, or one held then, whose acknowledgement came since).
	 */
	private int receivedAtTrim;

	/** Whether the container held messages at the last trim. */
	private boolean heldAtTrim;

	private Processor processor;

	private WorkerPool workers;

	private long nextRenew;

	private long nextTrim;

	private final IdleWatch idle;

	/**
	 * @param context the container's context (partition 0's)
	 * @param reading the contexts of the partitions the container reads now: recovery and
	 * trimming cover those
	 */
	LeaseKeeper(ListenerContext context, Holdings holdings, Supplier<List<ListenerContext>> reading, LoopRunner loops) {
		this.context = context;
		this.reading = reading;
		this.holdings = holdings;
		long visibility = context.settings().visibilityTimeout().toNanos();
		this.renewEveryNanos = renewEveryNanos(context.settings());
		this.trimEveryNanos = context.settings().trimInterval().toNanos();
		this.sweepEveryNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(500),
				Math.min(context.settings().staleConsumerTimeout().toNanos() / 2, TimeUnit.MINUTES.toNanos(5)));
		this.sweeps = new PartitionSweep(this.sweepEveryNanos);
		this.recovery = new Recovery(context, holdings, this, this.sweepEveryNanos);
		// on the engine's runner: its steps call Redis but never wait for anything else
		this.loop = new SupervisedLoop("lease keeper of " + context.label(), loops, this);
		this.idle = new IdleWatch(context, holdings);
	}

	/**
	 * @param settings a container's settings
	 * @return how often its leases (and concurrency slots) are renewed
	 */
	static long renewEveryNanos(io.github.delayqueue.core.listener.ListenerSettings settings) {
		return Math.max(TimeUnit.MILLISECONDS.toNanos(50), settings.visibilityTimeout().toNanos() / 3);
	}

	void bind(Processor processor, WorkerPool workers) {
		this.processor = processor;
		this.workers = workers;
	}

	/**
	 * Joins the engine's heartbeat: without it, recovery runs at its period as in
	 * releases before heartbeats.
	 */
	void heartbeats(Heartbeats heartbeats) {
		this.heartbeats = heartbeats;
	}

	void start() {
		long now = System.nanoTime();
		this.nextRenew = now + this.renewEveryNanos;
		this.recovery.start(now);
		this.nextTrim = now + this.trimEveryNanos;
		this.receivedAtTrim = this.holdings.received();
		this.nextSweep = now;
		this.idle.start(now);
		this.loop.start();
		if (this.heartbeats != null) {
			this.heartbeats.add(this.context.consumer(), () -> {
				this.recovery.lapse(System.nanoTime());
				this.loop.wake();
			});
		}
	}

	/**
	 * The container begins to stop: no entry is taken over any more (see
	 * {@link Recovery#stopTaking}).
	 */
	void stopTaking() {
		this.recovery.stopTaking();
	}

	void stop() {
		stopTaking();
		if (this.heartbeats != null) {
			this.heartbeats.remove(this.context.consumer());
		}
		this.loop.stop(java.time.Duration.ofSeconds(5));
		this.sweeps.releaseAll(this.reading.get());
	}

	String problem() {
		String problem = this.loop.problem();
		return (problem != null || this.heartbeats == null) ? problem : this.heartbeats.problem();
	}

	/**
	 * Runs the recovery pass now rather than at its period: entries were given back (read
	 * beyond the capacity) and are to be taken again as soon as there is room.
	 */
	void recoverSoon() {
		this.recovery.soon();
		this.loop.wake();
	}

	/**
	 * Runs each task that is due. A task that fails on one partition (its master is down)
	 * still runs on the others, and is tried again after the loop's backoff; the first
	 * failure is thrown once all ran.
	 */
	@Override
	public long runOnce() {
		long now = System.nanoTime();
		StepFailures failed = new StepFailures();
		if (now - this.nextRenew >= 0) {
			giveUpHungHandlers(now);
			this.workers.replenish();
			if (failed.none(() -> renewHeld(now)) && failed.none(() -> this.processor.slots().held().renew())) {
				this.nextRenew = now + this.renewEveryNanos;
			}
		}
		if (this.heartbeats == null) {
			this.recovery.legacySeen(now);
		}
		this.recovery.runDue(now, this.reading, failed);
		if (now - this.nextSweep >= 0 && failed.none(() -> this.reading.get().forEach(failed.each(this::sweep)))) {
			this.nextSweep = now + this.sweepEveryNanos;
		}
		if (now - this.nextTrim >= 0) {
			int received = this.holdings.received();
			boolean held = this.holdings.size() > 0;
			if ((received == this.receivedAtTrim && !this.heldAtTrim)
					|| failed.none(() -> this.reading.get().forEach(failed.each(this::trim)))) {
				this.receivedAtTrim = received;
				this.heldAtTrim = held;
				this.nextTrim = now + this.trimEveryNanos;
			}
		}
		long idleCheck = this.idle.check(now);
		failed.rethrow();
		long next = Math.min(Math.min(this.nextRenew, this.recovery.next(now)),
				Math.min(this.nextTrim, this.nextSweep));
		return Math.min(next - System.nanoTime(), idleCheck);
	}

	/**
	 * A handler past its lease renewal limit (and any lease it extended) is given up: its
	 * message is retried per policy (the attempt is used) or dead-lettered, and its
	 * worker is abandoned to a replacement so the container keeps its concurrency.
	 */
	private void giveUpHungHandlers(long now) {
		for (Delivery delivery : this.holdings.all()) {
			if (delivery.isRunning() && now - delivery.keepAliveUntilNanos > 0 && delivery.settle()) {
				WorkerPool.Worker worker = delivery.worker;
				if (worker != null) {
					this.workers.abandon(worker);
				}
				this.context.observer().abandoned(this.context.queue(), this.context.group());
				long ranMillis = TimeUnit.NANOSECONDS.toMillis(now - delivery.startedNanos);
				this.context.events()
					.publish((time) -> new NonResponsiveHandlerEvent(this.context.queue(), this.context.group(),
							this.context.consumer(), delivery.messageId, delivery.attempt,
							java.time.Duration.ofMillis(ranMillis), time));
				delivery.inTrace(() -> logger.error("The handler of " + delivery + " still runs after " + ranMillis
						+ " ms, past the lease renewal limit; giving its message up and its thread to a replacement"));
				this.processor.fail(delivery,
						new HandlerTimeoutException("The handler ran past the lease renewal limit ("
								+ this.context.settings().leaseRenewalLimit() + ") and was abandoned"));
				// in ordered mode the partition's next message may run
				this.holdings.done(delivery);
			}
		}
	}

	private void renewHeld(long now) {
		List<Delivery> renewing = new ArrayList<>();
		for (Delivery delivery : this.holdings.all()) {
			// waiting deliveries are renewed without limit: workers are never hung for
			// long
			if (!delivery.isSettled() && !delivery.leaseLost
					&& (!delivery.isRunning() || delivery.keepAliveUntilNanos - now > 0)) {
				renewing.add(delivery);
			}
		}
		renew(renewing);
	}

	/** Renews one lease now, for a handler extending its lease. */
	boolean renewNow(Delivery delivery) {
		try {
			renew(List.of(delivery));
			return !delivery.leaseLost;
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot renew the lease of " + delivery + " now: " + Failures.describe(ex));
			return false;
		}
	}

	private void renew(List<Delivery> deliveries) {
		Map<String, List<Delivery>> byStream = new LinkedHashMap<>();
		deliveries.forEach((d) -> byStream.computeIfAbsent(d.stream, (s) -> new ArrayList<>()).add(d));
		StepFailures failed = new StepFailures();
		byStream.forEach((stream, list) -> failed.none(() -> {
			List<Object> args = new ArrayList<>(List.of(this.context.group(), this.context.consumer()));
			list.forEach((d) -> args.add(d.entryId));
			long sent = System.nanoTime();
			List<Object> lost = this.context.scripts().run(Scripts.EXTEND, List.of(stream), args.toArray());
			Set<String> lostIds = new HashSet<>();
			for (Object entry : lost) {
				lostIds.add(ScriptRunner.asString(entry));
			}
			for (Delivery delivery : list) {
				if (lostIds.contains(delivery.entryId)) {
					delivery.leaseLost = true;
				}
				else if (sent - delivery.leaseFrom > 0) {
					delivery.leaseFrom = sent;
				}
			}
		}));
		failed.rethrow();
	}

	private void trim(ListenerContext partition) {
		for (String stream : partition.streams()) {
			partition.scripts().run(Scripts.TRIM, List.of(stream));
		}
	}

	/**
	 * The slow sweep of a partition (by the one instance that takes its lock in the
	 * period) is also a recovery pass; a holder that does not heartbeat keeps recovery at
	 * its period for a while.
	 */
	private void sweep(ListenerContext partition) {
		Boolean unbeaten = this.sweeps.sweep(partition, this.heartbeats);
		if (unbeaten == null) {
			return;
		}
		if (unbeaten) {
			this.recovery.legacySeen(System.nanoTime());
		}
		if (this.context.gate().isOpen()) {
			this.recovery.recover(partition);
		}
	}

}
