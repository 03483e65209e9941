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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A line per partition: a partition whose delivery a worker runs gives none to another
 * worker until that one is {@link #done done}, so the messages of a partition run one at
 * a time, in the order read.
 */
final class PartitionLines extends WaitingLine {

	private final Map<Integer, ArrayDeque<Delivery>> lines = new HashMap<>();

	/**
	 * Partitions with a waiting delivery and none running, in the order they got ready.
	 */
	private final ArrayDeque<Integer> ready = new ArrayDeque<>();

	/** Partitions whose delivery runs, with that delivery. */
	private final Map<Integer, Delivery> running = new HashMap<>();

	@Override
	void add(Delivery delivery) {
		change(() -> {
			int partition = partitionOf(delivery);
			this.lines.computeIfAbsent(partition, (key) -> new ArrayDeque<>()).add(delivery);
			return makeReady(partition);
		});
	}

	@Override
	boolean takeable() {
		return !this.ready.isEmpty();
	}

	@Override
	Delivery take() {
		int partition = this.ready.poll();
		Delivery delivery = this.lines.get(partition).poll();
		this.running.put(partition, delivery);
		return delivery;
	}

	@Override
	void putBack(Delivery delivery) {
		change(() -> {
			int partition = partitionOf(delivery);
			if (this.running.get(partition) == delivery) {
				this.running.remove(partition);
			}
			this.lines.computeIfAbsent(partition, (key) -> new ArrayDeque<>()).addFirst(delivery);
			return makeReady(partition);
		});
	}

	@Override
	void done(Delivery delivery) {
		change(() -> {
			int partition = partitionOf(delivery);
			if (this.running.get(partition) == delivery) {
				this.running.remove(partition);
				return makeReady(partition);
			}
			return false;
		});
	}

	/**
	 * @return whether the partition got ready with no parked worker to take it
	 */
	private boolean makeReady(int partition) {
		ArrayDeque<Delivery> line = this.lines.get(partition);
		if (!this.running.containsKey(partition) && line != null && !line.isEmpty()
				&& !this.ready.contains(partition)) {
			this.ready.add(partition);
			return offered();
		}
		return false;
	}

	@Override
	List<Delivery> drain(int partition) {
		return underLock(() -> {
			ArrayDeque<Delivery> line = this.lines.remove(partition);
			this.ready.remove(partition);
			return (line != null) ? new ArrayList<>(line) : new ArrayList<>();
		});
	}

	@Override
	List<Delivery> drain() {
		return underLock(() -> {
			List<Delivery> drained = new ArrayList<>();
			this.lines.values().forEach(drained::addAll);
			this.lines.clear();
			this.ready.clear();
			return drained;
		});
	}

}
