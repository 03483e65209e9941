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

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

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
abstract sealed class WaitingLine permits WaitingLine.Shared, WaitingLine.PerPartition {

	final ReentrantLock lock = new ReentrantLock();

	/** Signalled when a delivery may be taken. */
	final Condition available = this.lock.newCondition();

	/**
	 * How many places one step of priority moves a delivery ahead in a shared line.
	 */
	static final int AGING = 64;

	static WaitingLine create(boolean ordered) {
		return ordered ? new PerPartition() : new Shared();
	}

	abstract void add(Delivery delivery);

	/** The next delivery a worker may run; {@code null} after the timeout. */
	abstract Delivery next(long timeoutMillis) throws InterruptedException;

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

	static int partitionOf(Delivery delivery) {
		return delivery.context.keys().partition();
	}

	/**
	 * One line for all workers. A delivery added wakes one parked worker, unless a wake
	 * is under way already; the woken worker, once it took its delivery, wakes the next
	 * while more wait. Workers coming back from a short handler take the rest without
	 * parking, so a read of dozens of entries wakes a few threads, not one per entry;
	 * with long handlers the chain goes on until every waiting delivery has a worker.
	 */
	static final class Shared extends WaitingLine {

		/**
		 * In the order added, a delivery of priority p moved ahead by p × {@link #AGING}
		 * places: it passes the lower ones added shortly before it, never one that has
		 * waited for long (no starving).
		 */
		private final PriorityQueue<Waiting> line = new PriorityQueue<>(16,
				Comparator.comparingLong(Waiting::rank).thenComparingLong(Waiting::sequence));

		private long sequence;

		/** Workers waiting for a delivery. */
		private int parked;

		/** A parked worker was woken and has not come back yet. */
		private boolean waking;

		@Override
		void add(Delivery delivery) {
			this.lock.lock();
			try {
				this.line.add(new Waiting(delivery, ++this.sequence));
				wakeOne();
			}
			finally {
				this.lock.unlock();
			}
		}

		@Override
		void putBack(Delivery delivery) {
			this.lock.lock();
			try {
				// ahead of those added after it was: the sequence it would have had,
				// about
				this.line.add(new Waiting(delivery, this.sequence - this.line.size()));
				wakeOne();
			}
			finally {
				this.lock.unlock();
			}
		}

		private void wakeOne() {
			if (this.parked > 0 && !this.waking) {
				this.waking = true;
				this.available.signal();
			}
		}

		@Override
		Delivery next(long timeoutMillis) throws InterruptedException {
			this.lock.lock();
			try {
				boolean woken = false;
				long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
				while (this.line.isEmpty()) {
					long left = deadline - System.nanoTime();
					if (left <= 0) {
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
						if (!this.line.isEmpty()) {
							wakeOne();
						}
						throw ex;
					}
					this.parked--;
					this.waking = false;
					woken = true;
				}
				Waiting next = this.line.poll();
				if (woken && !this.line.isEmpty()) {
					wakeOne();
				}
				return next.delivery();
			}
			finally {
				this.lock.unlock();
			}
		}

		@Override
		void done(Delivery delivery) {
		}

		@Override
		List<Delivery> drain(int partition) {
			this.lock.lock();
			try {
				List<Delivery> drained = new ArrayList<>();
				this.line.removeIf(
						(waiting) -> partitionOf(waiting.delivery()) == partition && drained.add(waiting.delivery()));
				return drained;
			}
			finally {
				this.lock.unlock();
			}
		}

		@Override
		List<Delivery> drain() {
			this.lock.lock();
			try {
				List<Delivery> drained = new ArrayList<>();
				while (!this.line.isEmpty()) {
					drained.add(this.line.poll().delivery());
				}
				return drained;
			}
			finally {
				this.lock.unlock();
			}
		}

		private record Waiting(Delivery delivery, long sequence) {

			long rank() {
				return this.sequence - (long) this.delivery.priority * AGING;
			}

		}

	}

	static final class PerPartition extends WaitingLine {

		private final Map<Integer, ArrayDeque<Delivery>> lines = new HashMap<>();

		/**
		 * Partitions with a waiting delivery and none running, in the order they got
		 * ready.
		 */
		private final ArrayDeque<Integer> ready = new ArrayDeque<>();

		/** Partitions whose delivery runs, with that delivery. */
		private final Map<Integer, Delivery> running = new HashMap<>();

		@Override
		void add(Delivery delivery) {
			this.lock.lock();
			try {
				int partition = partitionOf(delivery);
				this.lines.computeIfAbsent(partition, (key) -> new ArrayDeque<>()).add(delivery);
				makeReady(partition);
			}
			finally {
				this.lock.unlock();
			}
		}

		@Override
		Delivery next(long timeoutMillis) throws InterruptedException {
			this.lock.lock();
			try {
				long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
				while (this.ready.isEmpty()) {
					long left = deadline - System.nanoTime();
					if (left <= 0) {
						return null;
					}
					this.available.awaitNanos(left);
				}
				int partition = this.ready.poll();
				Delivery delivery = this.lines.get(partition).poll();
				this.running.put(partition, delivery);
				return delivery;
			}
			finally {
				this.lock.unlock();
			}
		}

		@Override
		void putBack(Delivery delivery) {
			this.lock.lock();
			try {
				int partition = partitionOf(delivery);
				if (this.running.get(partition) == delivery) {
					this.running.remove(partition);
				}
				this.lines.computeIfAbsent(partition, (key) -> new ArrayDeque<>()).addFirst(delivery);
				makeReady(partition);
			}
			finally {
				this.lock.unlock();
			}
		}

		@Override
		void done(Delivery delivery) {
			this.lock.lock();
			try {
				int partition = partitionOf(delivery);
				if (this.running.get(partition) == delivery) {
					this.running.remove(partition);
					makeReady(partition);
				}
			}
			finally {
				this.lock.unlock();
			}
		}

		private void makeReady(int partition) {
			ArrayDeque<Delivery> line = this.lines.get(partition);
			if (!this.running.containsKey(partition) && line != null && !line.isEmpty()
					&& !this.ready.contains(partition)) {
				this.ready.add(partition);
				this.available.signal();
			}
		}

		@Override
		List<Delivery> drain(int partition) {
			this.lock.lock();
			try {
				ArrayDeque<Delivery> line = this.lines.remove(partition);
				this.ready.remove(partition);
				return (line != null) ? new ArrayList<>(line) : new ArrayList<>();
			}
			finally {
				this.lock.unlock();
			}
		}

		@Override
		List<Delivery> drain() {
			this.lock.lock();
			try {
				List<Delivery> drained = new ArrayList<>();
				this.lines.values().forEach(drained::addAll);
				this.lines.clear();
				this.ready.clear();
				return drained;
			}
			finally {
				this.lock.unlock();
			}
		}

	}

}
