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

package io.github.delayqueue.test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link RedisCluster} is formed from plain servers: nodes started with
 * {@code cluster-enabled yes}, the 16384 slots split evenly between the masters with
 * {@code CLUSTER ADDSLOTS}, every node introduced with {@code CLUSTER MEET}, and the
 * replicas attached with {@code CLUSTER REPLICATE}.
 */
final class ClusterFormation {

	private ClusterFormation() {
	}

	static RedisServer startNode(Path binary) {
		return RedisServer.builder()
			.binary(binary)
			.config("cluster-enabled", "yes")
			.config("cluster-node-timeout", String.valueOf(RedisCluster.NODE_TIMEOUT.toMillis()))
			.config("cluster-require-full-coverage", "no")
			.start();
	}

	/**
	 * Forms the cluster of started nodes.
	 * @param masters the masters, in slot order
	 * @param replicas the replicas of master {@code i}, at index {@code i}
	 */
	static void form(List<RedisServer> masters, List<List<RedisServer>> replicas) {
		assignSlots(masters);
		List<RedisServer> nodes = new ArrayList<>(masters);
		replicas.forEach(nodes::addAll);
		meet(nodes);
		replicate(masters, replicas);
	}

	private static void assignSlots(List<RedisServer> masters) {
		int count = masters.size();
		for (int i = 0; i < count; i++) {
			int first = RedisCluster.SLOTS * i / count;
			int last = RedisCluster.SLOTS * (i + 1) / count - 1;
			// ADDSLOTS (not ADDSLOTSRANGE, which is 7.0+), in chunks
			for (int start = first; start <= last; start += 1000) {
				List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
				for (int slot = start; slot <= Math.min(last, start + 999); slot++) {
					command.add(String.valueOf(slot));
				}
				masters.get(i).execute(command.toArray(String[]::new));
			}
		}
	}

	private static void meet(List<RedisServer> nodes) {
		RedisServer first = nodes.get(0);
		for (RedisServer node : nodes) {
			if (node != first) {
				first.execute("CLUSTER", "MEET", node.host(), String.valueOf(node.port()));
			}
		}
		int size = nodes.size();
		RedisCluster.await("every node knows every other", () -> nodes.stream()
			.allMatch((node) -> String.valueOf(node.execute("CLUSTER", "NODES")).strip().split("\n").length == size));
	}

	private static void replicate(List<RedisServer> masters, List<List<RedisServer>> replicas) {
		for (int i = 0; i < masters.size(); i++) {
			String masterId = ClusterNodes.nodeId(masters.get(i));
			replicas.get(i).forEach((replica) -> replica.execute("CLUSTER", "REPLICATE", masterId));
		}
	}

}
