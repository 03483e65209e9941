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
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The deliveries one container holds, and the capacity left: at most
 * {@code concurrency + prefetch} at once. A delivery is added when read or recovered and
 * removed exactly once when settled or released, so the count cannot drift.
 */
public final class Holdings {

	private final int limit;

	private final Set<Delivery> held = ConcurrentHashMap.newKeySet();

	private final BlockingQueue<Delivery> waiting = new LinkedBlockingQueue<>();

	private final Object capacity = new Object();

	Holdings(int limit) {
		this.limit = limit;
	}

	void accept(Delivery delivery) {
		this.held.add(delivery);
		this.waiting.add(delivery);
	}

	/**
	 * Takes the next waiting delivery; {@code null} after the timeout or an interrupt.
	 */
	Delivery next(long timeoutMillis) {
		try {
			return this.waiting.poll(timeoutMillis, TimeUnit.MILLISECONDS);
		}
		catch (InterruptedException ex) {
			// a handler left the flag set, or the pool abandons this worker: the worker
			// decides whether to go on
			return null;
		}
	}

	void finished(Delivery delivery) {
		if (this.held.remove(delivery)) {
			synchronized (this.capacity) {
				this.capacity.notifyAll();
			}
		}
	}

	/** Removes and returns the deliveries no worker took. */
	List<Delivery> drainWaiting() {
		List<Delivery> drained = new ArrayList<>();
		this.waiting.drainTo(drained);
		return drained;
	}

	int size() {
		return this.held.size();
	}

	int free() {
		return this.limit - this.held.size();
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
		return this.held;
	}

	boolean holds(String stream, String entryId) {
		for (Delivery delivery : this.held) {
			if (delivery.entryId.equals(entryId) && delivery.stream.equals(stream)) {
				return true;
			}
		}
		return false;
	}

	List<String> entryIds(String stream, boolean runningOnly) {
		List<String> ids = new ArrayList<>();
		for (Delivery delivery : this.held) {
			if (delivery.stream.equals(stream) && (!runningOnly || delivery.isRunning())) {
				ids.add(delivery.entryId);
			}
		}
		return ids;
	}

}
