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

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The test cluster launcher: a 3-master, 3-replica cluster on free ports whose slots are
 * all served, reachable through a Lettuce cluster connection, every master taking keys
 * and every replica following its master.
 */
class RedisClusterTests {

	@Test
	void startsAClusterWhoseMastersShareTheKeysAndWhoseReplicasFollow() {
		try (RedisCluster cluster = RedisCluster.start(3, 1)) {
			assertThat(cluster.masters()).hasSize(3);
			assertThat(cluster.replicas()).hasSize(3);
			for (RedisServer node : cluster.nodes()) {
				assertThat(String.valueOf(node.execute("CLUSTER", "INFO"))).contains("cluster_state:ok",
						"cluster_slots_assigned:16384", "cluster_known_nodes:6");
			}
			LettuceConnectionFactory factory = cluster.connectionFactory(Duration.ofSeconds(5));
			try (RedisClusterConnection connection = factory.getClusterConnection()) {
				for (int i = 0; i < 60; i++) {
					connection.stringCommands()
						.set(("key-" + i).getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8));
				}
			}
			finally {
				factory.destroy();
			}
			for (RedisServer master : cluster.masters()) {
				assertThat((Long) master.execute("DBSIZE")).as("keys on %s", master).isPositive();
			}
			for (int i = 0; i < cluster.replicas().size(); i++) {
				RedisServer replica = cluster.replicas().get(i);
				RedisServer master = cluster.masters().get(i);
				assertThat(replica.info("role")).isEqualTo("slave");
				assertThat(replica.info("master_port")).isEqualTo(String.valueOf(master.port()));
			}
		}
	}

}
