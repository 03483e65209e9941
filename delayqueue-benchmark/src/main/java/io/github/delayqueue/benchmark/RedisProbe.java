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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * A connection of its own to each master (one for a single server), outside any engine,
 * through which the {@code footprint} scenario reads what the servers see: {@code INFO},
 * {@code CLIENT LIST}. It sends nothing else, so that its own commands can be left out of
 * the counts exactly (one {@code INFO} per master per reading).
 */
final class RedisProbe implements AutoCloseable {

	private final RedisClient client;

	private final List<StatefulRedisConnection<String, String>> masters = new ArrayList<>();

	/**
	 * Connects to the masters.
	 * @param redisUri a single server ({@code redis://HOST:PORT}), or {@code null}
	 * @param clusterNodes a cluster's seed nodes ({@code HOST:PORT,...}), or {@code null}
	 */
	RedisProbe(String redisUri, String clusterNodes) {
		this.client = RedisClient.create();
		if (clusterNodes == null) {
			this.masters.add(this.client.connect(RedisURI.create(redisUri)));
			return;
		}
		String seed = clusterNodes.split(",")[0].trim();
		List<String> addresses = new ArrayList<>();
		try (StatefulRedisConnection<String, String> connection = this.client
			.connect(RedisURI.create("redis://" + seed))) {
			for (String line : connection.sync().clusterNodes().split("\n")) {
				String[] fields = line.trim().split(" ");
				if (fields.length > 8 && fields[2].contains("master") && !fields[2].contains("fail")) {
					addresses.add(fields[1].substring(0, fields[1].indexOf('@')));
				}
			}
		}
		addresses.sort(null);
		for (String address : addresses) {
			this.masters.add(this.client.connect(RedisURI.create("redis://" + address)));
		}
	}

	/** How many masters the probe reads (1 for a single server). */
	int masters() {
		return this.masters.size();
	}

	/** Empties the database of every master. */
	void flush() {
		this.masters.forEach((master) -> master.sync().flushdb());
	}

	/** One {@code INFO all} reading of every master. */
	Reading read() {
		List<Properties> infos = new ArrayList<>();
		for (StatefulRedisConnection<String, String> master : this.masters) {
			Properties info = new Properties();
			for (String line : master.sync().info("all").split("\r?\n")) {
				int colon = line.indexOf(':');
				if (colon > 0 && !line.startsWith("#")) {
					info.setProperty(line.substring(0, colon), line.substring(colon + 1).trim());
				}
			}
			infos.add(info);
		}
		return new Reading(infos);
	}

	/** The ids of the clients connected to every master ({@code CLIENT LIST}). */
	Set<String> clientIds() {
		Set<String> ids = new HashSet<>();
		for (int i = 0; i < this.masters.size(); i++) {
			RedisCommands<String, String> commands = this.masters.get(i).sync();
			for (String line : commands.clientList().split("\n")) {
				if (line.startsWith("id=")) {
					ids.add(i + ":" + line.substring(3, line.indexOf(' ')));
				}
			}
		}
		return ids;
	}

	@Override
	public void close() {
		this.masters.forEach(StatefulRedisConnection::close);
		this.client.shutdown();
	}

	/**
	 * What every master reported at one moment.
	 *
	 * @param infos each master's {@code INFO all}
	 */
	record Reading(List<Properties> infos) {

		/** The CPU (system and user) the masters have used, in microseconds. */
		long cpuMicros() {
			return Math.round(sum((info) -> Double.parseDouble(info.getProperty("used_cpu_sys"))
					+ Double.parseDouble(info.getProperty("used_cpu_user"))) * 1e6);
		}

		/** Commands processed (top level: a script is one). */
		long processed() {
			return Math.round(sum((info) -> Double.parseDouble(info.getProperty("total_commands_processed"))));
		}

		/**
		 * Calls by command, summed over the masters, those run inside scripts included.
		 */
		Map<String, Long> calls() {
			Map<String, Long> calls = new TreeMap<>();
			for (Properties info : this.infos) {
				for (String name : info.stringPropertyNames()) {
					if (name.startsWith("cmdstat_")) {
						String value = info.getProperty(name);
						int from = value.indexOf("calls=") + 6;
						int to = value.indexOf(',', from);
						calls.merge(name.substring(8),
								Long.parseLong(value.substring(from, (to < 0) ? value.length() : to)), Long::sum);
					}
				}
			}
			return calls;
		}

		private double sum(java.util.function.ToDoubleFunction<Properties> value) {
			return this.infos.stream().mapToDouble(value).sum();
		}

	}

}
