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

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code delayqueue.migration.redisson.*}: the runner moves the named Redisson delayed
 * queues (entries written in Redisson's format) at start-up, and a bad setting fails the
 * start-up naming it. Real Redisson writes them in the core's
 * {@code RedissonMigrationTests}.
 */
@RedisTest
class RedissonMigrationRunnerTests {

	private final ApplicationContextRunner runner;

	RedissonMigrationRunnerTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DelayQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
	}

	@Test
	void theNamedQueuesAreMovedAtStartUp() {
		this.runner.withPropertyValues("delayqueue.migration.redisson.queues=legacy-orders").run((context) -> {
			RedisConnectionFactory factory = context.getBean(RedisConnectionFactory.class);
			long due = System.currentTimeMillis() + 600_000;
			try (RedisConnection connection = factory.getConnection()) {
				for (int i = 0; i < 3; i++) {
					byte[] member = member("order-" + i);
					connection.zSetCommands()
						.zAdd(bytes("redisson_delay_queue_timeout:{legacy-orders}"), due + i, member);
					connection.listCommands().rPush(bytes("redisson_delay_queue:{legacy-orders}"), member);
				}
				connection.listCommands().rPush(bytes("legacy-orders"), bytes("order-ready"));
			}
			context.getBean(RedissonMigrationRunner.class).run(null);
			DelayQueueEngine engine = context.getBean(DelayQueueEngine.class);
			assertThat(engine.admin().stats("legacy-orders").scheduled()).isEqualTo(3);
			assertThat(engine.admin().scheduled("legacy-orders", null, 10).get(0).payload())
				.isEqualTo(bytes("order-0"));
			try (RedisConnection connection = factory.getConnection()) {
				assertThat(connection.keyCommands()
					.exists(bytes("redisson_delay_queue_timeout:{legacy-orders}"),
							bytes("redisson_delay_queue:{legacy-orders}"), bytes("legacy-orders")))
					.isZero();
			}
		});
	}

	@Test
	void anUnknownPayloadConversionFailsTheStartUpNamingIt() {
		this.runner
			.withPropertyValues("delayqueue.migration.redisson.queues=legacy",
					"delayqueue.migration.redisson.payload=kryo")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessage("delayqueue.migration.redisson.payload must be string, json or bytes (other codecs: "
						+ "RedissonMigration in code), but was 'kryo'"));
	}

	/**
	 * An entry as Redisson's delayed queue writes it: a random id, the value's length.
	 */
	private static byte[] member(String value) {
		byte[] bytes = bytes(value);
		return ByteBuffer.allocate(1 + 8 + 8 + bytes.length)
			.order(ByteOrder.LITTLE_ENDIAN)
			.put((byte) 8)
			.putLong(System.nanoTime())
			.putLong(bytes.length)
			.put(bytes)
			.array();
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
