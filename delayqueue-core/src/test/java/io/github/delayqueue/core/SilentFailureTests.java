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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What keeps a listener from working for more than a few seconds makes it unhealthy, with
 * the reason, and it heals once the fault is gone: a key of the wrong type where the
 * reader, the scheduler, the watchdog or the flow controls look (someone SETs a string
 * there), a Redis out of memory, a stream deleted under a running reader. Before, each of
 * these left {@code isHealthy()} true while nothing was handled.
 */
@RedisTest
class SilentFailureTests {

	private final RedisServer redis;

	private final RedisConnectionFactory connectionFactory;

	private final List<AutoCloseable> closing = new CopyOnWriteArrayList<>();

	private final Set<String> received = ConcurrentHashMap.newKeySet();

	private String queue;

	SilentFailureTests(RedisServer redis, RedisConnectionFactory connectionFactory) {
		this.redis = redis;
		this.connectionFactory = connectionFactory;
	}

	@BeforeEach
	void queueName(TestInfo info) {
		this.queue = info.getTestMethod().orElseThrow().getName();
	}

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable each : this.closing) {
			each.close();
		}
		this.redis.execute("CONFIG", "SET", "maxmemory", "0");
		this.redis.execute("FLUSHALL");
	}

	private DelayQueueEngine engine() {
		return engine(DelayQueueEngine.builder(this.connectionFactory));
	}

	private DelayQueueEngine engine(DelayQueueEngineBuilder builder) {
		DelayQueueEngine engine = builder.build();
		this.closing.add(engine);
		return engine;
	}

	private DelayQueueListenerContainer started(DelayQueueEngine engine) {
		DelayQueueListenerContainer container = engine
			.listenerContainer(this.queue, "g", String.class, (payload, context) -> this.received.add(payload))
			.pollTimeout(Duration.ofMillis(500))
			.trimInterval(Duration.ofMillis(500))
			.build();
		this.closing.add(0, container::stop);
		container.start();
		return container;
	}

	private QueueKeys keys(DelayQueueEngine engine) {
		return engine.keys(this.queue);
	}

	/** Unhealthy within a few seconds, saying why, and nothing handled meanwhile. */
	private void awaitUnhealthy(DelayQueueListenerContainer container, String... reason) {
		await().atMost(Duration.ofSeconds(10)).until(() -> !container.isHealthy());
		assertThat(container.isRunning()).isTrue();
		assertThat(container.unhealthyReason()).contains(reason);
	}

	private void awaitHealed(DelayQueueListenerContainer container, String message) {
		await().atMost(Duration.ofSeconds(10)).until(() -> this.received.contains(message));
		await().atMost(Duration.ofSeconds(5)).until(container::isHealthy);
		assertThat(container.unhealthyReason()).isNull();
	}

	@Test
	void aRegistryKeyOfTheWrongTypeMakesTheReaderUnhealthy() {
		DelayQueueEngine producer = engine();
		producer.template().send(this.queue, "waiting", Duration.ZERO);
		// someone SETs a string where the engines register their queues
		this.redis.execute("DEL", keys(producer).registry());
		this.redis.execute("SET", keys(producer).registry(), "oops");
		DelayQueueListenerContainer container = started(engine());
		awaitUnhealthy(container, "the reader of queue '" + this.queue + "', group 'g' has failed for", "WRONGTYPE");
		assertThat(this.received).isEmpty();

		this.redis.execute("DEL", keys(producer).registry());
		awaitHealed(container, "waiting");
	}

	@Test
	void aStreamOfTheWrongTypeMakesTheReaderUnhealthy() {
		DelayQueueEngine engine = engine();
		this.redis.execute("SET", keys(engine).stream(), "oops");
		DelayQueueListenerContainer container = started(engine);
		awaitUnhealthy(container, "the reader of queue '" + this.queue + "'", "WRONGTYPE");

		this.redis.execute("DEL", keys(engine).stream());
		engine.template().send(this.queue, "after", Duration.ZERO);
		awaitHealed(container, "after");
	}

	@Test
	void aScheduleOfTheWrongTypeMakesTheSchedulerUnhealthy() {
		// an idle scheduler calls Redis at its sweep only: a short one, to see it fail
		DelayQueueEngine engine = engine(
				DelayQueueEngine.builder(this.connectionFactory).schedulerMaxIdle(Duration.ofSeconds(1)));
		DelayQueueListenerContainer container = started(engine);
		await().atMost(Duration.ofSeconds(5)).until(container::isHealthy);
		this.redis.execute("SET", keys(engine).delayed(), "oops");
		awaitUnhealthy(container, "the scheduler of queue '" + this.queue + "' has failed for", "WRONGTYPE");

		this.redis.execute("DEL", keys(engine).delayed());
		engine.template().send(this.queue, "after", Duration.ofMillis(200));
		awaitHealed(container, "after");
	}

	@Test
	void aMetaKeyOfTheWrongTypeMakesTheListenerUnhealthy() {
		DelayQueueEngine engine = engine();
		engine.template().send(this.queue, "waiting", Duration.ZERO);
		this.redis.execute("DEL", keys(engine).meta());
		this.redis.execute("SET", keys(engine).meta(), "oops");
		DelayQueueListenerContainer container = started(engine());
		awaitUnhealthy(container, "WRONGTYPE");
		assertThat(this.received).isEmpty();

		this.redis.execute("DEL", keys(engine).meta());
		awaitHealed(container, "waiting");
	}

	@Test
	void aDeadLetterStreamOfTheWrongTypeMakesTheWatchdogUnhealthy() {
		DelayQueueEngine engine = engine();
		// dead letters are trimmed at the slow sweep: every half stale consumer timeout
		DelayQueueListenerContainer container = engine
			.listenerContainer(this.queue, "g", String.class, (payload, context) -> this.received.add(payload))
			.pollTimeout(Duration.ofMillis(500))
			.staleConsumerTimeout(Duration.ofSeconds(1))
			.build();
		this.closing.add(0, container::stop);
		container.start();
		await().atMost(Duration.ofSeconds(5)).until(container::isHealthy);
		// trimming the dead letters fails from now on
		this.redis.execute("SET", keys(engine).dead(), "oops");
		awaitUnhealthy(container, "the lease keeper of queue '" + this.queue + "', group 'g' has failed for",
				"WRONGTYPE");

		this.redis.execute("DEL", keys(engine).dead());
		engine.template().send(this.queue, "after", Duration.ZERO);
		awaitHealed(container, "after");
	}

	@Test
	void aRedisOutOfMemoryMakesAReaderThatCannotCreateItsGroupUnhealthy() {
		DelayQueueEngine engine = engine();
		engine.template().send(this.queue, "waiting", Duration.ZERO);
		this.redis.execute("CONFIG", "SET", "maxmemory", "1");
		DelayQueueListenerContainer container = started(engine);
		awaitUnhealthy(container, "the reader of queue '" + this.queue + "'", "OOM");
		assertThat(this.received).isEmpty();

		this.redis.execute("CONFIG", "SET", "maxmemory", "0");
		awaitHealed(container, "waiting");
	}

	@Test
	void aStreamDeletedUnderARunningReaderIsCreatedAgainAndReadingGoesOn() {
		DelayQueueEngine engine = engine();
		DelayQueueListenerContainer container = started(engine);
		engine.template().send(this.queue, "before", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.received.contains("before"));
		// the group goes with it: the next read is refused (NOGROUP)
		this.redis.execute("DEL", keys(engine).stream());
		engine.template().send(this.queue, "after", Duration.ZERO);
		awaitHealed(container, "after");
	}

}
