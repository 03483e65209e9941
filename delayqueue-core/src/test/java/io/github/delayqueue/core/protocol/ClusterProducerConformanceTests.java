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

package io.github.delayqueue.core.protocol;

import java.util.List;

import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.RedisClusterTest;
import io.github.delayqueue.test.RedisServer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/** The suite on a 3-master Cluster, with a queue of 3 partitions, one per master. */
@RedisClusterTest
class ClusterProducerConformanceTests extends ProducerConformanceContract {

	private final RedisCluster cluster;

	private final RedisServer entry;

	ClusterProducerConformanceTests(RedisCluster cluster, RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
		this.cluster = cluster;
		this.entry = cluster.masters().get(0);
	}

	@Override
	List<String> redis() {
		return List.of("--host", this.entry.host(), "--port", Integer.toString(this.entry.port()), "--cluster");
	}

	@Override
	int partitions() {
		return 3;
	}

	/** Every master, paused together: none of them sees another fail. */
	@Override
	List<RedisServer> servers() {
		return this.cluster.masters();
	}

}
