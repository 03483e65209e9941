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
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.autoconfigure.actuate.DelayQueueEndpoint;
import io.github.delayqueue.autoconfigure.actuate.QueuesDescriptor;
import io.github.delayqueue.autoconfigure.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A hung Redis (SIGSTOP) under Spring Boot's defaults (a 60 s command timeout): health
 * and the endpoint answer within about a second, and a send fails within its own bound.
 */
@Tag("faults")
class HungRedisActuatorTests {

	private RedisServer redis;

	@BeforeEach
	void startServer() {
		this.redis = RedisServer.builder().start();
	}

	@AfterEach
	void stopServer() {
		this.redis.resume();
		this.redis.close();
	}

	@Test
	void healthTheEndpointAndSendsAnswerPromptlyWhileRedisHangs() {
		AllAutoConfigurations.runner(this.redis).withPropertyValues("spring.data.redis.timeout=60s").run((context) -> {
			DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
			template.send("orders", "warm-up", Duration.ofHours(1));
			DelayQueueHealthIndicator health = context.getBean(DelayQueueHealthIndicator.class);
			DelayQueueEndpoint endpoint = context.getBean(DelayQueueEndpoint.class);
			assertThat(health.health().getStatus()).isEqualTo(Status.UP);

			this.redis.pause();
			long started = System.nanoTime();
			Health down = health.health();
			assertThat(elapsedMillis(started)).as("health answered after (ms)").isLessThan(1800);
			assertThat(down.getStatus()).isEqualTo(Status.DOWN);
			assertThat(down.getDetails()).containsEntry("error", "Redis did not answer within 1000 ms");

			started = System.nanoTime();
			QueuesDescriptor queues = endpoint.queues();
			assertThat(elapsedMillis(started)).as("endpoint answered after (ms)").isLessThan(1800);
			assertThat(queues.error()).isEqualTo("Redis did not answer within 1000 ms");
			started = System.nanoTime();
			assertThat(endpoint.queue("orders", null).error()).isNotNull();
			assertThat(elapsedMillis(started)).as("queue read answered after (ms)").isLessThan(1800);

			started = System.nanoTime();
			assertThatExceptionOfType(DelayQueueException.class)
				.isThrownBy(() -> template.send("orders", "x", Duration.ofMinutes(1)))
				.withMessageContaining("did not answer within");
			assertThat(elapsedMillis(started)).as("send failed after (ms)").isLessThan(3500);

			this.redis.resume();
			assertThat(health.health().getStatus()).isEqualTo(Status.UP);
			assertThat(endpoint.queues().error()).isNull();
		});
	}

	private static long elapsedMillis(long startedNanos) {
		return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
	}

}
