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
 * @param version the Redis version the server implements ({@code redis_version} of
 * {@code INFO server}: Valkey reports 7.2.4, the Redis release it continues), or
 * {@code null} when it could not be read. What the engine uses of the server (script
 * flags, the {@code XINFO} fields of the ready count) it decides on what the server
 * answers, not on this version
 * @param maxmemoryPolicy the {@code maxmemory-policy}, or {@code null} when it could not
 * be read (e.g. a managed Redis that disables {@code CONFIG})
 * @param appendOnly whether AOF is on, or {@code null} when unknown
 * @param appendFsync the {@code appendfsync} policy, or {@code null} when unknown
 * @param replicas how many replicas the master has connected, or {@code null} when
 * unknown
 * @param minReplicasToWrite the {@code min-replicas-to-write}, or {@code null} when
 * unknown
 * @param server the server's name and its own version, as it names itself:
 * {@code Redis 7.0.15}, or {@code Valkey 8.0.1} ({@code server_name} and
 * {@code valkey_version} of {@code INFO server}); {@code null} when unknown
 */
public record ServerCheck(String version, String maxmemoryPolicy, Boolean appendOnly, String appendFsync,
		Integer replicas, Integer minReplicasToWrite, String server) {

	/**
	 * A check of a server that does not name itself otherwise: a Redis of this version.
	 * @param version the server's version, or {@code null}
	 * @param maxmemoryPolicy the {@code maxmemory-policy}, or {@code null}
	 * @param appendOnly whether AOF is on, or {@code null}
	 * @param appendFsync the {@code appendfsync} policy, or {@code null}
	 * @param replicas how many replicas the master has connected, or {@code null}
	 * @param minReplicasToWrite the {@code min-replicas-to-write}, or {@code null}
	 */
	public ServerCheck(String version, String maxmemoryPolicy, Boolean appendOnly, String appendFsync, Integer replicas,
			Integer minReplicasToWrite) {
		this(version, maxmemoryPolicy, appendOnly, appendFsync, replicas, minReplicasToWrite,
				(version != null) ? "Redis " + version : null);
	}

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
	 * Names the server for a log line: {@code Redis 7.0.15}, or
	 * {@code Valkey 8.0.1 (redis_version
	 * 7.2.4)} for a server that is not Redis.
	 * @return the server's name and versions, or {@code "an unknown server"}
	 */
	public String describeServer() {
		if (this.server == null) {
			return (this.version != null) ? "Redis " + this.version : "an unknown server";
		}
		boolean redis = this.version == null || this.server.equals("Redis " + this.version);
		return redis ? this.server : this.server + " (redis_version " + this.version + ")";
	}

	/**
	 * The server's product name, for messages: {@code Valkey} on Valkey, {@code Redis} on
	 * Redis or an unknown server.
	 * @return the name
	 */
	public String product() {
		return (this.server != null && !this.server.isBlank()) ? this.server.split(" ", 2)[0] : "Redis";
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
	 * the oldest version (and the server that has it), an evicting policy if any master
	 * has one, AOF off if any master has it off, the least safe fsync policy, and a
	 * replicated master that writes without its replicas if any does. A setting unknown
	 * on every server stays unknown.
	 * @param checks the checks of each server
	 * @return the weakest
	 */
	public static ServerCheck weakest(List<ServerCheck> checks) {
		String version = null;
		String server = null;
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
			if (check.version != null && (version == null || older(check, version, server))) {
				version = check.version;
				server = check.server;
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
		return new ServerCheck(version, policy, appendOnly, fsync, replicas, minReplicas, server);
	}

	/** Whether the check's server is older than the one of this version and name. */
	private static boolean older(ServerCheck check, String version, String server) {
		int compared = ServerChecks.compareVersions(check.version, version);
		if (compared != 0 || check.server == null || server == null) {
			return compared < 0;
		}
		// the same redis_version (every Valkey reports 7.2.4): the older own version
		String[] own = check.server.split(" ", 2);
		String[] other = server.split(" ", 2);
		return own.length == 2 && other.length == 2 && own[0].equals(other[0])
				&& ServerChecks.compareVersions(own[1], other[1]) < 0;
	}

	/** The fsync policies, least safe first. */
	private static final List<String> FSYNC_SAFETY = List.of("no", "everysec", "always");

	/**
	 * Describes each setting that weakens the guarantees, as a sentence for a log.
	 * @return the problems, empty when none is known
	 */
	public List<String> problems() {
		List<String> problems = new ArrayList<>();
		String product = product();
		if (mayEvict()) {
			problems.add(product + " maxmemory-policy is '" + this.maxmemoryPolicy + "': when " + product
					+ " runs out of memory it may evict delayqueue's keys and lose messages silently. "
					+ "Set maxmemory-policy to noeviction (then sends fail clearly instead)");
		}
		if (Boolean.FALSE.equals(this.appendOnly)) {
			problems.add(product + " appendonly is 'no': a " + product
					+ " restart loses the messages written since the last "
					+ "snapshot. Set appendonly yes (and appendfsync always to lose no acknowledged send)");
		}
		if (writesWithoutReplicas()) {
			problems.add("The " + product + " master has " + this.replicas
					+ " replica(s) and min-replicas-to-write 0: after a "
					+ "failover in which it lives on (a planned failover, a stalled master that comes back) it takes "
					+ "writes until the Sentinels turn it into a replica, some 10 s later, and then discards them. "
					+ "Set min-replicas-to-write 1 and min-replicas-max-lag to the seconds of writes you can lose "
					+ "(see docs/operations.md, split brain)");
		}
		return problems;
	}

}
