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
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * One line for all workers, the highest priority first.
 */
final class SharedLine extends WaitingLine {

	/**
	 * In the order added, a delivery of priority p moved ahead by p × {@link #AGING}
	 * places: it passes the lower ones added shortly before it, never one that has waited
	 * for long (no starving).
	 */
	private final PriorityQueue<Waiting> line = new PriorityQueue<>(16,
			Comparator.comparingLong(Waiting::rank).thenComparingLong(Waiting::sequence));

	private long sequence;

	@Override
	void add(Delivery delivery) {
		change(() -> {
			this.line.add(new Waiting(delivery, ++this.sequence));
			return offered();
		});
	}

	@Override
	void putBack(Delivery delivery) {
		change(() -> {
			// ahead of those added after it was: the sequence it would have had,
			// about
			this.line.add(new Waiting(delivery, this.sequence - this.line.size()));
			return offered();
		});
	}

	@Override
	boolean takeable() {
		return !this.line.isEmpty();
	}

	@Override
	Delivery take() {
		return this.line.poll().delivery();
	}

	@Override
	void done(Delivery delivery) {
	}

	@Override
	List<Delivery> drain(int partition) {
		return underLock(() -> {
			List<Delivery> drained = new ArrayList<>();
			this.line
				.removeIf((waiting) -> partitionOf(waiting.delivery()) == partition && drained.add(waiting.delivery()));
			return drained;
		});
	}

	@Override
	List<Delivery> drain() {
		return underLock(() -> {
			List<Delivery> drained = new ArrayList<>();
			while (!this.line.isEmpty()) {
				drained.add(this.line.poll().delivery());
			}
			return drained;
		});
	}

	private record Waiting(Delivery delivery, long sequence) {

		long rank() {
			return this.sequence - (long) this.delivery.priority * AGING;
		}

	}

}
