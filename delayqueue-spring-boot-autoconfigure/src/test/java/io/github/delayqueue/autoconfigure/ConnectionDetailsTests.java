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

package io.github.delayqueue.autoconfigure;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The engine, its listeners and its admin (what the endpoint and the dashboard read)
 * follow Boot's {@link DataRedisConnectionDetails} (what {@code @ServiceConnection} and
 * Docker Compose give) over {@code spring.data.redis.*}.
 */
@RedisTest
class ConnectionDetailsTests {

	private final RedisServer redis;

	ConnectionDetailsTests(RedisServer redis) {
		this.redis = redis;
	}

	@Test
	void theConnectionDetailsWinOverTheProperties() throws IOException {
		int nobody;
		try (ServerSocket socket = new ServerSocket(0)) {
			nobody = socket.getLocalPort();
		}
		DataRedisConnectionDetails details = new DataRedisConnectionDetails() {

			@Override
			public Standalone getStandalone() {
				return Standalone.of(ConnectionDetailsTests.this.redis.host(),
						ConnectionDetailsTests.this.redis.port());
			}

		};
		List<String> received = new CopyOnWriteArrayList<>();
		AllAutoConfigurations.runner()
			.withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + nobody)
			.withBean(DataRedisConnectionDetails.class, () -> details)
			.run((context) -> {
				DelayQueueEngine engine = context.getBean(DelayQueueEngine.class);
				DelayQueueListenerContainer container = engine
					.listenerContainer("details", "g", String.class, (payload, message) -> received.add(payload))
					.build();
				container.start();
				try {
					context.getBean(DelayQueueTemplate.class).send("details", "hello", Duration.ofMillis(100));
					await().atMost(Duration.ofSeconds(10)).until(() -> received.contains("hello"));
				}
				finally {
					container.stop();
				}
				assertThat(context.getBean(DelayQueueAdmin.class).queues()).contains("details");
				// written to the server of the connection details
				assertThat(this.redis.execute("EXISTS", engine.keys("details").stream())).isEqualTo(1L);
			});
	}

}
