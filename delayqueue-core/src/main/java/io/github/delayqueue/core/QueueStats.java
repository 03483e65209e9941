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
 * A snapshot of one queue, read without SCAN.
 *
 * @param queue the queue
 * @param scheduled messages waiting for their due time
 * @param ready due messages not yet read by the slowest group (its lag; the stream length
 * when no group exists yet, -1 when the server cannot tell)
 * @param inFlight deliveries read and not yet acknowledged, over all groups
 * @param dead dead letters
 * @param groups per consumer group
 */
public record QueueStats(String queue, long scheduled, long ready, long inFlight, long dead, List<GroupStats> groups) {

	/**
	 * One consumer group of a queue.
	 *
	 * @param group the group
	 * @param consumers consumers known to the group
	 * @param pending deliveries read and not yet acknowledged (main and retry stream)
	 * @param lag due messages the group has not read yet (-1 when the server cannot tell,
	 * before Redis 7)
	 * @param retryScheduled retries waiting for their backoff
	 */
	public record GroupStats(String group, long consumers, long pending, long lag, long retryScheduled) {
	}

}
