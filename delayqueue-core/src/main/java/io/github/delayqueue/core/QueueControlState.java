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

import java.util.Set;

/**
 * A queue's flow controls as Redis holds them: whether it is paused, and which of its
 * consumer groups are paused on their own.
 *
 * @param queue the queue
 * @param paused whether the whole queue is paused: no group starts a handler
 * @param pausedGroups the groups paused on their own, sorted
 * @see DelayQueueAdmin#pause(String)
 * @see DelayQueueAdmin#pause(String, String)
 */
public record QueueControlState(String queue, boolean paused, Set<String> pausedGroups) {

	/**
	 * Creates a state.
	 * @param queue the queue
	 * @param paused whether the whole queue is paused
	 * @param pausedGroups the groups paused on their own
	 */
	public QueueControlState {
		pausedGroups = Set.copyOf(pausedGroups);
	}

	/**
	 * @param group a consumer group
	 * @return whether that group starts no handler: the queue or the group is paused
	 */
	public boolean isPaused(String group) {
		return this.paused || this.pausedGroups.contains(group);
	}

}
