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
					values.add(Long.parseLong(cluster.serverCommands().info(master, section).getProperty(field)));
				}
				return values;
			}
			return List.of(Long.parseLong(connection.serverCommands().info(section).getProperty(field)));
		}
	}

	private static int firstSlot(RedisClusterNode node) {
		int[] slots = node.getSlotRange().getSlotsArray();
		return (slots.length == 0) ? Integer.MAX_VALUE : slots[0];
	}

}
