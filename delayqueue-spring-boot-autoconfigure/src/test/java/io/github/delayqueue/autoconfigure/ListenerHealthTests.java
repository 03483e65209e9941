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
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.autoconfigure.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener that cannot read (here its stream is a string: someone SET it) makes the
 * {@code delayqueue} health DOWN within seconds, naming the listener and why, and UP
 * again once the key is repaired and the waiting message handled.
 */
class ListenerHealthTests {

	private RedisServer redis;

	@BeforeEach
	void startServer() {
		this.redis = RedisServer.builder().start();
	}

	@AfterEach
	void stopServer() {
		this.redis.close();
	}

	@Test
	void aListenerThatCannotReadMakesTheHealthDownWithTheReason() {
		String stream = "dq:{orders}:stream";
		this.redis.execute("SET", stream, "oops");
		AllAutoConfigurations.runner(this.redis).withUserConfiguration(Listener.class).run((context) -> {
			assertThat(context).hasNotFailed();
			DelayQueueHealthIndicator indicator = context.getBean(DelayQueueHealthIndicator.class);
			// DOWN at once: the queue's counts cannot be read; then the listener says why
			await().atMost(Duration.ofSeconds(10))
				.until(() -> String.valueOf(indicator.health().getDetails().get("reason"))
					.startsWith("listener 'orders' is not healthy"));
			Health health = indicator.health();
			assertThat(health.getStatus()).isEqualTo(Status.DOWN);
			assertThat(health.getDetails().get("reason")).asString()
				.startsWith("listener 'orders' is not healthy: the reader of queue 'orders'")
				.contains("WRONGTYPE");
			Map<?, ?> listener = (Map<?, ?>) ((Map<?, ?>) health.getDetails().get("listeners")).get("orders");
			assertThat(listener.get("healthy")).isEqualTo(false);
			assertThat(listener.get("reason")).asString().contains("WRONGTYPE");
			Map<?, ?> queue = (Map<?, ?>) ((Map<?, ?>) health.getDetails().get("queues")).get("orders");
			assertThat(queue.get("error")).asString().contains("WRONGTYPE");

			this.redis.execute("DEL", stream);
			context.getBean(DelayQueueTemplate.class).send("orders", "after", Duration.ZERO);
			assertThat(context.getBean(Listener.class).received.poll(10, TimeUnit.SECONDS)).isEqualTo("after");
			await().atMost(Duration.ofSeconds(5)).until(() -> indicator.health().getStatus().equals(Status.UP));
			assertThat(indicator.health().getDetails()).doesNotContainKey("reason");
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
