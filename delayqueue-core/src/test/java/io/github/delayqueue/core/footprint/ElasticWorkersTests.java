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

package io.github.delayqueue.core.footprint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The workers of all an engine's listeners run on one elastic pool: an idle listener
 * holds no thread, whatever its concurrency; a listener's concurrency bounds its running
 * handlers; hung handlers of some queues do not take the turn of another.
 */
@RedisTest
class ElasticWorkersTests {

	private final RedisConnectionFactory connectionFactory;

	private final List<Runnable> closing = new CopyOnWriteArrayList<>();

	ElasticWorkersTests(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@AfterEach
	void close() {
		this.closing.forEach(Runnable::run);
	}

	private DelayQueueEngine engine() {
		DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build();
		this.closing.add(engine::close);
		return engine;
	}

	private DelayQueueListenerContainer started(DelayQueueListenerContainer container) {
		this.closing.add(0, container::stop);
		container.start();
		return container;
	}

	private static long workerThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			// the shared pool's delayqueue-worker-<n>, and the per-container threads of
			// before (delayqueue-<queue>-<group>-worker-<n>)
			.filter((thread) -> thread.getName().startsWith("delayqueue-") && thread.getName().contains("worker-")
					&& thread.isAlive())
			.count();
	}

	@Test
	void idleListenersHoldNoWorkerThreadsAndGiveBackThoseTheyTook() {
		DelayQueueEngine engine = engine();
		Set<String> handled = ConcurrentHashMap.newKeySet();
		int queues = 200;
		for (int i = 0; i < queues; i++) {
			started(engine
				.listenerContainer("elastic-" + i, "g", String.class, (payload, context) -> handled.add(payload))
				.concurrency(4)
				.build());
		}
		// 800 worker threads before the shared pool
		assertThat(workerThreads()).isLessThan(3);
		for (int i = 0; i < queues; i++) {
			engine.template().send("elastic-" + i, "m" + i, Duration.ZERO);
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == queues);
		// a worker lingers 1 s, a thread of the pool 10 s
		await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(500)).until(() -> workerThreads() == 0);
	}

	@Test
	void aListenersConcurrencyBoundsItsRunningHandlers() {
		DelayQueueEngine engine = engine();
		AtomicInteger running = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		Set<String> handled = ConcurrentHashMap.newKeySet();
		started(engine.listenerContainer("bounded", "g", String.class, (payload, context) -> {
			most.accumulateAndGet(running.incrementAndGet(), Math::max);
			try {
				TimeUnit.MILLISECONDS.sleep(50);
			}
			finally {
				running.decrementAndGet();
			}
			handled.add(payload);
		}).concurrency(3).prefetch(20).build());
		for (int i = 0; i < 60; i++) {
			engine.template().send("bounded", "m" + i, Duration.ZERO);
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == 60);
		assertThat(most.get()).isEqualTo(3);
	}

	@Test
	void hungHandlersOfNineQueuesDoNotDelayATenth() {
		DelayQueueEngine engine = engine();
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger hung = new AtomicInteger();
		List<String> hungQueues = new ArrayList<>();
		for (int i = 0; i < 9; i++) {
			hungQueues.add("hung-" + i);
			started(engine.listenerContainer("hung-" + i, "g", String.class, (payload, context) -> {
				hung.incrementAndGet();
				release.await();
			}).concurrency(2).build());
		}
		Set<String> handled = ConcurrentHashMap.newKeySet();
		started(engine.listenerContainer("free", "g", String.class, (payload, context) -> handled.add(payload))
			.concurrency(1)
			.build());
		// before the containers stop
		this.closing.add(0, release::countDown);
		for (String queue : hungQueues) {
			for (int i = 0; i < 4; i++) {
				engine.template().send(queue, "h" + i, Duration.ZERO);
			}
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> hung.get() == 18);
		long sent = System.nanoTime();
		engine.template().send("free", "f", Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> handled.contains("f"));
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent)).isLessThan(3000);
		// each hung queue runs no more than its concurrency
		assertThat(hung.get()).isEqualTo(18);
	}

}
