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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A command the application's ACL refuses keeps a part of a listener failing on and on:
 * {@code XREADGROUP} its reader, {@code XACK} its acker. Either makes the container
 * unhealthy within seconds, naming the part and the refusal, and granting the command
 * heals it.
 */
class RefusedCommandHealthTests {

	private static RedisServer redis;

	private LettuceConnectionFactory factory;

	@BeforeAll
	static void startServer() {
		redis = RedisServer.builder()
			.password("admin-secret")
			.aclUser("orders-app", "app-secret", AccessControlTests.LEAST_PRIVILEGE)
			.start();
	}

	@AfterAll
	static void stopServer() {
		redis.close();
	}

	@BeforeEach
	void connect() {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(redis.host(), redis.port());
		configuration.setUsername("orders-app");
		configuration.setPassword(RedisPassword.of("app-secret"));
		this.factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		this.factory.afterPropertiesSet();
		this.factory.start();
	}

	@AfterEach
	void disconnect() {
		this.factory.destroy();
		redis.execute("ACL", "SETUSER", "orders-app", "+xreadgroup", "+xack");
	}

	@Test
	void aRefusedReadMakesTheReaderUnhealthy() {
		refused("no-read", "xreadgroup", "the reader of queue 'no-read', group 'g' has failed for");
	}

	@Test
	void aRefusedAckMakesTheAckerUnhealthy() {
		refused("no-ack", "xack", "the acker of queue 'no-ack', group 'g' has failed for");
	}

	private void refused(String queue, String command, String reason) {
		Set<String> received = ConcurrentHashMap.newKeySet();
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.factory).build()) {
			DelayQueueListenerContainer container = engine
				.listenerContainer(queue, "g", String.class, (payload, context) -> received.add(payload))
				.pollTimeout(Duration.ofMillis(500))
				.build();
			engine.template().send(queue, "m", Duration.ZERO);
			redis.execute("ACL", "SETUSER", "orders-app", "-" + command);
			container.start();
			try {
				await().atMost(Duration.ofSeconds(10)).until(() -> !container.isHealthy());
				assertThat(container.unhealthyReason()).contains(reason).contains("NOPERM");

				redis.execute("ACL", "SETUSER", "orders-app", "+" + command);
				await().atMost(Duration.ofSeconds(10)).until(() -> received.contains("m"));
				await().atMost(Duration.ofSeconds(5)).until(container::isHealthy);
				await().atMost(Duration.ofSeconds(5)).until(() -> engine.admin().stats(queue).inFlight() == 0);
			}
			finally {
				container.stop();
			}
		}
	}

}
