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

package io.github.delayqueue.boot.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link EmbeddedRedis} on a Spring Boot test: the context runs on a Redis server of its
 * own, and {@link DelayQueueTestSupport} makes messages scheduled for later due now and
 * waits until the listener handled them, through Redis and the listener container.
 */
@SpringBootTest(properties = { "spring.application.name=shop", "delayqueue.listener.retry.initial-backoff=50ms" })
@EmbeddedRedis
class EmbeddedRedisTests {

	@Autowired
	private DelayQueueTestSupport delayQueues;

	@Autowired
	private DelayQueueTemplate template;

	@Autowired
	private DelayQueueEngine engine;

	@Autowired
	private Listener listener;

	@Autowired
	private RedisServer redis;

	@Value("${spring.data.redis.port}")
	private int port;

	@Test
	void theContextRunsOnARedisServerOfItsOwn() {
		assertThat(this.port).isEqualTo(this.redis.port()).isNotEqualTo(6379);
		assertThat(this.redis.isRunning()).isTrue();
	}

	@Test
	void fastForwardMakesScheduledMessagesDueAndAwaitHandledWaitsForTheListener() {
		this.template.send(DelayMessage.builder("order-1").queue("timeouts").delay(Duration.ofMinutes(30)).build());
		this.template.send(DelayMessage.builder("order-2").queue("timeouts").delay(Duration.ofHours(2)).build());
		assertThat(this.delayQueues.fastForward("timeouts")).isEqualTo(2);
		this.delayQueues.awaitHandled("timeouts");
		assertThat(this.listener.received).contains("order-1", "order-2");
	}

	@Test
	void fastForwardChoosesMessagesByIdAndLeavesTheOthersScheduled() {
		for (String id : List.of("keep-1", "due-1", "due-2")) {
			this.template.send(DelayMessage.builder(id).queue("chosen").id(id).delay(Duration.ofHours(1)).build());
		}
		assertThat(this.delayQueues.fastForward("chosen", (id) -> id.startsWith("due-"))).isEqualTo(2);
		this.delayQueues.awaitHandled("chosen");
		assertThat(this.listener.received).contains("due-1", "due-2").doesNotContain("keep-1");
		assertThat(this.delayQueues.scheduledIds("chosen")).containsExactly("keep-1");
		assertThat(this.delayQueues.fastForward("chosen", "keep-1")).isTrue();
		assertThat(this.delayQueues.fastForward("chosen", "keep-1")).as("no longer scheduled").isFalse();
		this.delayQueues.awaitHandled("chosen");
		assertThat(this.listener.received).contains("keep-1");
	}

	@Test
	void awaitHandledSaysWhatIsLeftWhenTimeRunsOut() {
		this.template.send(DelayMessage.builder("stuck").queue("slow").build());
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> this.delayQueues.awaitHandled("slow", Duration.ofMillis(300)))
			.withMessageContaining("Queue 'slow' still has messages to handle after PT0.3S")
			.withMessageContaining("in flight");
		this.listener.release();
		this.delayQueues.awaitHandled("slow");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> this.delayQueues.awaitHandled("nobody-reads", Duration.ofMillis(100)))
			.withMessageContaining("no consumer group reads it");
	}

	@Test
	void awaitHandledSaysWhenTheQueueIsPaused() {
		this.delayQueues.fastForward("timeouts");
		this.delayQueues.awaitHandled("timeouts");
		this.engine.admin().pause("timeouts");
		try {
			this.template.send(DelayMessage.builder("held").queue("timeouts").build());
			assertThatExceptionOfType(AssertionError.class)
				.isThrownBy(() -> this.delayQueues.awaitHandled("timeouts", Duration.ofMillis(500)))
				.withMessageContaining("the queue is paused");
		}
		finally {
			this.engine.admin().resume("timeouts");
		}
		this.delayQueues.awaitHandled("timeouts");
		assertThat(this.listener.received).contains("held");
	}

	@SpringBootConfiguration
	@EnableAutoConfiguration
	static class Application {

		@Bean
		Listener listener() {
			return new Listener();
		}

	}

	static class Listener {

		final List<String> received = new CopyOnWriteArrayList<>();

		private final java.util.concurrent.CountDownLatch slow = new java.util.concurrent.CountDownLatch(1);

		@DelayListener(queue = "timeouts")
		void onTimeout(String order) {
			this.received.add(order);
		}

		@DelayListener(queue = "chosen")
		void onChosen(String order) {
			this.received.add(order);
		}

		@DelayListener(queue = "slow")
		void onSlow(String order) throws InterruptedException {
			this.slow.await();
			this.received.add(order);
		}

		void release() {
			this.slow.countDown();
		}

	}

}
