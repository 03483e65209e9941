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
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A queue whose pause state cannot be read starts nothing (it might be paused), and is
 * not left idle unnoticed: its listener reports itself unhealthy until the state is read,
 * and delivers once it is. Here the application's ACL lacks {@code HMGET}, the read the
 * flow controls need; granting it at run time heals the listener.
 */
class FlowControlHealthTests {

	private RedisServer redis;

	private LettuceConnectionFactory factory;

	@BeforeEach
	void start() {
		String[] withoutHmget = Arrays.stream(AccessControlTests.LEAST_PRIVILEGE)
			.filter((rule) -> !rule.equals("+hmget"))
			.toArray(String[]::new);
		this.redis = RedisServer.builder()
			.password("admin-secret")
			.aclUser("orders-app", "app-secret", withoutHmget)
			.start();
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(this.redis.host(),
				this.redis.port());
		configuration.setUsername("orders-app");
		configuration.setPassword(RedisPassword.of("app-secret"));
		this.factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		this.factory.afterPropertiesSet();
		this.factory.start();
	}

	@AfterEach
	void stop() {
		this.factory.destroy();
		this.redis.close();
	}

	@Test
	void aListenerThatCannotReadThePauseStateStartsNothingAndSaysItIsNotHealthy() {
		Set<String> received = ConcurrentHashMap.newKeySet();
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.factory).build()) {
			DelayQueueListenerContainer container = engine
				.listenerContainer("refused-read", "g", String.class, (payload, context) -> received.add(payload))
				.build();
			container.start();
			try {
				engine.template().send("refused-read", "m", Duration.ZERO);
				// unhealthy once three poll periods passed without a read, and it stays
				// so
				await().during(Duration.ofMillis(1500))
					.atMost(Duration.ofSeconds(6))
					.until(() -> received.isEmpty() && !container.isHealthy());
				assertThat(container.isRunning()).isTrue();

				this.redis.execute("ACL", "SETUSER", "orders-app", "+hmget");
				await().atMost(Duration.ofSeconds(5)).until(() -> received.contains("m"));
				await().atMost(Duration.ofSeconds(5)).until(container::isHealthy);
			}
			finally {
				container.stop();
			}
		}
	}

}
