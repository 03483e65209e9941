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

import io.github.delayqueue.core.internal.redis.ServerChecks;

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
	 * Combines the checks of several servers (the masters of a cluster) into the weakest:
	 * the oldest version, an evicting policy if any master has one, AOF off if any master
	 * has it off, and the least safe fsync policy. A setting unknown on every server
	 * stays unknown.
	 * @param checks the checks of each server
	 * @return the weakest
	 */
	public static ServerCheck weakest(List<ServerCheck> checks) {
		String version = null;
		String policy = null;
		String fsync = null;
		boolean anyAofOff = false;
		boolean anyAofUnknown = checks.isEmpty();
		for (ServerCheck check : checks) {
			if (check.version != null
					&& (version == null || ServerChecks.compareVersions(check.version, version) < 0)) {
				version = check.version;
			}
			if (check.maxmemoryPolicy != null
					&& (policy == null || ("noeviction".equals(policy) && check.mayEvict()))) {
				policy = check.maxmemoryPolicy;
			}
			anyAofOff |= Boolean.FALSE.equals(check.appendOnly);
			anyAofUnknown |= check.appendOnly == null;
			if (check.appendFsync != null
					&& (fsync == null || FSYNC_SAFETY.indexOf(check.appendFsync) < FSYNC_SAFETY.indexOf(fsync))) {
				fsync = check.appendFsync;
			}
		}
		Boolean appendOnly = anyAofOff ? Boolean.FALSE : anyAofUnknown ? null : Boolean.TRUE;
		return new ServerCheck(version, policy, appendOnly, fsync);
	}

	/** The fsync policies, least safe first. */
	private static final List<String> FSYNC_SAFETY = List.of("no", "everysec", "always");

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
