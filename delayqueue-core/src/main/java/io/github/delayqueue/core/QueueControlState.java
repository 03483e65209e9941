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

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A queue's flow controls as Redis holds them: whether it is paused, which of its
 * consumer groups are paused on their own, its rate limits and its concurrency limits.
 *
 * @param queue the queue
 * @param paused whether the whole queue is paused: no group starts a handler
 * @param pausedGroups the groups paused on their own, sorted
 * @param rateLimit the rate limit of each group of the queue, or {@code null}
 * @param groupRateLimits the rate limits set for one group, which win over the queue's
 * @param concurrencyLimit the concurrency limit of each group of the queue, or
 * {@code null}
 * @param groupConcurrencyLimits the concurrency limits set for one group, which win over
 * the queue's
 * @see DelayQueueAdmin#pause(String)
 * @see DelayQueueAdmin#pause(String, String)
 * @see DelayQueueAdmin#limitRate(String, RateLimit)
 */
public record QueueControlState(String queue, boolean paused, Set<String> pausedGroups, RateLimit rateLimit,
		Map<String, RateLimit> groupRateLimits, ConcurrencyLimit concurrencyLimit,
		Map<String, ConcurrencyLimit> groupConcurrencyLimits) {

	/**
	 * Creates a state.
	 * @param queue the queue
	 * @param paused whether the whole queue is paused
	 * @param pausedGroups the groups paused on their own
	 * @param rateLimit the rate limit of each group of the queue, or {@code null}
	 * @param groupRateLimits the rate limits set for one group
	 * @param concurrencyLimit the concurrency limit of each group of the queue, or
	 * {@code null}
	 * @param groupConcurrencyLimits the concurrency limits set for one group
	 */
	public QueueControlState {
		pausedGroups = Set.copyOf(pausedGroups);
		groupRateLimits = Collections.unmodifiableMap(new TreeMap<>(groupRateLimits));
		groupConcurrencyLimits = Collections.unmodifiableMap(new TreeMap<>(groupConcurrencyLimits));
	}

	/**
	 * A state without concurrency limits.
	 * @param queue the queue
	 * @param paused whether the whole queue is paused
	 * @param pausedGroups the groups paused on their own
	 * @param rateLimit the rate limit of each group of the queue, or {@code null}
	 * @param groupRateLimits the rate limits set for one group
	 */
	public QueueControlState(String queue, boolean paused, Set<String> pausedGroups, RateLimit rateLimit,
			Map<String, RateLimit> groupRateLimits) {
		this(queue, paused, pausedGroups, rateLimit, groupRateLimits, null, Map.of());
	}

	/**
	 * A state without rate limits.
	 * @param queue the queue
	 * @param paused whether the whole queue is paused
	 * @param pausedGroups the groups paused on their own
	 */
	public QueueControlState(String queue, boolean paused, Set<String> pausedGroups) {
		this(queue, paused, pausedGroups, null, Map.of(), null, Map.of());
	}

	/**
	 * @param group a consumer group
	 * @return the rate limit its handlers start under: its own, else the queue's, else
	 * {@code null}
	 */
	public RateLimit rateLimit(String group) {
		RateLimit own = this.groupRateLimits.get(group);
		return (own != null) ? own : this.rateLimit;
	}

	/**
	 * @param group a consumer group
	 * @return the concurrency limit its handlers run under: its own, else the queue's,
	 * else {@code null}
	 */
	public ConcurrencyLimit concurrencyLimit(String group) {
		ConcurrencyLimit own = this.groupConcurrencyLimits.get(group);
		return (own != null) ? own : this.concurrencyLimit;
	}

	/**
	 * @param group a consumer group
	 * @return whether that group starts no handler: the queue or the group is paused
	 */
	public boolean isPaused(String group) {
		return this.paused || this.pausedGroups.contains(group);
	}

}
