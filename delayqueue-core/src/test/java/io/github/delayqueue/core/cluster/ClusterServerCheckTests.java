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
package io.github.delayqueue.core.cluster;

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.Durability;
import io.github.delayqueue.core.ServerCheck;
import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.RedisClusterTest;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The server check and the {@code WAITAOF} version guard on Redis Cluster, where
 * {@code INFO} and {@code CONFIG} through the cluster connection name every key after its
 * node: each master is read on its own, and the weakest setting is reported.
 */
@RedisClusterTest(masters = 3)
class ClusterServerCheckTests {

	private final RedisCluster cluster;

	private final RedisConnectionFactory connectionFactory;

	ClusterServerCheckTests(RedisCluster cluster, RedisConnectionFactory connectionFactory) {
		this.cluster = cluster;
		this.connectionFactory = connectionFactory;
	}

	@Test
	void readsEveryMasterAndReportsTheWeakestSetting() {
		RedisServer evicting = this.cluster.masters().get(1);
		evicting.execute("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			ServerCheck check = engine.admin().checkServer();
			assertThat(check.version()).isEqualTo(evicting.version());
			assertThat(check.server()).isEqualTo("valkey".equals(evicting.info("server_name"))
					? "Valkey " + evicting.info("valkey_version") : "Redis " + evicting.version());
			assertThat(check.maxmemoryPolicy()).isEqualTo("allkeys-lru");
			assertThat(check.mayEvict()).isTrue();
			assertThat(check.appendOnly()).isFalse();
			assertThat(check.problems()).hasSize(2);
		}
		finally {
			evicting.execute("CONFIG", "SET", "maxmemory-policy", "noeviction");
		}
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			assertThat(engine.admin().checkServer().maxmemoryPolicy()).isEqualTo("noeviction");
		}
	}

	@Test
	void combinesTheChecksOfSeveralServersIntoTheWeakest() {
		ServerCheck safe = new ServerCheck("7.2.4", "noeviction", true, "always");
		ServerCheck old = new ServerCheck("7.0.15", "noeviction", true, "everysec");
		ServerCheck evicting = new ServerCheck("7.2.4", "volatile-lru", true, "always");
		ServerCheck unknown = new ServerCheck(null, null, null, null);
		assertThat(ServerCheck.weakest(List.of(safe, old))).isEqualTo(old);
		assertThat(ServerCheck.weakest(List.of(safe, evicting, old)).maxmemoryPolicy()).isEqualTo("volatile-lru");
		assertThat(ServerCheck.weakest(List.of(safe, unknown)))
			.isEqualTo(new ServerCheck("7.2.4", "noeviction", null, "always"));
		assertThat(ServerCheck.weakest(List.of(unknown, new ServerCheck("7.0.0", "noeviction", false, "no"))))
			.isEqualTo(new ServerCheck("7.0.0", "noeviction", false, "no"));
		assertThat(ServerCheck.weakest(List.of())).isEqualTo(unknown);
	}

	@Test
	void aSendThatWaitsForTheAofIsRefusedBeforeSendingOnAMasterWithoutWaitaof() {
		RedisServer master = this.cluster.serverFor("{aof}");
		Assumptions.assumeFalse(master.versionAtLeast("7.2"), "the master has WAITAOF (Redis 7.2+)");
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory)
			.sendDurability(Durability.appendOnlyFile(0, Duration.ofMillis(500)))
			.build()) {
			assertThatExceptionOfType(UnsupportedOperationException.class)
				.isThrownBy(() -> engine.template().send("aof", "x", Duration.ofMinutes(1)))
				.withMessageContaining("WAITAOF")
				.withMessageContaining(master.version());
			assertThat(engine.admin().stats("aof").scheduled()).isZero();
		}
	}

}
