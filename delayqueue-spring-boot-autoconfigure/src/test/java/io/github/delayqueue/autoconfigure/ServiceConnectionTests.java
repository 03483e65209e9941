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

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.boot.testcontainers.service.connection.ServiceConnectionAutoConfiguration;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The documented Testcontainers way ({@code docs/testing.md}): a Redis container bean
 * with {@code @ServiceConnection} is the engine's Redis. Runs where Docker answers,
 * skipped where it does not.
 */
class ServiceConnectionTests {

	@Test
	void aContainerWithServiceConnectionIsTheEnginesRedis() {
		assumeThat(dockerAvailable()).as("Docker is not available: the Testcontainers way cannot run here").isTrue();
		List<String> received = new CopyOnWriteArrayList<>();
		AllAutoConfigurations.runner()
			.withConfiguration(AutoConfigurations.of(ServiceConnectionAutoConfiguration.class))
			.withUserConfiguration(RedisContainerConfiguration.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DelayQueueEngine engine = context.getBean(DelayQueueEngine.class);
				DelayQueueListenerContainer container = engine
					.listenerContainer("containers", "g", String.class, (payload, message) -> received.add(payload))
					.build();
				container.start();
				try {
					context.getBean(DelayQueueTemplate.class).send("containers", "hello", Duration.ofMillis(100));
					await().atMost(Duration.ofSeconds(10)).until(() -> received.contains("hello"));
				}
				finally {
					container.stop();
				}
			});
	}

	private static boolean dockerAvailable() {
		try {
			return DockerClientFactory.instance().isDockerAvailable();
		}
		catch (RuntimeException | LinkageError ex) {
			return false;
		}
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class RedisContainerConfiguration {

		@Bean
		@ServiceConnection(name = "redis")
		GenericContainer<?> redis() {
			return new GenericContainer<>("redis:7.4").withExposedPorts(6379);
		}

	}

}
