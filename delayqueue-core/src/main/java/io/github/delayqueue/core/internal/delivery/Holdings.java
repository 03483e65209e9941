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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The deliveries one container holds, and the capacity left: at most
 * {@code concurrency + prefetch} at once, over all the partitions it reads. A delivery is
 * added when read or recovered and removed exactly once when settled or released, so the
 * count cannot drift.
 */
public final class Holdings {

	/**
	 * Bumped by every delivery held; see {@link #received()}. Plain: written after the
	 * map's update, read by the watchdog once per round, a value a round late is enough.
	 */
	private int received;

	/** Grows when a change of the partition count adds old partitions to read. */
	private volatile int limit;

	/** By stream and entry id: never two deliveries of one entry. */
	private final Map<String, Delivery> held = new ConcurrentHashMap<>();

	private final WaitingLine waiting;

	private final Object capacity = new Object();

	/** Workers waiting in {@link #next}. */
	private final AtomicInteger idle = new AtomicInteger();

	/** Slots promised to reads under way, not yet held: they count as taken. */
	private final AtomicInteger reserved = new AtomicInteger();

	/** How many deliveries each partition's reader reads ahead. */
	private final int readAhead;

	/**
	 * @param limit the most deliveries held at once
	 * @param ordered whether the deliveries of a partition run one at a time
	 * @param readAhead how many deliveries each partition's reader reads ahead
	 */
	Holdings(int limit, boolean ordered, int readAhead) {
		this.limit = limit;
		this.readAhead = readAhead;
		this.waiting = WaitingLine.create(ordered);
	}

	/**
	 * Raises the limit: a partition was added, with its read-ahead.
	 * @param slots how many more deliveries may be held
	 */
	void grow(int slots) {
		this.limit += slots;
		synchronized (this.capacity) {
			this.capacity.notifyAll();
		}
	}

	int limit() {
		return this.limit;
	}

	/**
	 * @return how many deliveries each partition's reader reads ahead: the prefetch, at
	 * least a batch for a batch listener
	 */
	int readAhead() {
		return this.readAhead;
	}

	/**
	 * Promises up to {@code wanted} free slots to a read, so that readers of several
	 * partitions sharing these holdings never read more than the limit between them.
	 * @return the slots granted, 0 when none is free
	 */
	int reserve(int wanted) {
		while (true) {
			int current = this.reserved.get();
			int granted = Math.max(0, Math.min(wanted, this.limit - this.held.size() - current));
			if (granted == 0 || this.reserved.compareAndSet(current, current + granted)) {
				return granted;
			}
		}
	}

	/** Gives back slots a read reserved and did not use. */
	void unreserve(int slots) {
		if (slots > 0) {
			this.reserved.addAndGet(-slots);
			synchronized (this.capacity) {
				this.capacity.notifyAll();
			}
		}
	}

	/**
	 * Holds a delivery read or recovered, unless a delivery of the same entry is held
	 * already (a reader's re-read of its pending entries racing the watchdog's recovery
	 * of the same entry): one entry is never handed to two handlers of this container.
	 * @return whether it is held now
	 */
	boolean accept(Delivery delivery) {
		if (this.held.putIfAbsent(key(delivery.stream, delivery.entryId), delivery) != null) {
			return false;
		}
		// readers of several partitions may lose an increment: it changes all the same
		this.received++;
		this.waiting.add(delivery);
		return true;
	}

	/**
	 * @return a count that changes whenever a delivery is held (for idle events)
	 */
	int received() {
		return this.received;
	}

	private static String key(String stream, String entryId) {
		return stream + '\0' + entryId;
	}

	/**
	 * Takes the next waiting delivery; {@code null} after the timeout or an interrupt.
	 */
	Delivery next(long timeoutMillis) {
		this.idle.incrementAndGet();
		try {
			return this.waiting.next(timeoutMillis);
		}
		catch (InterruptedException ex) {
			// a handler left the flag set, or the pool abandons this worker: the worker
			// decides whether to go on
			return null;
		}
		finally {
			this.idle.decrementAndGet();
		}
	}

	/**
	 * Sets what runs when a delivery may be taken and no worker waits for it.
	 * @param unserved the action: the pool hands a worker to its executor
	 */
	void whenUnserved(Runnable unserved) {
		this.waiting.whenUnserved(unserved);
	}

	/**
	 * @return whether a delivery waits that a worker may take now
	 */
	boolean hasWaiting() {
		return this.waiting.hasWaiting();
	}

	/** Lets every worker waiting in {@link #next} return empty-handed. */
	void wakeAll() {
		this.waiting.wakeAll();
	}

	/**
	 * @return how many workers wait for a delivery now: those a delivery held now goes to
	 * at once
	 */
	int idleWorkers() {
		return this.idle.get();
	}

	void finished(Delivery delivery) {
		if (this.held.remove(key(delivery.stream, delivery.entryId), delivery)) {
			synchronized (this.capacity) {
				this.capacity.notifyAll();
			}
		}
	}

	/** Puts back a delivery {@link #next} gave whose handler did not start. */
	void putBack(Delivery delivery) {
		this.waiting.putBack(delivery);
	}

	/**
	 * The handler of a delivery {@link #next} gave returned or was given up: in ordered
	 * mode, the next delivery of its partition may run.
	 */
	void done(Delivery delivery) {
		this.waiting.done(delivery);
	}

	/** Removes and returns the deliveries no worker took. */
	List<Delivery> drainWaiting() {
		return this.waiting.drain();
	}

	/** Removes and returns the deliveries of one partition no worker took. */
	List<Delivery> drainWaiting(int partition) {
		return this.waiting.drain(partition);
	}

	/**
	 * @param partition a partition of the queue
	 * @return how many deliveries of that partition are held
	 */
	int heldIn(int partition) {
		int count = 0;
		for (Delivery delivery : this.held.values()) {
			if (WaitingLine.partitionOf(delivery) == partition) {
				count++;
			}
		}
		return count;
	}

	int size() {
		return this.held.size();
	}

	int free() {
		return this.limit - this.held.size() - this.reserved.get();
	}

	/** Waits up to the timeout until at least {@code slots} are free. */
	void awaitFree(int slots, long timeoutMillis) {
		synchronized (this.capacity) {
			if (free() < slots) {
				try {
					this.capacity.wait(timeoutMillis);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}
	}

	Iterable<Delivery> all() {
		return this.held.values();
	}

	boolean holds(String stream, String entryId) {
		return this.held.containsKey(key(stream, entryId));
	}

	List<String> entryIds(String stream, boolean runningOnly) {
		List<String> ids = new ArrayList<>();
		for (Delivery delivery : this.held.values()) {
			if (delivery.stream.equals(stream) && (!runningOnly || delivery.isRunning())) {
				ids.add(delivery.entryId);
			}
		}
		return ids;
	}

}
