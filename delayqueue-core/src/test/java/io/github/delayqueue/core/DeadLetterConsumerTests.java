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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.listener.DeadLetterConsumer;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The application handles its dead letters: a consumer of the dead-letter stream gets
 * each dead letter of its group once per application (payload decoded, headers, attempts,
 * reason), also those dead-lettered before it started, never another group's; a handler
 * that throws is logged and the dead letter stays for replay.
 */
@RedisTest
class DeadLetterConsumerTests {

	private final DelayQueueEngine engine;

	private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();

	DeadLetterConsumerTests(RedisConnectionFactory connectionFactory) {
		this.engine = DelayQueueEngine.builder(connectionFactory).build();
	}

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable resource : this.resources) {
			resource.close();
		}
		this.engine.close();
	}

	private void failing(String queue, String group) {
		DelayQueueListenerContainer container = this.engine
			.listenerContainer(queue, group, String.class, (payload, context) -> {
				throw new IllegalStateException("refused " + payload + " by " + group);
			})
			.retryPolicy(RetryPolicy.fixed(2, Duration.ofMillis(20)))
			.build();
		container.start();
		this.resources.add(container::stop);
	}

	private DeadLetterConsumer consumer(String queue, String group, Map<String, DeadLetter> handled) {
		DeadLetterConsumer consumer = this.engine.deadLetterConsumer(queue, group, "alerts", String.class,
				(payload, letter) -> {
					if (payload.startsWith("poison")) {
						throw new IllegalArgumentException("cannot handle " + payload);
					}
					handled.merge(payload, letter, (a, b) -> {
						throw new AssertionError("handled twice: " + payload);
					});
				});
		this.resources.add(consumer::stop);
		return consumer;
	}

	@Test
	void eachDeadLetterOfTheGroupIsHandedToTheApplicationOnce(TestInfo info) {
		String queue = info.getTestMethod().orElseThrow().getName();
		failing(queue, "shop");
		failing(queue, "audit");
		this.engine.template()
			.send(DelayMessage.builder("before").queue(queue).id("m-before").header("tenant", "acme").build());
		await().atMost(Duration.ofSeconds(10)).until(() -> this.engine.admin().stats(queue).dead() == 2);
		// two instances of the application: one consumer group, each letter once
		Map<String, DeadLetter> handled = new ConcurrentHashMap<>();
		DeadLetterConsumer first = consumer(queue, "shop", handled);
		DeadLetterConsumer second = consumer(queue, "shop", handled);
		first.start();
		second.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.containsKey("before"));
		for (int i = 0; i < 10; i++) {
			this.engine.template().send(DelayMessage.builder("after-" + i).queue(queue).build());
		}
		this.engine.template().send(DelayMessage.builder("poison-1").queue(queue).build());
		await().atMost(Duration.ofSeconds(15)).until(() -> handled.size() == 11);
		DeadLetter letter = handled.get("before");
		assertThat(letter.group()).isEqualTo("shop");
		assertThat(letter.messageId()).isEqualTo("m-before");
		assertThat(letter.attempts()).isEqualTo(2);
		assertThat(letter.errorMessage()).isEqualTo("refused before by shop");
		assertThat(letter.headers()).containsEntry("tenant", "acme");
		assertThat(handled.values()).allMatch((each) -> each.group().equals("shop"));
		assertThat(first.handledCount() + second.handledCount()).isEqualTo(11);
		// handled or not, the dead letters stay for replay: 12 of each group
		await().atMost(Duration.ofSeconds(10)).until(() -> this.engine.admin().stats(queue).dead() == 24);
		assertThat(first.isServing()).isTrue();
	}

}
