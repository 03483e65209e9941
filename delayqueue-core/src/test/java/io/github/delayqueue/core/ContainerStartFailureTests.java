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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

import io.github.delayqueue.core.event.ContainerFailedToStartEvent;
import io.github.delayqueue.core.event.ContainerStartedEvent;
import io.github.delayqueue.core.event.DelayQueueEvent;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * When a container's start fails, {@code start()} throws and a
 * {@link ContainerFailedToStartEvent} says why: a closed engine, a listener's executor
 * that refuses a worker or has no free thread for one. A start does not need Redis, so
 * what Redis refuses later (a key of the wrong type) is a started container that is not
 * healthy. An executor with fewer threads than the concurrency runs the handlers it can;
 * one that leaves a worker waiting for a thread 3 s (its thread held by a hung handler)
 * makes the container unhealthy, and it heals once the thread is back.
 */
@RedisTest
class ContainerStartFailureTests {

	private final RedisConnectionFactory connectionFactory;

	private final List<DelayQueueEvent> events = new CopyOnWriteArrayList<>();

	private final List<Runnable> closing = new CopyOnWriteArrayList<>();

	ContainerStartFailureTests(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@AfterEach
	void close() {
		this.closing.forEach(Runnable::run);
	}

	private DelayQueueEngine engine() {
		DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory)
			.eventListener(this.events::add)
			.build();
		this.closing.add(engine::close);
		return engine;
	}

	private <T extends DelayQueueEvent> List<T> events(Class<T> type) {
		return this.events.stream().filter(type::isInstance).map(type::cast).toList();
	}

	private void assertFailedToStart(DelayQueueListenerContainer container, IllegalStateException thrown) {
		assertThat(container.isRunning()).isFalse();
		assertThat(container.isHealthy()).isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> !events(ContainerFailedToStartEvent.class).isEmpty());
		ContainerFailedToStartEvent failed = events(ContainerFailedToStartEvent.class).get(0);
		assertThat(failed.cause()).isSameAs(thrown);
		assertThat(failed.consumer()).isEqualTo(container.consumerName());
		assertThat(events(ContainerStartedEvent.class)).isEmpty();
	}

	@Test
	void aStartOnAClosedEngineThrowsAndSaysSo() {
		DelayQueueEngine engine = engine();
		DelayQueueListenerContainer container = engine
			.listenerContainer("closed-engine", "g", String.class, (payload, context) -> {
			})
			.build();
		engine.close();
		IllegalStateException thrown = catchStart(container);
		assertThat(thrown).hasMessageContaining("closed");
		assertFailedToStart(container, thrown);
	}

	@Test
	void anExecutorThatRefusesTheWorkersFailsTheStart() {
		DelayQueueListenerContainer container = engine()
			.listenerContainer("refused-workers", "g", String.class, (payload, context) -> {
			})
			.executor((worker) -> {
				throw new RejectedExecutionException("queue full");
			})
			.build();
		IllegalStateException thrown = catchStart(container);
		assertThat(thrown).hasMessageContaining("refused a worker").hasMessageContaining("queue full");
		assertFailedToStart(container, thrown);
	}

	@Test
	void anExecutorWithNoFreeThreadFailsTheStart() {
		ExecutorService oneThread = Executors.newSingleThreadExecutor();
		CountDownLatch release = new CountDownLatch(1);
		this.closing.add(oneThread::shutdownNow);
		this.closing.add(0, release::countDown);
		oneThread.execute(() -> {
			try {
				release.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		});
		DelayQueueListenerContainer container = engine()
			.listenerContainer("no-free-thread", "g", String.class, (payload, context) -> {
			})
			.concurrency(3)
			.executor(oneThread)
			.build();
		IllegalStateException thrown = catchStart(container);
		assertThat(thrown).hasMessageContaining("did not run a worker within 3 s");
		assertFailedToStart(container, thrown);
	}

	@Test
	void anExecutorWithFewerThreadsThanTheConcurrencyRunsTheHandlersItCan() {
		ExecutorService oneThread = Executors.newSingleThreadExecutor();
		this.closing.add(oneThread::shutdownNow);
		DelayQueueEngine engine = engine();
		Set<String> handled = ConcurrentHashMap.newKeySet();
		DelayQueueListenerContainer container = engine
			.listenerContainer("one-thread", "g", String.class, (payload, context) -> handled.add(payload))
			.concurrency(3)
			.executor(oneThread)
			.build();
		this.closing.add(0, container::stop);
		container.start();
		for (int i = 0; i < 20; i++) {
			engine.template().send("one-thread", "m" + i, Duration.ZERO);
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 20);
		assertThat(container.isHealthy()).isTrue();
	}

	@Test
	void aWorkerThatWaitsForAThreadMakesTheContainerUnhealthyUntilItRuns() {
		ExecutorService oneThread = Executors.newFixedThreadPool(1);
		this.closing.add(oneThread::shutdownNow);
		DelayQueueEngine engine = engine();
		CountDownLatch release = new CountDownLatch(1);
		Set<String> handled = ConcurrentHashMap.newKeySet();
		DelayQueueListenerContainer container = engine
			.listenerContainer("busy-executor", "g", String.class, (payload, context) -> {
				if (payload.equals("hang") && context.attempt() == 1) {
					// deaf to the interrupt of the watchdog: keeps its thread
					while (release.getCount() > 0) {
						try {
							release.await();
						}
						catch (InterruptedException ex) {
							// keep waiting
						}
					}
				}
				handled.add(payload);
			})
			.concurrency(2)
			.executor(oneThread)
			.visibilityTimeout(Duration.ofMillis(600))
			.leaseRenewalLimit(Duration.ofSeconds(1))
			.build();
		this.closing.add(0, container::stop);
		this.closing.add(0, release::countDown);
		container.start();
		try {
			assertThat(container.isHealthy()).isTrue();
			engine.template().send(DelayMessage.builder("hang").queue("busy-executor").id("hang").build());
			// abandoned after 1 s; the worker for its next attempt waits for the one
			// thread
			await().atMost(Duration.ofSeconds(10)).until(() -> !container.isHealthy());
			assertThat(container.unhealthyReason()).contains("workers have waited")
				.contains("for a thread of the executor");
		}
		finally {
			release.countDown();
		}
		await().atMost(Duration.ofSeconds(5)).until(container::isHealthy);
		engine.template().send("busy-executor", "after", Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> handled.contains("after"));
		assertThat(handled).contains("hang");
	}

	private static IllegalStateException catchStart(DelayQueueListenerContainer container) {
		try {
			container.start();
		}
		catch (IllegalStateException ex) {
			return ex;
		}
		throw new AssertionError("start() did not throw");
	}

}
