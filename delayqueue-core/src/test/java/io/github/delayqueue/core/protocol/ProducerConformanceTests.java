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

import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisConnectionFactory;

@RedisTest
class ProducerConformanceTests extends ProducerConformanceContract {

	private final RedisServer server;

	ProducerConformanceTests(RedisServer server, RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
		this.server = server;
	}

	@Override
	List<String> redis() {
		return List.of("--host", this.server.host(), "--port", Integer.toString(this.server.port()));
	}

	@Override
	int partitions() {
		return 1;
	}

	@Override
	List<RedisServer> servers() {
		return List.of(this.server);
	}

	// on the Cluster, a pause this long would outlast its node timeout (2 s)
	@ParameterizedTest
	@EnumSource(Driver.class)
	void withItsDefaultTimeoutASendToAHungRedisFailsWithinTwoSeconds(Driver driver) throws Exception {
		sendToAHungRedis(driver, "conformance-hung-default", null);
	}

}
