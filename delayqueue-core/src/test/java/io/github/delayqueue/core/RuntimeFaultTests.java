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
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.HandlerTimeoutException;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The listener runtime tried as a hostile user would, against a real Redis: handlers that
 * misbehave, starts and stops in any interleaving, a restart after a stop that timed out,
 * a hung handler, retries behind a backlog, a read whose reply was lost, and consumers
 * left behind. Each test fails on the runtime of v0.1.
 */
@RedisTest
class RuntimeFaultTests {

	private final RedisServer redis;

	private final DelayQueueEngine engine;

	private final List<DelayQueueListenerContainer> containers = new CopyOnWriteArrayList<>();

	/** Released after each test: handlers that block until the test ends. */
	private final CountDownLatch testEnded = new CountDownLatch(1);

	private final AtomicLong abandoned = new AtomicLong();

	private String queue;

	RuntimeFaultTests(RedisServer redis, RedisConnectionFactory connectionFactory) {
		this.redis = redis;
		this.engine = DelayQueueEngine.builder(connectionFactory).observer(new DelayQueueObserver() {
			@Override
			public void abandoned(String queue, String group) {
				RuntimeFaultTests.this.abandoned.incrementAndGet();
			}
		}).build();
	}

	@BeforeEach
	void queueName(TestInfo info) {
		this.queue = info.getTestMethod().orElseThrow().getName() + "-" + info.getDisplayName().hashCode();
	}

	@AfterEach
	void stopAll() {
		this.testEnded.countDown();
		this.containers.forEach(DelayQueueListenerContainer::stop);
		this.engine.close();
	}

	private DelayQueueListenerContainer.Builder<String> container(String group, DelayMessageHandler<String> handler) {
		return this.engine.listenerContainer(this.queue, group, String.class, handler)
			.pollTimeout(Duration.ofMillis(500))
			.visibilityTimeout(Duration.ofSeconds(2))
			.shutdownTimeout(Duration.ofSeconds(2))
			.retryPolicy(RetryPolicy.fixed(2, Duration.ofMillis(100)));
	}

	private DelayQueueListenerContainer started(DelayQueueListenerContainer.Builder<String> builder) {
		DelayQueueListenerContainer container = builder.build();
		this.containers.add(container);
		container.start();
		return container;
	}

	private void send(String... payloads) {
		for (String payload : payloads) {
			this.engine.template().send(DelayMessage.builder(payload).queue(this.queue).id(payload).build());
		}
	}

	private void blockUntilTestEnds() {
		// swallows interrupts: a handler the container cannot stop
		while (this.testEnded.getCount() > 0) {
			try {
				this.testEnded.await();
			}
			catch (InterruptedException ex) {
				// ignored on purpose
			}
		}
	}

	enum Misbehaviour {

		RETURNS_INTERRUPTED, THROWS_UNPRINTABLE, THROWS_ASSERTION_ERROR, OVERFLOWS_STACK, INTERRUPTS_THEN_BLOCKS

	}

	private static int recurse(int depth) {
		return recurse(depth + 1) + 1;
	}

	@ParameterizedTest
	@EnumSource(Misbehaviour.class)
	void aMisbehavingHandlerNeverStopsTheContainer(Misbehaviour misbehaviour) throws Exception {
		CyclicBarrier pair = new CyclicBarrier(2);
		Set<String> handled = ConcurrentHashMap.newKeySet();
		List<Integer> badAttempts = new CopyOnWriteArrayList<>();
		DelayQueueListenerContainer container = started(container("g", (payload, context) -> {
			if (payload.startsWith("bad")) {
				badAttempts.add(context.attempt());
				misbehave(misbehaviour);
				return;
			}
			if (payload.startsWith("pair")) {
				// both of a pair run at once only with both workers alive
				pair.await(10, TimeUnit.SECONDS);
			}
			handled.add(payload);
		}).concurrency(2).leaseRenewalLimit(Duration.ofSeconds(1)));
		send("bad");
		if (misbehaviour == Misbehaviour.RETURNS_INTERRUPTED) {
			await().atMost(Duration.ofSeconds(10)).until(() -> !badAttempts.isEmpty() && container.heldMessages() == 0);
		}
		else {
			// retried once, then dead (a hung handler is given up past the renewal limit)
			await().atMost(Duration.ofSeconds(15)).until(() -> this.engine.admin().stats(this.queue).dead() == 1);
		}
		// then both workers still serve: each pair runs at once
		for (int round = 0; round < 3; round++) {
			send("pair-a" + round, "pair-b" + round);
			int expected = 2 * (round + 1);
			await().atMost(Duration.ofSeconds(15)).until(() -> handled.size() == expected);
		}
		if (misbehaviour == Misbehaviour.RETURNS_INTERRUPTED) {
			assertThat(badAttempts).containsExactly(1);
			assertThat(this.engine.admin().stats(this.queue).dead()).isZero();
		}
		else {
			assertThat(badAttempts).containsExactly(1, 2);
			assertThat(this.engine.admin().stats(this.queue).dead()).isEqualTo(1);
		}
		await().atMost(Duration.ofSeconds(5)).until(container::isHealthy);
		assertThat(container.heldMessages()).isZero();
	}

	private void misbehave(Misbehaviour misbehaviour) {
		switch (misbehaviour) {
			case RETURNS_INTERRUPTED -> Thread.currentThread().interrupt();
			case THROWS_UNPRINTABLE -> throw new IllegalStateException() {

				private static final long serialVersionUID = 1L;

				@Override
				public String getMessage() {
					throw new UnsupportedOperationException("no message");
				}

				@Override
				public String toString() {
					throw new UnsupportedOperationException("no string");
				}

			};
			case THROWS_ASSERTION_ERROR -> throw new AssertionError("handler assertion");
			case OVERFLOWS_STACK -> recurse(0);
			case INTERRUPTS_THEN_BLOCKS -> {
				Thread.currentThread().interrupt();
				blockUntilTestEnds();
			}
		}
	}

	@Test
	void startsAndStopsInAnyInterleavingKeepTheQueueMoving() throws Exception {
		Set<String> handled = ConcurrentHashMap.newKeySet();
		DelayMessageHandler<String> handler = (payload, context) -> handled.add(context.group() + "/" + payload);
		List<DelayQueueListenerContainer> nodes = new ArrayList<>();
		for (String group : List.of("a", "a", "b", "c")) {
			// built, not started: the threads below start and stop them
			DelayQueueListenerContainer container = container(group, handler).shutdownTimeout(Duration.ofMillis(500))
				.build();
			this.containers.add(container);
			nodes.add(container);
		}
		ExecutorService threads = Executors.newFixedThreadPool(nodes.size());
		try {
			Random random = new Random(11);
			for (int round = 0; round < 40; round++) {
				// a burst of concurrent starts and stops in random order
				List<Future<?>> toggles = new ArrayList<>();
				for (int i = 0; i < 8; i++) {
					DelayQueueListenerContainer node = nodes.get(random.nextInt(nodes.size()));
					boolean start = random.nextBoolean();
					toggles.add(threads.submit(() -> {
						if (start) {
							node.start();
						}
						else {
							node.stop();
						}
					}));
				}
				for (Future<?> toggle : toggles) {
					toggle.get(30, TimeUnit.SECONDS);
				}
				List<DelayQueueListenerContainer> running = nodes.stream()
					.filter(DelayQueueListenerContainer::isRunning)
					.toList();
				if (running.isEmpty()) {
					nodes.get(round % nodes.size()).start();
					continue;
				}
				// whenever one runs, the scheduler runs: a message due 200 ms ahead
				// arrives
				String payload = "m" + round;
				this.engine.template().send(this.queue, payload, Duration.ofMillis(200));
				String expected = running.get(0).group() + "/" + payload;
				await().atMost(Duration.ofSeconds(10)).until(() -> handled.contains(expected));
				running.forEach((node) -> assertThat(node.isHealthy()).as(node.consumerName()).isTrue());
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void joinsAndLeavesRacingAStoppingSchedulerLeaveNoGroupWithoutOne(RedisConnectionFactory connectionFactory)
			throws Exception {
		ExecutorService threads = Executors.newFixedThreadPool(4);
		try (io.github.delayqueue.core.internal.runtime.LoopRunner loops = new io.github.delayqueue.core.internal.runtime.LoopRunner();
				io.github.delayqueue.core.internal.scheduling.Schedulers schedulers = new io.github.delayqueue.core.internal.scheduling.Schedulers(
						new io.github.delayqueue.core.internal.redis.ScriptRunner(connectionFactory), connectionFactory,
						100, Duration.ofMillis(200), (queue) -> {
						}, (queue) -> false, 60_000, loops)) {
			QueueKeys keys = this.engine.keys(this.queue);
			for (int round = 0; round < 1000; round++) {
				// one member joined for good; others join and leave around it
				List<Future<?>> steps = new ArrayList<>();
				steps.add(threads.submit(() -> schedulers.join(keys, "g1")));
				steps.add(threads.submit(() -> schedulers.leave(keys, "g2")));
				steps.add(threads.submit(() -> schedulers.join(keys, "g2")));
				steps.add(threads.submit(() -> schedulers.leave(keys, "g1")));
				for (Future<?> step : steps) {
					step.get(30, TimeUnit.SECONDS);
				}
				// each round joins and leaves each group once: any remaining members (a
				// leave may have come before its join) must have a scheduler
				schedulers.join(keys, "anchor");
				assertThat(schedulers.problem(keys)).as("round " + round).isNull();
				schedulers.leave(keys, "anchor");
			}
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void aRestartAfterAStopThatTimedOutNeverRunsMoreHandlersThanTheConcurrency() throws Exception {
		AtomicInteger runningNow = new AtomicInteger();
		AtomicInteger mostAtOnce = new AtomicInteger();
		CountDownLatch slowStarted = new CountDownLatch(1);
		CountDownLatch releaseSlow = new CountDownLatch(1);
		Set<String> handled = ConcurrentHashMap.newKeySet();
		DelayQueueListenerContainer container = started(container("g", (payload, context) -> {
			mostAtOnce.accumulateAndGet(runningNow.incrementAndGet(), Math::max);
			try {
				if (payload.equals("slow")) {
					slowStarted.countDown();
					releaseSlow.await();
				}
				else {
					Thread.sleep(5);
				}
				handled.add(payload);
			}
			finally {
				runningNow.decrementAndGet();
			}
		}).concurrency(1).shutdownTimeout(Duration.ofMillis(200)).visibilityTimeout(Duration.ofSeconds(30)));
		send("slow");
		assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
		container.stop();
		container.start();
		for (int i = 0; i < 10; i++) {
			send("fast" + i);
		}
		Thread.sleep(1000);
		releaseSlow.countDown();
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 11);
		assertThat(mostAtOnce.get()).as("handlers at once").isEqualTo(1);
		// the late handler's ack was sent: nothing stays pending, nothing is held
		await().atMost(Duration.ofSeconds(5)).until(() -> container.heldMessages() == 0);
		String stream = this.engine.keys(this.queue).stream();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> ((List<?>) this.redis.execute("XPENDING", stream, "g")).get(0).equals(0L));
	}

	@Test
	void aHungHandlerIsAbandonedAndTheGroupKeepsFlowing() throws Exception {
		Set<String> handled = ConcurrentHashMap.newKeySet();
		DelayQueueListenerContainer container = started(container("g", (payload, context) -> {
			if (payload.equals("hung")) {
				blockUntilTestEnds();
			}
			handled.add(payload);
		}).concurrency(1).visibilityTimeout(Duration.ofSeconds(1)).leaseRenewalLimit(Duration.ofSeconds(1)));
		send("hung");
		Thread.sleep(200);
		send("after1", "after2", "after3");
		// attempt 1 hangs, is given up and retried; attempt 2 hangs too and is dead
		await().atMost(Duration.ofSeconds(20)).until(() -> this.engine.admin().stats(this.queue).dead() == 1);
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 3);
		DeadLetter dead = this.engine.admin().deadLetters(this.queue, null, 10).get(0);
		assertThat(dead.messageId()).isEqualTo("hung");
		assertThat(dead.errorClass()).isEqualTo(HandlerTimeoutException.class.getName());
		assertThat(dead.attempts()).isEqualTo(2);
		assertThat(container.abandonedHandlers()).isEqualTo(2);
		assertThat(this.abandoned.get()).isEqualTo(2);
		await().atMost(Duration.ofSeconds(5)).until(container::isHealthy);
	}

	@Test
	void aDueRetryIsNotStarvedByABacklog() throws Exception {
		Map<String, Long> handledAt = new ConcurrentHashMap<>();
		AtomicLong retryDueAt = new AtomicLong();
		DelayQueueListenerContainer container = container("g", (payload, context) -> {
			if (payload.equals("flaky") && context.attempt() == 1) {
				retryDueAt.set(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(100));
				throw new IllegalStateException("first attempt fails");
			}
			Thread.sleep(10);
			handledAt.put(payload, System.nanoTime());
		}).concurrency(1).prefetch(1).pollTimeout(Duration.ofSeconds(5)).build();
		this.containers.add(container);
		List<DelayMessage<?>> backlog = new ArrayList<>();
		backlog.add(DelayMessage.builder("flaky").queue(this.queue).id("flaky").build());
		for (int i = 0; i < 300; i++) {
			backlog.add(DelayMessage.builder("b" + i).queue(this.queue).id("b" + i).build());
		}
		this.engine.template().sendAll(backlog);
		container.start();
		// 300 x 10 ms of backlog: the retry must not wait for it
		await().atMost(Duration.ofSeconds(20)).until(() -> handledAt.containsKey("flaky"));
		long lateMillis = TimeUnit.NANOSECONDS.toMillis(handledAt.get("flaky") - retryDueAt.get());
		assertThat(lateMillis).as("retry handled late by (ms)").isLessThan(1000);
		assertThat(handledAt).hasSizeLessThan(200);
	}

	@Test
	void aReadWhoseReplyWasLostIsDeliveredAfterReconnectingNotAfterTheVisibilityTimeout() {
		String stream = this.engine.keys(this.queue).stream();
		this.redis.execute("XGROUP", "CREATE", stream, "g", "0", "MKSTREAM");
		this.engine.template().send(this.queue, "lost", Duration.ZERO);
		// the read reached Redis, its reply did not reach the consumer
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.redis.execute("XREADGROUP", "GROUP", "g", "c1", "COUNT", "1", "STREAMS", stream,
					">") != null);
		long start = System.nanoTime();
		Set<String> handled = ConcurrentHashMap.newKeySet();
		started(container("g", (payload, context) -> handled.add(payload)).consumerName("c1")
			.visibilityTimeout(Duration.ofSeconds(30)));
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.contains("lost"));
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(5000);
	}

	@Test
	void consumersDoNotPileUpAcrossRestartsAndCrashes() throws Exception {
		Set<String> handled = ConcurrentHashMap.newKeySet();
		String stream = this.engine.keys(this.queue).stream();
		for (int i = 0; i < 50; i++) {
			DelayQueueListenerContainer container = started(container("g", (payload, context) -> handled.add(payload)));
			this.engine.template().send(this.queue, "r" + i, Duration.ZERO);
			int expected = i + 1;
			await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == expected);
			container.stop();
		}
		assertThat(consumers(stream)).as("consumers after 50 clean restarts").isEmpty();
		// crashed consumers: one that holds nothing, one that still holds an entry
		this.redis.execute("XGROUP", "CREATECONSUMER", stream, "g", "crashed-idle");
		this.engine.template().send(this.queue, "held", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.redis.execute("XREADGROUP", "GROUP", "g", "crashed-holding", "COUNT", "1", "STREAMS",
					stream, ">") != null);
		DelayQueueListenerContainer live = started(
				container("g", (payload, context) -> handled.add(payload)).consumerName("live")
					.visibilityTimeout(Duration.ofSeconds(60))
					.trimInterval(Duration.ofMillis(200))
					.staleConsumerTimeout(Duration.ofMillis(500)));
		await().atMost(Duration.ofSeconds(10)).until(() -> consumers(stream).equals(Set.of("live", "crashed-holding")));
		assertThat(live.isRunning()).isTrue();
	}

	private Set<String> consumers(String stream) {
		Set<String> names = new java.util.TreeSet<>();
		for (Object consumer : (List<?>) this.redis.execute("XINFO", "CONSUMERS", stream, "g")) {
			List<?> fields = (List<?>) consumer;
			names.add(String.valueOf(fields.get(1)));
		}
		return names;
	}

}
