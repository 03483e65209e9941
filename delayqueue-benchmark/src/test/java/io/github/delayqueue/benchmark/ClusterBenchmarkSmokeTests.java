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

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.RedisClusterTest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Every benchmark scenario, with tiny figures, against a Redis Cluster through
 * {@code --cluster}: memory and command counts are summed over the masters.
 */
@RedisClusterTest(masters = 3)
class ClusterBenchmarkSmokeTests {

	@Test
	void runsEveryScenarioOnAClusterGivenByItsNodes(RedisCluster cluster) throws Exception {
		String nodes = cluster.masters()
			.stream()
			.map((master) -> master.host() + ":" + master.port())
			.collect(Collectors.joining(","));
		LettuceConnectionFactory factory = Benchmark.connectCluster(nodes);
		try {
			assertThat(factory.getClusterConfiguration()).isNotNull();
			List<Map<String, Object>> results = Benchmark.run(factory, Map.of("scenario", "smoke", "n", "200"));
			assertThat(results.get(0)).containsEntry("complete", true).containsEntry("acked", 200);
			assertThat(results.get(1)).containsEntry("complete", true).containsEntry("received", 200);
			assertThat(results.get(2)).containsEntry("scheduled", 2000L);
			assertThat((double) results.get(2).get("bytes_per_message")).isPositive();
			assertThat((double) results.get(3).get("commands_per_s")).isPositive();
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void theClusterScenarioSpreadsAPartitionedQueueOverTheMasters(RedisCluster cluster) throws Exception {
		LettuceConnectionFactory factory = cluster.connectionFactory(java.time.Duration.ofSeconds(10));
		try {
			Map<String, Object> result = Benchmark
				.run(factory, Map.of("scenario", "cluster", "n", "600", "partitions", "3", "warm-up", "1000"))
				.get(0);
			assertThat(result).containsEntry("complete", true)
				.containsEntry("acked", 600)
				.containsEntry("partitions", 3);
			@SuppressWarnings("unchecked")
			List<Double> shares = (List<Double>) result.get("commands_percent_per_master");
			// one partition per master: each carries about a third of the commands
			assertThat(shares).hasSize(3).allMatch((share) -> share > 20 && share < 47);
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void rejectsMalformedClusterNodes() {
		assertThatIllegalArgumentException().isThrownBy(() -> Benchmark.connectCluster("127.0.0.1"))
			.withMessageContaining("HOST:PORT,HOST:PORT");
	}

}
