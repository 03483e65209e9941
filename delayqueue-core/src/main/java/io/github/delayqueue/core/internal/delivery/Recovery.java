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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.redis.WireFormat;

/**
 * A container's recovery passes ({@code recover.lua}: entries idle past the visibility
 * timeout, their consumer died or hung, claimed for this one), run by its
 * {@link LeaseKeeper} when the {@link RecoveryPlan} says, when entries were given back
 * and there is room again, and at the slow sweep; none once the container begins to stop.
 */
final class Recovery {

	private static final Log logger = LogFactory.getLog(Recovery.class);

	private final ListenerContext context;

	private final Holdings holdings;

	private final LeaseKeeper leases;

	private final RecoveryPlan plan;

	private final long recoverEveryNanos;

	/** Whether entries were given back (or more may wait) since the last pass. */
	private volatile boolean recoverNow;

	/**
	 * Whether passes may take entries over: from the start until the container begins to
	 * stop. Guarded by itself: a pass holds it while it claims.
	 */
	private final Object takeLock = new Object();

	private boolean taking;

	Recovery(ListenerContext context, Holdings holdings, LeaseKeeper leases, long sweepEveryNanos) {
		this.context = context;
		this.holdings = holdings;
		this.leases = leases;
		long visibility = context.settings().visibilityTimeout().toNanos();
		this.recoverEveryNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(100),
				Math.min(visibility / 2, TimeUnit.SECONDS.toNanos(15)));
		this.plan = new RecoveryPlan(visibility, this.recoverEveryNanos, sweepEveryNanos);
	}

	/** The container starts: passes now and a visibility timeout later may take over. */
	void start(long now) {
		this.plan.start(now);
		synchronized (this.takeLock) {
			this.taking = true;
		}
	}

	/**
	 * The container begins to stop: from now on (once a pass claiming now is done) no
	 * entry is taken over. A stopping container would sit on what it took until its
	 * handlers finish, and what it took after giving its entries back would wait a
	 * visibility timeout more and lose an attempt; the consumers that go on take them.
	 */
	void stopTaking() {
		synchronized (this.takeLock) {
			this.taking = false;
		}
	}

	/** A heartbeat of the group lapsed: see {@link RecoveryPlan#lapse}. */
	void lapse(long now) {
		this.plan.lapse(now);
	}

	/**
	 * Consumers that do not heartbeat hold entries: see {@link RecoveryPlan#legacySeen}.
	 */
	void legacySeen(long now) {
		this.plan.legacySeen(now);
	}

	/** Entries were given back: a pass once there is room. */
	void soon() {
		this.recoverNow = true;
	}

	/**
	 * Runs the passes due, over the partitions read now; a partition whose pass failed is
	 * tried again at the next step.
	 */
	void runDue(long now, Supplier<List<ListenerContext>> reading, StepFailures failed) {
		if (this.recoverNow && this.holdings.free() > 0) {
			this.recoverNow = false;
			this.plan.at(now);
		}
		if (this.plan.due(now)) {
			// paused: take nothing over either (what a paused instance gave back stays
			// put); looked at again at the period
			if (!this.context.gate().isOpen()) {
				this.plan.at(now + this.recoverEveryNanos);
			}
			else if (!failed.none(() -> reading.get().forEach(failed.each(this::recover)))) {
				this.plan.at(now);
			}
		}
	}

	/**
	 * @return when the next pass is planned (System.nanoTime): soon while entries given
	 * back wait for room
	 */
	long next(long now) {
		long planned = this.plan.next(now);
		return this.recoverNow ? Math.min(planned, now + TimeUnit.MILLISECONDS.toNanos(20)) : planned;
	}

	void recover(ListenerContext partition) {
		synchronized (this.takeLock) {
			if (this.taking) {
				recoverTaking(partition);
			}
		}
	}

	private void recoverTaking(ListenerContext partition) {
		int recovered = 0;
		for (String stream : partition.streams()) {
			int free = this.holdings.reserve(this.holdings.free());
			if (free <= 0) {
				// filled meanwhile (the passes of other partitions, the readers): this
				// one's entries given back wait for room, looked at again shortly; passes
				// are rare now (RecoveryPlan), the next could be a sweep away
				this.recoverNow = true;
				break;
			}
			try {
				// never claim back what this container still holds (e.g. a handler past
				// its lease renewal limit): another consumer is to take that over
				List<Object> args = new ArrayList<>(List.of(partition.group(), partition.consumer(),
						partition.settings().visibilityTimeout().toMillis(), free));
				args.addAll(this.holdings.entryIds(stream, false));
				long sent = System.nanoTime();
				List<Object> claimed = partition.scripts().run(Scripts.RECOVER, List.of(stream), args.toArray());
				if (claimed.size() >= free) {
					// as many as there was room for: maybe more (given back), once there
					// is
					// room again
					this.recoverNow = true;
				}
				for (Object item : claimed) {
					List<?> entry = (List<?>) item;
					// held already: the reader re-read it meanwhile (its pending entries)
					if (this.holdings
						.accept(new Delivery(partition, this.leases, stream, ScriptRunner.asString(entry.get(0)),
								WireFormat.fields((List<?>) entry.get(1)), ScriptRunner.asLong(entry.get(2)), sent))) {
						recovered++;
					}
				}
			}
			finally {
				// the deliveries accepted are held now
				this.holdings.unreserve(free);
			}
		}
		if (recovered > 0) {
			logger.info("Recovered " + recovered + " message(s) of " + partition.label() + " whose lease had expired");
			partition.observer().recovered(partition.queue(), partition.group(), recovered);
		}
	}

}
