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

package io.github.delayqueue.dashboard;

import java.time.Duration;

import io.github.delayqueue.core.DelayQueueAdmin;

/**
 * The overview's dead letters of the last 5 minutes, counted in the dead-letter streams
 * rather than in the history (which each engine adds to about every 10 s): shown at once.
 */
final class RecentDeadLetters {

	private RecentDeadLetters() {
	}

	/** How many dead letters of the last 5 minutes the overview counts, at most. */
	static final int RECENT_DEAD_COUNTED = 100;

	/**
	 * The dead letters of the last 5 minutes still in the queue's dead-letter streams,
	 * and the newest one's time: the newest entry of each partition (one read each, none
	 * when the queue has no dead letter), and, when it is recent, the entries since, at
	 * most {@value #RECENT_DEAD_COUNTED} per partition ({@code atLeast}: there may be
	 * more).
	 */
	static Recent of(DelayQueueAdmin admin, String queue, long dead) {
		if (dead <= 0) {
			return new Recent(0, false, null);
		}
		java.time.Instant newest = null;
		for (io.github.delayqueue.core.DeadLetterError error : admin.deadLetterErrors(queue, 1)) {
			newest = (newest == null || error.newest().isAfter(newest)) ? error.newest() : newest;
		}
		long since = System.currentTimeMillis() - Duration.ofMinutes(5).toMillis();
		if (newest == null || newest.toEpochMilli() < since) {
			return new Recent(0, false, newest);
		}
		io.github.delayqueue.core.PartitionLayout layout = admin.partitionLayout(queue);
		int partitions = Math.max(1, Math.max(layout.partitions(), layout.previous()));
		long count = 0;
		boolean atLeast = false;
		for (int partition = 0; partition < partitions; partition++) {
			String prefix = (partition == 0) ? "" : partition + ":";
			int inPartition = 0;
			for (io.github.delayqueue.core.DeadLetter letter : admin.deadLetters(queue,
					prefix + (since - 1) + "-" + Long.MAX_VALUE, RECENT_DEAD_COUNTED)) {
				// a later partition's oldest follow once this one's are read: not counted
				if (letter.entryId().startsWith(prefix) && (partition > 0 || letter.entryId().indexOf(':') < 0)) {
					inPartition++;
				}
			}
			count += inPartition;
			atLeast |= inPartition >= RECENT_DEAD_COUNTED;
		}
		return new Recent(count, atLeast, newest);
	}

	/** The count, whether there may be more, and the newest dead letter's time. */
	record Recent(long count, boolean atLeast, java.time.@org.jspecify.annotations.Nullable Instant newest) {

	}

}
