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

package io.github.delayqueue.core.internal.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.function.Function;

import io.github.delayqueue.core.ServerCheck;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisClusterServerCommands;
import org.springframework.data.redis.connection.RedisConnection;

/**
 * Reads what the Redis server says of itself: the settings that decide what delayqueue
 * can promise ({@code DelayQueueAdmin.checkServer()}), and its version, for a send that
 * needs a command of a later one.
 */
public final class ServerChecks {

	private ServerChecks() {
	}

	/**
	 * Reads the server's settings; on Redis Cluster every master, reporting the weakest.
	 * @param connection the connection
	 * @return what was read
	 */
	public static ServerCheck check(RedisConnection connection) {
		if (connection instanceof RedisClusterConnection cluster) {
			// a cluster connection's INFO and CONFIG name every key after its node:
			// read each master on its own, and report the weakest
			List<ServerCheck> masters = new ArrayList<>();
			for (RedisClusterNode node : cluster.clusterGetNodes()) {
				if (node.isMaster() && !node.isMarkedAsFail()) {
					RedisClusterServerCommands server = cluster.serverCommands();
					masters.add(read((section) -> server.info(node, section),
							(parameter) -> server.getConfig(node, parameter)));
				}
			}
			return ServerCheck.weakest(masters);
		}
		return read(connection.serverCommands()::info, connection.serverCommands()::getConfig);
	}

	private static ServerCheck read(Function<String, Properties> info, Function<String, Properties> config) {
		Properties persistence = info.apply("persistence");
		Properties server = info.apply("server");
		Properties replication = info.apply("replication");
		String policy = null;
		String fsync = null;
		Integer minReplicas = null;
		try {
			policy = config.apply("maxmemory-policy").getProperty("maxmemory-policy");
			fsync = config.apply("appendfsync").getProperty("appendfsync");
			minReplicas = number(config.apply("min-replicas-to-write").getProperty("min-replicas-to-write"));
		}
		catch (DataAccessException ex) {
			// CONFIG disabled or not permitted (managed Redis, ACL): unknown
		}
		String aof = (persistence != null) ? persistence.getProperty("aof_enabled") : null;
		String version = (server != null) ? server.getProperty("redis_version") : null;
		return new ServerCheck(version, policy, (aof != null) ? "1".equals(aof.trim()) : null, fsync,
				(replication != null) ? number(replication.getProperty("connected_slaves")) : null, minReplicas,
				name(server));
	}

	/**
	 * Names the server as it names itself in {@code INFO server}: Valkey says
	 * {@code server_name:valkey} and {@code valkey_version:8.0.1} (its
	 * {@code redis_version} stays 7.2.4); Redis has no {@code server_name}.
	 * @param server the {@code INFO server} section, or {@code null}
	 * @return e.g. {@code Valkey 8.0.1} or {@code Redis 7.0.15}, or {@code null} when
	 * unknown
	 */
	static String name(Properties server) {
		if (server == null) {
			return null;
		}
		String version = value(server, "redis_version");
		String name = value(server, "server_name");
		if (name == null || name.equalsIgnoreCase("redis")) {
			return (version != null) ? "Redis " + version : null;
		}
		String own = value(server, name.toLowerCase(Locale.ROOT) + "_version");
		String product = Character.toUpperCase(name.charAt(0)) + name.substring(1);
		return (own != null) ? product + " " + own : product;
	}

	private static String value(Properties properties, String key) {
		String value = properties.getProperty(key);
		return (value != null && !value.isBlank()) ? value.trim() : null;
	}

	private static Integer number(String value) {
		try {
			return (value != null) ? Integer.valueOf(value.trim()) : null;
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * Reads the Redis version the server implements ({@code redis_version} of
	 * {@code INFO server}: Valkey 8.0.1 reports 7.2.4, the Redis release it continues,
	 * and has its commands); on a cluster, the version of the master that serves a key.
	 * @param connection the connection
	 * @param key a key, for a cluster
	 * @return the version, or {@code null} when the server does not say
	 */
	public static String version(RedisConnection connection, String key) {
		Properties server = (connection instanceof RedisClusterConnection cluster)
				? cluster.serverCommands().info(cluster.clusterGetNodeForKey(QueueKeys.bytes(key)), "server")
				: connection.serverCommands().info("server");
		return (server != null) ? server.getProperty("redis_version") : null;
	}

	/**
	 * Compares two Redis versions ({@code 7.0.15}, {@code 7.2}) part by part; a part that
	 * is not a number counts as 0.
	 * @param version a version
	 * @param other another
	 * @return negative, zero or positive as {@code version} is older, the same or newer
	 */
	public static int compareVersions(String version, String other) {
		String[] left = version.trim().split("\\.");
		String[] right = other.trim().split("\\.");
		for (int i = 0; i < Math.max(left.length, right.length); i++) {
			int a = (i < left.length) ? parse(left[i]) : 0;
			int b = (i < right.length) ? parse(right[i]) : 0;
			if (a != b) {
				return Integer.compare(a, b);
			}
		}
		return 0;
	}

	private static int parse(String part) {
		try {
			return Integer.parseInt(part);
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

}
