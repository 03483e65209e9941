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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.autoconfigure.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Redis down when the application starts: the application starts anyway (as Spring
 * Kafka's listeners do without a broker), health is DOWN, sends fail with a clear
 * exception, and once Redis answers the listeners connect on their own and messages flow.
 */
@Tag("faults")
class RedisDownAtStartUpTests {

	private RedisServer redis;

	@AfterEach
	void stopServer() {
		if (this.redis != null) {
			this.redis.close();
		}
	}

	@Test
	void theApplicationStartsAndItsListenersConnectOnceRedisAnswers() {
		this.redis = RedisServer.builder().start();
		this.redis.stop();
		AllAutoConfigurations.runner(this.redis)
			.withUserConfiguration(Listener.class)
			.withPropertyValues("spring.data.redis.timeout=1s", "delayqueue.schedules.beat.queue=orders",
					"delayqueue.schedules.beat.every=1h", "delayqueue.schedules.beat.payload=beat")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DelayQueueHealthIndicator health = context.getBean(DelayQueueHealthIndicator.class);
				assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
				DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
				assertThatExceptionOfType(DelayQueueException.class)
					.isThrownBy(() -> template.send("orders", "lost?", Duration.ZERO))
					.withMessageContaining("Cannot send to queue(s) orders");
				assertThat(
						context.getBean(DelayListenerEndpointRegistry.class).getListenerContainer("orders").isRunning())
					.isTrue();

				this.redis.startAgain();
				await().atMost(Duration.ofSeconds(15)).until(() -> health.health().getStatus().equals(Status.UP));
				template.send("orders", "after", Duration.ZERO);
				assertThat(context.getBean(Listener.class).received.poll(10, TimeUnit.SECONDS)).isEqualTo("after");
				// the schedule declared while Redis was down: registered by the queue's
				// scheduler once Redis answers
				DelayQueueAdmin admin = context.getBean(DelayQueueAdmin.class);
				await().atMost(Duration.ofSeconds(10))
					.until(() -> admin.schedules().find("orders", "beat").isPresent());
			});
	}

	static class Listener {

		final BlockingQueue<String> received = new LinkedBlockingQueue<>();

		@DelayListener(id = "orders", queue = "orders")
		void onOrder(String order) {
			this.received.add(order);
		}

	}

}
