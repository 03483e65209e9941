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
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

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
			for (int i = 0; i < cluster.masters().size(); i++) {
				RedisServer replica = cluster.replicasOf(i).get(0);
				RedisServer master = cluster.masters().get(i);
				assertThat(replica.info("role")).isEqualTo("slave");
				assertThat(replica.info("master_port")).isEqualTo(String.valueOf(master.port()));
			}
		}
	}

	@Test
	void killingAMasterPromotesItsReplicaWhichKeepsTheKeys() {
		try (RedisCluster cluster = RedisCluster.start(3, 1)) {
			int slot = cluster.slotOf("k");
			int index = cluster.masterOf(slot);
			RedisServer master = cluster.masters().get(index);
			RedisServer replica = cluster.replicasOf(index).get(0);
			master.execute("SET", "k", "v");
			// WAIT would count acknowledgements for its own connection's writes, and each
			// execute opens a new connection: watch the replica take the key instead
			await().atMost(Duration.ofSeconds(10)).until(() -> Long.valueOf(1).equals(replica.execute("DBSIZE")));
			RedisServer promoted = cluster.killMaster(index);
			assertThat(promoted).isSameAs(replica);
			assertThat(cluster.masters().get(index)).isSameAs(replica);
			assertThat(cluster.masterOf(slot)).isEqualTo(index);
			assertThat(promoted.execute("GET", "k")).isEqualTo("v");
			master.startAgain();
			cluster.awaitState();
			assertThat(master.info("role")).isEqualTo("slave");
			RedisServer back = cluster.failover(index);
			assertThat(back).isSameAs(master);
			assertThat(back.execute("GET", "k")).isEqualTo("v");
		}
	}

	@Test
	void migratesASlotWithItsKeysOrLeavesItSplit() {
		try (RedisCluster cluster = RedisCluster.start(3, 0)) {
			int slot = cluster.slotOf("{q}:a");
			int from = cluster.masterOf(slot);
			int to = (from + 1) % 3;
			RedisServer source = cluster.masters().get(from);
			source.execute("SET", "{q}:a", "1");
			source.execute("SET", "{q}:b", "2");
			SlotMigration migration = cluster.beginSlotMigration(slot, to);
			assertThat(migration.moveKeys(1)).isEqualTo(1);
			// one key on each side: a command on both is refused until the move ends
			assertThatExceptionOfType(UncheckedIOException.class)
				.isThrownBy(() -> source.execute("MGET", "{q}:a", "{q}:b"))
				.havingCause()
				.withMessageContaining("TRYAGAIN");
			migration.finish();
			assertThat(cluster.masterOf(slot)).isEqualTo(to);
			assertThat(cluster.masters().get(to).execute("MGET", "{q}:a", "{q}:b")).isEqualTo(List.of("1", "2"));
			cluster.migrateSlot(slot, from);
			assertThat(cluster.masterOf(slot)).isEqualTo(from);
			assertThat((Long) source.execute("EXISTS", "{q}:a", "{q}:b")).isEqualTo(2);
		}
	}

}
