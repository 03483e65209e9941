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
package io.github.delayqueue.benchmark;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Reads a numeric {@code INFO} field of the server, or of each master of a cluster
 * (through a cluster connection, {@code INFO} names every field after its node).
 */
final class ServerInfo {

	private ServerInfo() {
	}

	/**
	 * Reads a field of each master, masters in slot order; one value for a single server.
	 * @param connectionFactory the connection factory
	 * @param section the {@code INFO} section
	 * @param field the field
	 * @return its value on each master
	 */
	static List<Long> perMaster(RedisConnectionFactory connectionFactory, String section, String field) {
		return perMaster(connectionFactory, section, (info) -> Long.parseLong(info.getProperty(field)));
	}

	/**
	 * Computes a figure from one {@code INFO} section of each master, masters in slot
	 * order; one value for a single server.
	 * @param connectionFactory the connection factory
	 * @param section the {@code INFO} section
	 * @param value the figure computed from the section
	 * @return the figure of each master
	 */
	static List<Long> perMaster(RedisConnectionFactory connectionFactory, String section,
			ToLongFunction<Properties> value) {
		try (RedisConnection connection = connectionFactory.getConnection()) {
			if (connection instanceof RedisClusterConnection cluster) {
				List<RedisClusterNode> masters = new ArrayList<>();
				for (RedisClusterNode node : cluster.clusterGetNodes()) {
					if (node.isMaster()) {
						masters.add(node);
					}
				}
				masters.sort(Comparator.comparingInt(ServerInfo::firstSlot));
				List<Long> values = new ArrayList<>();
				for (RedisClusterNode master : masters) {
					values.add(value.applyAsLong(cluster.serverCommands().info(master, section)));
				}
				return values;
			}
			return List.of(value.applyAsLong(connection.serverCommands().info(section)));
		}
	}

	/**
	 * Reads the calls of each command ({@code INFO commandstats}, commands run inside
	 * scripts included), summed over the masters of a cluster.
	 * @param connectionFactory the connection factory
	 * @return calls by command name, lower case
	 */
	static Map<String, Long> commandCalls(RedisConnectionFactory connectionFactory) {
		return commandStat(connectionFactory, "calls");
	}

	/**
	 * Reads one field of each command's {@code INFO commandstats} line ({@code calls} or
	 * {@code usec}), summed over the masters of a cluster. Commands run inside scripts
	 * are counted too; a script's {@code usec} includes theirs.
	 * @param connectionFactory the connection factory
	 * @param field the field
	 * @return its value by command name, lower case
	 */
	static Map<String, Long> commandStat(RedisConnectionFactory connectionFactory, String field) {
		Map<String, Long> calls = new TreeMap<>();
		try (RedisConnection connection = connectionFactory.getConnection()) {
			List<Properties> sections = new ArrayList<>();
			if (connection instanceof RedisClusterConnection cluster) {
				for (RedisClusterNode node : cluster.clusterGetNodes()) {
					if (node.isMaster()) {
						sections.add(cluster.serverCommands().info(node, "commandstats"));
					}
				}
			}
			else {
				sections.add(connection.serverCommands().info("commandstats"));
			}
			for (Properties section : sections) {
				for (String name : section.stringPropertyNames()) {
					int at = name.indexOf("cmdstat_");
					if (at >= 0) {
						String value = section.getProperty(name);
						int from = value.indexOf(field + "=") + field.length() + 1;
						int to = value.indexOf(',', from);
						long count = Long.parseLong(value.substring(from, (to < 0) ? value.length() : to));
						calls.merge(name.substring(at + 8), count, Long::sum);
					}
				}
			}
		}
		return calls;
	}

	/**
	 * The calls per message of each command between two readings of
	 * {@link #commandCalls}, leaving out commands with fewer than one call per 1000
	 * messages.
	 */
	static Map<String, Double> callsPerMessage(Map<String, Long> before, Map<String, Long> after, long messages) {
		return perMessage(before, after, messages, 1000);
	}

	/**
	 * The microseconds per message Redis spent in each command between two readings of
	 * {@link #commandStat} of {@code usec}, leaving out those under 0.01 µs.
	 */
	static Map<String, Double> usecPerMessage(Map<String, Long> before, Map<String, Long> after, long messages) {
		return perMessage(before, after, messages, 100);
	}

	/** Each command's growth per message, rounded to 1 / {@code scale}; 0 left out. */
	private static Map<String, Double> perMessage(Map<String, Long> before, Map<String, Long> after, long messages,
			int scale) {
		Map<String, Double> perMessage = new TreeMap<>();
		after.forEach((command, value) -> {
			double share = (value - before.getOrDefault(command, 0L)) / (double) messages;
			if (share * scale >= 1) {
				perMessage.put(command, Math.round(share * scale) / (double) scale);
			}
		});
		return perMessage;
	}

	/** The CPU (system and user) every master has used, in microseconds. */
	static long redisCpuMicros(RedisConnectionFactory connectionFactory) {
		return perMaster(connectionFactory, "cpu",
				(info) -> Math.round((Double.parseDouble(info.getProperty("used_cpu_sys"))
						+ Double.parseDouble(info.getProperty("used_cpu_user"))) * 1e6))
			.stream()
			.mapToLong(Long::longValue)
			.sum();
	}

	/** The CPU time of this JVM's process, in nanoseconds (0 where it cannot be read). */
	static long jvmCpuNanos() {
		java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory
			.getOperatingSystemMXBean();
		return (os instanceof com.sun.management.OperatingSystemMXBean sun) ? sun.getProcessCpuTime() : 0;
	}

	private static int firstSlot(RedisClusterNode node) {
		int[] slots = node.getSlotRange().getSlotsArray();
		return (slots.length == 0) ? Integer.MAX_VALUE : slots[0];
	}

}
