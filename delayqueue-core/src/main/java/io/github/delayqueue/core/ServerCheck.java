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

import java.util.ArrayList;
import java.util.List;

/**
 * What the Redis server's settings mean for delayqueue's guarantees, as read by
 * {@link DelayQueueAdmin#checkServer()}.
 *
 * @param version the server's version, or {@code null} when it could not be read
 * @param maxmemoryPolicy the {@code maxmemory-policy}, or {@code null} when it could not
 * be read (e.g. a managed Redis that disables {@code CONFIG})
 * @param appendOnly whether AOF is on, or {@code null} when unknown
 * @param appendFsync the {@code appendfsync} policy, or {@code null} when unknown
 */
public record ServerCheck(String version, String maxmemoryPolicy, Boolean appendOnly, String appendFsync) {

	/**
	 * Returns whether Redis may evict delayqueue's keys when it runs out of memory, which
	 * loses messages silently.
	 * @return whether the eviction policy is known and is not {@code noeviction}
	 */
	public boolean mayEvict() {
		return this.maxmemoryPolicy != null && !"noeviction".equals(this.maxmemoryPolicy);
	}

	/**
	 * Describes each setting that weakens the guarantees, as a sentence for a log.
	 * @return the problems, empty when none is known
	 */
	public List<String> problems() {
		List<String> problems = new ArrayList<>();
		if (mayEvict()) {
			problems.add("Redis maxmemory-policy is '" + this.maxmemoryPolicy
					+ "': when Redis runs out of memory it may evict delayqueue's keys and lose messages silently. "
					+ "Set maxmemory-policy to noeviction (then sends fail clearly instead)");
		}
		if (Boolean.FALSE.equals(this.appendOnly)) {
			problems.add("Redis appendonly is 'no': a Redis restart loses the messages written since the last "
					+ "snapshot. Set appendonly yes (and appendfsync always to lose no acknowledged send)");
		}
		return problems;
	}

}
