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

package io.github.delayqueue.core;

import java.util.List;

/**
 * A queue's partition count as Redis holds it, and the state of a change of that count.
 *
 * @param queue the queue
 * @param partitions the partition count sends go to
 * @param previous the count before a change still in progress; 0 when none is
 * @param held what the old partitions of that change still hold, one line each (e.g.
 * {@code partition 5: 3 scheduled message(s)}); empty when they drained or no change is
 * in progress
 * @see DelayQueueAdmin#changePartitions(String, int)
 */
public record PartitionLayout(String queue, int partitions, int previous, List<String> held) {

	/**
	 * Creates a layout.
	 * @param queue the queue
	 * @param partitions the partition count
	 * @param previous the count before a change in progress, or 0
	 * @param held what the old partitions still hold
	 */
	public PartitionLayout {
		held = List.copyOf(held);
	}

	/**
	 * @return whether a change of the partition count is in progress
	 */
	public boolean changing() {
		return this.previous > 0;
	}

}
