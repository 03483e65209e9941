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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerExtension;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Redis hung or gone, with the client settings a new Spring Boot user has: every wait of
 * the engine is bounded by its own timeout, not by the client's command timeout (60 s by
 * default), and a short client timeout never cuts a listener's blocking read.
 */
@Tag("faults")
class BoundedWaitTests {

	private RedisServer redis;

	private final List<LettuceConnectionFactory> factories = new ArrayList<>();

	private final List<DelayQueueEngine> engines = new ArrayList<>();

	private final List<DelayQueueListenerContainer> containers = new ArrayList<>();

	@BeforeEach
	void startServer() {
		this.redis = RedisServer.builder().start();
	}

	@AfterEach
	void stopAll() {
		try {
			this.redis.resume();
			this.containers.forEach(DelayQueueListenerContainer::stop);
			this.engines.forEach(DelayQueueEngine::close);
		}
		finally {
			this.factories.forEach(LettuceConnectionFactory::destroy);
			this.redis.close();
		}
	}

	private DelayQueueEngine engine(Duration clientTimeout, Duration operationTimeout) {
		LettuceConnectionFactory factory = RedisServerExtension.connectionFactory(this.redis, clientTimeout);
		this.factories.add(factory);
		DelayQueueEngineBuilder builder = DelayQueueEngine.builder(factory);
		if (operationTimeout != null) {
			builder.operationTimeout(operationTimeout);
		}
		DelayQueueEngine engine = builder.build();
		this.engines.add(engine);
		return engine;
	}

	@Test
	void withRedisHungEveryOperationFailsWithinItsOwnBoundNotTheClientTimeout() {
		DelayQueueEngine engine = engine(Duration.ofSeconds(60), null);
		engine.template().send("orders", "warm-up", Duration.ofHours(1));
		this.redis.pause();
		List<ThrowingCallable> calls = List.of(() -> engine.template().send("orders", "x", Duration.ofMinutes(1)),
				() -> engine.template().cancel("orders", "warm-up"),
				() -> engine.template().reschedule("orders", "warm-up", Duration.ofMinutes(2)),
				() -> engine.admin().stats("orders"), () -> engine.admin().queues());
		for (ThrowingCallable call : calls) {
			long started = System.nanoTime();
			assertThatExceptionOfType(DelayQueueException.class).isThrownBy(call)
				.withMessageContaining("Redis did not answer within 2000 ms")
				.withMessageContaining("may or may not have taken effect");
			long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
			assertThat(millis).as("failed after (ms)").isBetween(1900L, 3500L);
			assertThat(Thread.currentThread().isInterrupted()).as("no interrupt leaks to the caller").isFalse();
		}
		this.redis.resume();
		assertThat(engine.template().send("orders", "after", Duration.ZERO).status())
			.isEqualTo(SendResult.Status.READY);
	}

	@Test
	void theOperationTimeoutIsConfigurable() {
		DelayQueueEngine engine = engine(Duration.ofSeconds(60), Duration.ofMillis(300));
		engine.template().send("orders", "warm-up", Duration.ofHours(1));
		this.redis.pause();
		long started = System.nanoTime();
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> engine.template().send("orders", "x", Duration.ofMinutes(1)))
			.withMessageContaining("within 300 ms");
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(1500);
		assertThatExceptionOfType(IllegalArgumentException.class)
			.isThrownBy(() -> DelayQueueEngine.builder(this.factories.get(0)).operationTimeout(Duration.ZERO))
			.withMessage("Operation timeout must be positive, but was PT0S");
	}

	@Test
	void aShortClientTimeoutNeverCutsABlockingReadAndDelaysNothing() throws Exception {
		// spring.data.redis.timeout=2s with the default 5 s poll timeout
		DelayQueueEngine engine = engine(Duration.ofSeconds(2), null);
		Map<String, Long> handledAt = new ConcurrentHashMap<>();
		DelayQueueListenerContainer container = engine
			.listenerContainer("short", "g", String.class,
					(payload, context) -> handledAt.put(payload, System.nanoTime()))
			.build();
		this.containers.add(container);
		container.start();
		engine.template().send("short", "warm-up", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> handledAt.containsKey("warm-up"));
		long connections = Long.parseLong(this.redis.info("total_connections_received"));
		// messages sent at different points of the idle reader's polls
		for (long idle : new long[] { 2300, 1100, 2900 }) {
			Thread.sleep(idle);
			String payload = "after-" + idle;
			long sent = System.nanoTime();
			engine.template().send("short", payload, Duration.ZERO);
			await().atMost(Duration.ofSeconds(35)).until(() -> handledAt.containsKey(payload));
			assertThat(TimeUnit.NANOSECONDS.toMillis(handledAt.get(payload) - sent))
				.as("%s handled after (ms)", payload)
				.isLessThan(500);
		}
		// a read cut by the client's timeout would reconnect; the one is this INFO's own
		assertThat(Long.parseLong(this.redis.info("total_connections_received")) - connections)
			.as("connections opened while idle")
			.isEqualTo(1);
	}

	@Test
	void aContainerStartedWhileRedisIsDownStopsCleanly() {
		int port = this.redis.port();
		this.redis.close();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", port));
		factory.afterPropertiesSet();
		factory.start();
		this.factories.add(factory);
		DelayQueueEngine engine = DelayQueueEngine.builder(factory).build();
		this.engines.add(engine);
		DelayQueueListenerContainer container = engine
			.listenerContainer("down", "g", String.class, (payload, context) -> {
			})
			.shutdownTimeout(Duration.ofSeconds(1))
			.build();
		container.start();
		assertThat(container.isRunning()).isTrue();
		long started = System.nanoTime();
		container.stop();
		assertThat(container.isRunning()).isFalse();
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(10_000);
		this.redis = RedisServer.builder().port(port).start();
	}

}
