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

package io.github.delayqueue.starter;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An application whose only delayqueue dependency is the starter (this module's test
 * class path holds nothing else of the application's: no Jackson, no web, no actuator)
 * runs the README's quick start: a record payload is sent and received as JSON.
 */
class StarterAloneTests {

	@Test
	void theStarterAloneSendsAndReceivesARecordPayload() {
		try (RedisServer redis = RedisServer.builder().start();
				ConfigurableApplicationContext context = new SpringApplicationBuilder(QuickStartApplication.class)
					.web(WebApplicationType.NONE)
					.run("--spring.data.redis.port=" + redis.port(), "--spring.application.name=shop")) {
			DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
			template.send(DelayMessage.builder(new OrderTimeout("42", 1250))
				.queue("order-timeout")
				.id("order-42")
				.delay(Duration.ofMillis(200))
				.build());
			OrderTimeouts listener = context.getBean(OrderTimeouts.class);
			await().atMost(Duration.ofSeconds(10)).until(() -> !listener.received.isEmpty());
			assertThat(listener.received).containsExactly(new OrderTimeout("42", 1250));
			assertThat(listener.ids).containsExactly("order-42");
		}
	}

	record OrderTimeout(String orderId, long amountCents) {
	}

	static class OrderTimeouts {

		final List<OrderTimeout> received = new CopyOnWriteArrayList<>();

		final List<String> ids = new CopyOnWriteArrayList<>();

		@DelayListener(queue = "order-timeout")
		void onTimeout(OrderTimeout event, DelayMessageContext context) {
			this.ids.add(context.id());
			this.received.add(event);
		}

	}

	@SpringBootApplication
	static class QuickStartApplication {

		@Bean
		OrderTimeouts orderTimeouts() {
			return new OrderTimeouts();
		}

	}

}
