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

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The deliveries read and not yet taken by a worker. Unordered: one line, any worker
 * takes the next, the highest priority first. Ordered: a line per partition, and a
 * partition whose delivery a worker runs gives none to another worker until that one is
 * {@link #done done}, so the messages of a partition run one at a time, in the order
 * read.
 * <p>
 * A lock and its condition rather than {@code synchronized} and {@code wait}: workers may
 * be virtual threads, and a worker waiting here must leave its carrier free (on Java 21 a
 * {@code wait} in a monitor pins it, and on Java 25 the test of issue 49 saw it still
 * pinned for the whole timed wait).
 */
abstract sealed class WaitingLine permits SharedLine, PartitionLines {

	final ReentrantLock lock = new ReentrantLock();

	/** Signalled when a delivery may be taken. */
	final Condition available = this.lock.newCondition();

	/**
	 * How many places one step of priority moves a delivery ahead in a shared line.
	 */
	static final int AGING = 64;

	/** Workers waiting for a delivery. */
	private int parked;

	/** A parked worker was woken and has not come back yet. */
	private boolean waking;

	/** Bumped by {@link #wakeAll}: a parked worker returns empty-handed. */
	private int wakeAlls;

	/** Runs when a delivery may be taken and no parked worker is there to take it. */
	private volatile Runnable unserved = () -> {
	};

	static WaitingLine create(boolean ordered) {
		return ordered ? new PartitionLines() : new SharedLine();
	}

	/**
	 * Sets what runs, outside the line's lock, when a delivery may be taken and no worker
	 * waits for it: the pool hands a worker to its executor.
	 * @param unserved the action
	 */
	final void whenUnserved(Runnable unserved) {
		this.unserved = unserved;
	}

	abstract void add(Delivery delivery);

	/**
	 * Puts back a delivery {@link #next} gave whose handler did not start (a batch took
	 * no concurrency slot for it): it is taken again first of its partition.
	 */
	abstract void putBack(Delivery delivery);

	/** The handler of a delivery {@link #next} gave returned, or was given up. */
	abstract void done(Delivery delivery);

	/** Removes and returns the deliveries of a partition no worker took. */
	abstract List<Delivery> drain(int partition);

	/** Removes and returns every delivery no worker took. */
	abstract List<Delivery> drain();

	/** Whether a delivery may be taken now; called under the lock. */
	abstract boolean takeable();

	/** Takes the next delivery, {@link #takeable()} being true; called under the lock. */
	abstract Delivery take();

	/**
	 * @return whether a delivery may be taken now
	 */
	final boolean hasWaiting() {
		this.lock.lock();
		try {
			return takeable();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * The next delivery a worker may run, waiting for one up to the timeout, parked. A
	 * delivery added wakes one parked worker unless a wake is under way; the woken
	 * worker, once it took its delivery, wakes the next while more wait, and when none is
	 * parked the line asks for another worker ({@link #whenUnserved}). So a read of
	 * dozens of entries wakes a few threads, not one per entry, and workers back from a
	 * short handler take the rest without parking.
	 * @return the delivery; {@code null} after the timeout or a {@link #wakeAll}
	 */
	final Delivery next(long timeoutMillis) throws InterruptedException {
		boolean unserved = false;
		this.lock.lock();
		try {
			int seen = this.wakeAlls;
			long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
			while (!takeable()) {
				long left = deadline - System.nanoTime();
				if (left <= 0 || this.wakeAlls != seen) {
					return null;
				}
				this.parked++;
				try {
					this.available.awaitNanos(left);
				}
				catch (InterruptedException ex) {
					// a worker given up: the wake it may have taken goes to another
					this.parked--;
					this.waking = false;
					unserved = takeable() && offered();
					throw ex;
				}
				this.parked--;
				this.waking = false;
			}
			Delivery next = take();
			unserved = takeable() && offered();
			return next;
		}
		finally {
			this.lock.unlock();
			if (unserved) {
				this.unserved.run();
			}
		}
	}

	/**
	 * A delivery may be taken: wakes a parked worker unless a wake is under way; called
	 * under the lock.
	 * @return whether no worker is parked to take it: then one is asked for
	 */
	final boolean offered() {
		if (this.parked == 0) {
			return true;
		}
		if (!this.waking) {
			this.waking = true;
			this.available.signal();
		}
		return false;
	}

	/**
	 * Changes the line under its lock, then asks for a worker outside it when the change
	 * made a delivery takeable that no parked worker takes.
	 * @param change the change; returns what {@link #offered} said, or {@code false}
	 */
	final void change(BooleanSupplier change) {
		boolean unserved;
		this.lock.lock();
		try {
			unserved = change.getAsBoolean();
		}
		finally {
			this.lock.unlock();
		}
		if (unserved) {
			this.unserved.run();
		}
	}

	/** Runs an action on the line under its lock. */
	final <T> T underLock(Supplier<T> action) {
		this.lock.lock();
		try {
			return action.get();
		}
		finally {
			this.lock.unlock();
		}
	}

	/** Lets every parked worker return empty-handed: the pool stops. */
	final void wakeAll() {
		this.lock.lock();
		try {
			this.wakeAlls++;
			this.available.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	static int partitionOf(Delivery delivery) {
		return delivery.context.keys().partition();
	}

}
