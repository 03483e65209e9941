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
 * @param replicas how many replicas the master has connected, or {@code null} when
 * unknown
 * @param minReplicasToWrite the {@code min-replicas-to-write}, or {@code null} when
 * unknown
 */
public record ServerCheck(String version, String maxmemoryPolicy, Boolean appendOnly, String appendFsync,
		Integer replicas, Integer minReplicasToWrite) {

	/**
	 * A check that knows nothing of replication.
	 * @param version the server's version, or {@code null}
	 * @param maxmemoryPolicy the {@code maxmemory-policy}, or {@code null}
	 * @param appendOnly whether AOF is on, or {@code null}
	 * @param appendFsync the {@code appendfsync} policy, or {@code null}
	 */
	public ServerCheck(String version, String maxmemoryPolicy, Boolean appendOnly, String appendFsync) {
		this(version, maxmemoryPolicy, appendOnly, appendFsync, null, null);
	}

	/**
	 * Returns whether the master has replicas and takes writes whatever they received:
	 * after a failover where it lives on, it takes writes that are then lost (see
	 * {@link #problems()}).
	 * @return whether {@code min-replicas-to-write} is known to be 0 on a replicated
	 * master
	 */
	public boolean writesWithoutReplicas() {
		return this.replicas != null && this.replicas > 0 && this.minReplicasToWrite != null
				&& this.minReplicasToWrite == 0;
	}

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
	 * has it off, the least safe fsync policy, and a replicated master that writes
	 * without its replicas if any does. A setting unknown on every server stays unknown.
	 * @param checks the checks of each server
	 * @return the weakest
	 */
	public static ServerCheck weakest(List<ServerCheck> checks) {
		String version = null;
		String policy = null;
		String fsync = null;
		boolean anyAofOff = false;
		boolean anyAofUnknown = checks.isEmpty();
		ServerCheck unfenced = null;
		Integer replicas = null;
		Integer minReplicas = null;
		for (ServerCheck check : checks) {
			if (check.writesWithoutReplicas()) {
				unfenced = check;
			}
			else if (unfenced == null && check.replicas != null) {
				replicas = check.replicas;
				minReplicas = check.minReplicasToWrite;
			}
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
		if (unfenced != null) {
			replicas = unfenced.replicas;
			minReplicas = unfenced.minReplicasToWrite;
		}
		return new ServerCheck(version, policy, appendOnly, fsync, replicas, minReplicas);
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
		if (writesWithoutReplicas()) {
			problems.add("The Redis master has " + this.replicas + " replica(s) and min-replicas-to-write 0: after a "
					+ "failover in which it lives on (a planned failover, a stalled master that comes back) it takes "
					+ "writes until the Sentinels turn it into a replica, some 10 s later, and then discards them. "
					+ "Set min-replicas-to-write 1 and min-replicas-max-lag to the seconds of writes you can lose "
					+ "(see docs/operations.md, split brain)");
		}
		return problems;
	}

}
