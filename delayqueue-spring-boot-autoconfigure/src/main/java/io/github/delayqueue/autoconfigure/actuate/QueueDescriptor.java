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

package io.github.delayqueue.autoconfigure.actuate;

import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.PartitionLayout;
import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.QueueStats;
import org.jspecify.annotations.Nullable;

/**
 * One queue's counts and a page of its dead letters.
 *
 * @param stats the counts
 * @param controls whether the queue, or which of its groups, is paused
 * @param sizeLimit the queue's maximum of waiting messages, {@code null} for none
 * @param partitions the partition count in Redis, and a change of it in progress
 * @param partitionOwners for each group consuming the queue exclusively or in order: the
 * consumer owning each partition
 * @param deadLetters the oldest dead letters (after the requested entry)
 * @param schedules the queue's recurring schedules
 * @param fairShare whether this application declares the queue fair-share
 * @param concurrencySlots for each group under a concurrency limit of the whole group:
 * the slots taken now, across every instance
 * @param error why the counts are missing (Redis did not answer in time), or {@code null}
 */
public record QueueDescriptor(@Nullable QueueStats stats, @Nullable QueueControlState controls,
		@Nullable Long sizeLimit, @Nullable PartitionLayout partitions,
		Map<String, Map<Integer, String>> partitionOwners, List<DeadLetterDescriptor> deadLetters,
		List<ScheduleDescriptor> schedules, boolean fairShare, Map<String, Long> concurrencySlots,
		@Nullable String error) {
}
