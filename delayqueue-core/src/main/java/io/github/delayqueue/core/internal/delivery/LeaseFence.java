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

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Keeps a handler from starting on a message whose lease this consumer may no longer
 * hold. A lease runs for the visibility timeout from the moment Redis handed the entry
 * over, so the time a read (or a renewal) was <em>sent</em> is a moment from which the
 * lease surely lasts that long. A delivery whose lease was last known good longer ago
 * than half the visibility timeout (a read reply that arrived late, a JVM that woke from
 * a long pause, renewals that could not reach Redis) is renewed first, in one call:
 * renewed, it starts; moved to another consumer, it is dropped, never started. The
 * watchdog renews every held delivery a third of the timeout apart, so in steady
 * operation nothing is asked. The same holds for the partition of an exclusive or ordered
 * listener: a message starts only while its partition's lease is surely held. After a
 * change of master every delivery not started yet is confirmed this way on the new one:
 * it may have been read from the old master after its replica's promotion, and be
 * delivered again by the new one.
 */
final class LeaseFence {

	private static final Log logger = LogFactory.getLog(LeaseFence.class);

	/** What {@link #await} returns when the delivery is no longer this consumer's. */
	static final long FENCED = -2;

	private static final long WAIT_MILLIS = 50;

	/** The lease as far as this consumer knows. */
	enum Lease {

		/** Surely held. */
		HELD,
		/** Moved to another consumer. */
		LOST,
		/** Not known: Redis did not answer. */
		UNSURE

	}

	private final long confirmAfterNanos;

	private final IntFunction<Lease> partitions;

	/**
	 * @param context the container's context
	 * @param partitions the lease of a partition: always {@link Lease#HELD} for a shared
	 * listener
	 */
	LeaseFence(ListenerContext context, IntFunction<Lease> partitions) {
		this.confirmAfterNanos = context.settings().visibilityTimeout().toNanos() / 2;
		this.partitions = partitions;
	}

	/**
	 * Waits until the delivery's lease is surely held.
	 * @return {@link StartPermits#START}; {@link StartPermits#LEFT} when the worker stops
	 * meanwhile; {@link #FENCED} when the delivery went to another consumer (it is left
	 * to the caller to drop)
	 */
	long await(Delivery delivery, WorkerPool.Worker worker) {
		for (;;) {
			switch (check(delivery)) {
				case HELD:
					return StartPermits.START;
				case LOST:
					delivery.inTrace(() -> logger.info("Not starting " + delivery + ": its lease went to another "
							+ "consumer while this one could not renew it (a late read reply, a long pause, "
							+ "Redis out of reach or a failover); that consumer handles it"));
					return FENCED;
				default:
					LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS));
					if (worker == null || !worker.active()) {
						return StartPermits.LEFT;
					}
			}
		}
	}

	/**
	 * Tells whether a delivery's lease (and its partition's, when owned) is surely held,
	 * asking Redis only when it was last known good more than half the visibility timeout
	 * ago.
	 * @param delivery the delivery
	 * @return the lease
	 */
	Lease check(Delivery delivery) {
		Lease partition = this.partitions.apply(delivery.context.keys().partition());
		if (partition != Lease.HELD || delivery.leaseLost) {
			return delivery.leaseLost ? Lease.LOST : partition;
		}
		boolean unconfirmed = delivery.leaseUnconfirmed;
		if (!unconfirmed && System.nanoTime() - delivery.leaseFrom <= this.confirmAfterNanos) {
			return Lease.HELD;
		}
		boolean renewed = delivery.renewLease();
		if (renewed && unconfirmed) {
			delivery.leaseUnconfirmed = false;
		}
		return delivery.leaseLost ? Lease.LOST : renewed ? Lease.HELD : Lease.UNSURE;
	}

}
