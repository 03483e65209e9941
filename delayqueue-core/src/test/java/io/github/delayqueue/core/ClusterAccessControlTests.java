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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.RedisClusterTest;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The least-privilege ACL of docs/operations.md on Redis Cluster, where the client also
 * needs the commands that read the cluster's topology.
 */
@Tag("faults")
@RedisClusterTest(masters = 3)
class ClusterAccessControlTests {

	/**
	 * What a cluster client needs beyond the single-server rules: {@code CLUSTER NODES}
	 * (Lettuce reads the topology with it; without it nothing connects, NOPERM) and
	 * {@code ASKING} (sent when following an {@code ASK} redirection during a slot
	 * migration, which this test does not exercise).
	 */
	static final String[] CLUSTER_EXTRA = { "+cluster|nodes", "+asking" };

	@Test
	void everythingWorksUnderTheLeastPrivilegeAclOnACluster(RedisCluster cluster) {
		List<String> rules = new ArrayList<>(List.of("ACL", "SETUSER", "orders-app", "on", ">app-secret"));
		rules.addAll(List.of(AccessControlTests.LEAST_PRIVILEGE));
		rules.addAll(List.of(CLUSTER_EXTRA));
		for (RedisServer node : cluster.nodes()) {
			node.execute(rules.toArray(String[]::new));
		}
		RedisClusterConfiguration configuration = cluster.clusterConfiguration();
		configuration.setUsername("orders-app");
		configuration.setPassword(RedisPassword.of("app-secret"));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder()
					.commandTimeout(Duration.ofSeconds(5))
					.clientOptions(RedisCluster.fastFailoverOptions())
					.build());
		factory.afterPropertiesSet();
		factory.start();
		try {
			AccessControlTests.exerciseEverything(factory);
		}
		finally {
			factory.destroy();
		}
	}

}
