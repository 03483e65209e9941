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

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;

import io.github.delayqueue.core.internal.runtime.LoopRunner;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * What producers and consumers see when Redis goes away: producing operations fail fast
 * with a {@link DelayQueueException} naming the queue; listener containers and schedulers
 * keep running without spinning, and deliver what was scheduled before the outage and
 * what is sent after it once Redis is back, with no manual step. Each test has its own
 * server (AOF, fsync always, so a killed server keeps what was acknowledged).
 */
@Tag("faults")
class RedisUnavailableTests {

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	private RedisServer redis;

	private LettuceConnectionFactory connectionFactory;

	private DelayQueueEngine engine;

	private final List<DelayQueueListenerContainer> containers = new ArrayList<>();

	@BeforeEach
	void startServer() {
		this.redis = RedisServer.builder().appendOnly(RedisServer.AppendFsync.ALWAYS).start();
		this.connectionFactory = RedisServerExtension.connectionFactory(this.redis, COMMAND_TIMEOUT);
		this.engine = DelayQueueEngine.builder(this.connectionFactory).build();
	}

	@AfterEach
	void stopAll() {
		try {
			this.redis.startAgain();
			this.containers.forEach(DelayQueueListenerContainer::stop);
			this.engine.close();
		}
		finally {
			this.connectionFactory.destroy();
			this.redis.close();
		}
	}

	@Test
	void stoppingDoesNotWaitForTheCommandTimeoutWhenRedisIsGone() {
		// a client with Lettuce's default 60 s command timeout: the stop must not wait it
		// out
		LettuceConnectionFactory patient = RedisServerExtension.connectionFactory(this.redis, Duration.ofSeconds(60));
		DelayQueueEngine engine = DelayQueueEngine.builder(patient).build();
		try {
			DelayQueueListenerContainer container = engine
				.listenerContainer("stopping", "g", String.class, (payload, context) -> {
				})
				.shutdownTimeout(Duration.ofSeconds(2))
				.build();
			container.start();
			engine.template().send("stopping", "x", Duration.ZERO);
			await().atMost(Duration.ofSeconds(10))
				.until(() -> engine.admin().stats("stopping").groups().stream().anyMatch((g) -> g.consumers() > 0));
			this.redis.kill();
			org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(30), () -> container.stop());
			assertThat(container.isRunning()).isFalse();
		}
		finally {
			this.redis.startAgain();
			engine.close();
			patient.destroy();
		}
	}

	@Test
	void producingFailsFastWithAClearMessageNamingTheQueue() throws Exception {
		this.engine.template().send("orders", "warm-up", Duration.ofHours(1));
		this.redis.kill();
		long started = System.nanoTime();
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> this.engine.template().send("orders", "lost?", Duration.ofMinutes(1)))
			.withMessageStartingWith("Cannot send to queue(s) orders: ")
			.withCauseInstanceOf(DataAccessException.class);
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> this.engine.template()
				.sendAll(List.of(DelayMessage.builder("a").queue("orders").build(),
						DelayMessage.builder("b").queue("invoices").build())))
			.withMessageStartingWith("Cannot send to queue(s) orders, invoices: ");
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> this.engine.template().cancel("orders", "order-1"))
			.withMessageStartingWith("Cannot cancel message 'order-1' in queue 'orders': ");
		assertThatExceptionOfType(DelayQueueException.class)
			.isThrownBy(() -> this.engine.template().reschedule("orders", "order-1", Duration.ofSeconds(5)))
			.withMessageStartingWith("Cannot reschedule message 'order-1' in queue 'orders': ");
		assertThatExceptionOfType(DelayQueueException.class).isThrownBy(() -> this.engine.admin().stats("orders"))
			.withMessageStartingWith("Cannot read stats of queue 'orders': ");
		assertThatExceptionOfType(ExecutionException.class)
			.isThrownBy(
					() -> this.engine.template().sendAsync(DelayMessage.builder("async").queue("orders").build()).get())
			.havingCause()
			.isInstanceOf(DelayQueueException.class)
			.withMessageStartingWith("Cannot send to queue(s) orders: ");
		assertThat(Duration.ofNanos(System.nanoTime() - started)).as("six failed operations with a 1s command timeout")
			.isLessThan(Duration.ofSeconds(12));
	}

	@Test
	void producingFailsWithAClearMessageWhenRedisWasNeverReachable() {
		this.redis.kill();
		LettuceConnectionFactory fresh = RedisServerExtension.connectionFactory(this.redis, COMMAND_TIMEOUT);
		try (DelayQueueEngine neverConnected = DelayQueueEngine.builder(fresh).build()) {
			assertThatExceptionOfType(DelayQueueException.class)
				.isThrownBy(() -> neverConnected.template().send("payments", "p", Duration.ofSeconds(1)))
				.withMessageStartingWith("Cannot send to queue(s) payments: ")
				.withCauseInstanceOf(DataAccessException.class);
		}
		finally {
			fresh.destroy();
		}
	}

	@Test
	void listenerKeepsRunningThroughAnOutageAndDeliversEverythingAfterwards() throws Exception {
		Set<String> received = ConcurrentHashMap.newKeySet();
		DelayQueueListenerContainer container = this.engine
			.listenerContainer("outage", "g", String.class, (payload, context) -> received.add(payload))
			.concurrency(2)
			.pollTimeout(Duration.ofMillis(300))
			.visibilityTimeout(Duration.ofSeconds(2))
			.retryPolicy(RetryPolicy.fixed(5, Duration.ofMillis(200)))
			.build();
		container.start();
		this.containers.add(container);
		this.engine.template().send("outage", "warm-up", Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> received.contains("warm-up"));
		assertThat(this.engine.template().send("outage", "scheduled-before", Duration.ofMillis(1500)).status())
			.isEqualTo(SendResult.Status.SCHEDULED);

		this.redis.kill();
		List<Thread> threads = engineThreads("outage");
		// the reader is the queue's own; its scheduler, lease keeper and acker run on the
		// engine's loop threads
		assertThat(threads).extracting(Thread::getName)
			.anyMatch((name) -> name.startsWith("delayqueue-outage-g-reader-"))
			.anyMatch((name) -> name.startsWith("delayqueue-loop-"))
			.as("thread names tell the threads apart in a thread dump")
			.doesNotHaveDuplicates();
		long cpuBefore = cpuNanos(threads);
		// the message falls due while Redis is down
		await().during(Duration.ofSeconds(3))
			.atMost(Duration.ofSeconds(4))
			.until(() -> container.isRunning() && threads.stream().allMatch(Thread::isAlive));
		long cpuUsed = cpuNanos(threads) - cpuBefore;
		System.out.println("CPU of listener and scheduler threads in 3s of outage: " + Duration.ofNanos(cpuUsed));
		assertThat(Duration.ofNanos(cpuUsed)).as("CPU used by the listener and scheduler threads in 3s of outage")
			.isLessThan(Duration.ofMillis(500));
		assertThat(received).containsExactly("warm-up");

		this.redis.startAgain();
		long restarted = System.nanoTime();
		// nobody intervenes: the scheduler promotes what fell due during the outage
		await().atMost(Duration.ofSeconds(15)).until(() -> received.contains("scheduled-before"));
		Duration recovery = Duration.ofNanos(System.nanoTime() - restarted);
		assertThat(this.engine.template().send("outage", "sent-after", Duration.ZERO).status())
			.isEqualTo(SendResult.Status.READY);
		await().atMost(Duration.ofSeconds(5)).until(() -> received.contains("sent-after"));
		System.out.println("Delivered what fell due during the outage " + recovery + " after Redis restarted");
		assertThat(container.isRunning()).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats("outage").inFlight() == 0);
		assertThat(this.engine.admin().stats("outage").scheduled()).isZero();
	}

	@Test
	void underLoadARedisPausedFor30SecondsCostsLittleLosesNothingAndRecovers() throws Exception {
		Set<String> received = ConcurrentHashMap.newKeySet();
		for (int i = 0; i < 2; i++) {
			DelayQueueListenerContainer container = this.engine
				.listenerContainer("paused", "g", String.class, (payload, context) -> received.add(payload))
				.concurrency(4)
				.visibilityTimeout(Duration.ofSeconds(5))
				.build();
			container.start();
			this.containers.add(container);
		}
		Set<String> acknowledged = ConcurrentHashMap.newKeySet();
		List<String> failures = java.util.Collections.synchronizedList(new ArrayList<>());
		java.util.concurrent.atomic.AtomicBoolean producing = new java.util.concurrent.atomic.AtomicBoolean(true);
		java.util.concurrent.atomic.AtomicLong resumedAt = new java.util.concurrent.atomic.AtomicLong();
		Set<String> sentAfterResume = ConcurrentHashMap.newKeySet();
		Thread producer = new Thread(() -> {
			java.util.Random random = new java.util.Random(7);
			for (int i = 0; producing.get(); i++) {
				String payload = "m-" + i;
				try {
					this.engine.template().send("paused", payload, Duration.ofMillis(random.nextInt(300)));
					acknowledged.add(payload);
					if (resumedAt.get() != 0) {
						sentAfterResume.add(payload);
					}
				}
				catch (DelayQueueException ex) {
					failures.add(ex.getMessage());
				}
				try {
					Thread.sleep(5);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
					return;
				}
			}
		}, "test-producer");
		producer.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() > 100);

		this.redis.pause();
		try {
			List<Thread> threads = engineThreads("paused");
			long cpuBefore = cpuNanos(threads);
			// the loop runner's threads beyond its 4 come and go (added while steps
			// block)
			await().during(Duration.ofSeconds(30))
				.atMost(Duration.ofSeconds(31))
				.until(() -> this.containers.stream().allMatch(DelayQueueListenerContainer::isRunning)
						&& threads.stream()
							.filter((thread) -> !thread.getName().startsWith("delayqueue-loop-"))
							.allMatch(Thread::isAlive)
						&& engineThreads("paused").stream()
							.filter((thread) -> thread.getName().startsWith("delayqueue-loop-")
									&& !thread.getName().startsWith("delayqueue-loop-timer"))
							.count() >= LoopRunner.THREADS);
			// and those added meanwhile
			engineThreads("paused").stream().filter((thread) -> !threads.contains(thread)).forEach(threads::add);
			Duration cpuUsed = Duration.ofNanos(cpuNanos(threads) - cpuBefore);
			System.out.println("CPU of " + threads.size() + " engine threads in 30s of a paused Redis: " + cpuUsed);
			assertThat(cpuUsed).as("CPU of the listener and scheduler threads while Redis is paused (no busy loop)")
				.isLessThan(Duration.ofSeconds(3));
		}
		finally {
			this.redis.resume();
			resumedAt.set(System.nanoTime());
		}
		await("a message sent after the pause is delivered").atMost(Duration.ofSeconds(15))
			.until(() -> sentAfterResume.stream().anyMatch(received::contains));
		System.out.println("First delivery of a message sent after the pause: "
				+ Duration.ofNanos(System.nanoTime() - resumedAt.get()) + " after SIGCONT");
		Thread.sleep(2000);
		producing.set(false);
		producer.join(10_000);

		assertThat(failures).as("sends during the pause fail with a clear message").isNotEmpty();
		assertThat(failures)
			.allSatisfy((message) -> assertThat(message).startsWith("Cannot send to queue(s) paused: "));
		await("every acknowledged send delivered").atMost(Duration.ofSeconds(60))
			.until(() -> received.containsAll(acknowledged));
		System.out.println(acknowledged.size() + " acknowledged sends delivered; " + failures.size()
				+ " sends failed during the pause, e.g. " + failures.get(0));
	}

	@Test
	void aListenerStartsWhileRedisIsDownAndReadsOnceItIsBack() throws Exception {
		this.redis.kill();
		BlockingQueue<String> received = new LinkedBlockingQueue<>();
		DelayQueueListenerContainer container = this.engine
			.listenerContainer("down-at-start", "g", String.class, (payload, context) -> received.add(payload))
			.pollTimeout(Duration.ofMillis(300))
			.build();
		this.containers.add(container);
		container.start(); // must not throw: a Spring context starting during an outage
							// still starts
		assertThat(container.isRunning()).isTrue();
		this.redis.startAgain();
		await().atMost(Duration.ofSeconds(15))
			.ignoreExceptions()
			.until(() -> this.engine.template().send("down-at-start", "hello", Duration.ZERO) != null);
		assertThat(received.poll(15, TimeUnit.SECONDS)).isEqualTo("hello");
		assertThat(this.engine.admin().queues()).contains("down-at-start");
	}

	@Test
	void schedulerAndProducerSurviveAFlushedScriptCache() throws Exception {
		Set<String> received = ConcurrentHashMap.newKeySet();
		DelayQueueListenerContainer container = this.engine
			.listenerContainer("flushed", "g", String.class, (payload, context) -> received.add(payload))
			.pollTimeout(Duration.ofMillis(300))
			.visibilityTimeout(Duration.ofSeconds(2))
			.build();
		container.start();
		this.containers.add(container);
		this.engine.template().send("flushed", "before-flush", Duration.ofMillis(200));
		await().atMost(Duration.ofSeconds(5)).until(() -> received.contains("before-flush"));

		this.redis.execute("SCRIPT", "FLUSH");
		this.redis.execute("CONFIG", "RESETSTAT");
		assertThat(this.engine.template().send("flushed", "after-flush", Duration.ofMillis(300)).status())
			.isEqualTo(SendResult.Status.SCHEDULED);
		await().atMost(Duration.ofSeconds(5)).until(() -> received.contains("after-flush"));
		assertThat(this.redis.info("cmdstat_eval")).as("the scripts were sent again with EVAL").isNotNull();
		// before Redis 7.0 (no script flags) the scheduler runs the plain promote script
		RedisScript<?> promote = this.redis.versionAtLeast("7.0") ? Scripts.PROMOTE_ALLOW_OOM : Scripts.PROMOTE;
		assertThat(this.redis.execute("SCRIPT", "EXISTS", Scripts.SEND.getSha1(), promote.getSha1()))
			.isEqualTo(List.of(1L, 1L));
	}

	private static List<Thread> engineThreads(String queue) {
		List<Thread> threads = new ArrayList<>();
		for (Thread thread : Thread.getAllStackTraces().keySet()) {
			// the queue's readers, and the engine's loop threads (its schedulers, lease
			// keepers and ackers); not the elastic workers, which come and go
			if (thread.getName().startsWith("delayqueue-" + queue + "-")
					|| thread.getName().startsWith("delayqueue-loop-")) {
				threads.add(thread);
			}
		}
		return threads;
	}

	private static long cpuNanos(List<Thread> threads) {
		ThreadMXBean mx = ManagementFactory.getThreadMXBean();
		long total = 0;
		for (Thread thread : threads) {
			long cpu = mx.getThreadCpuTime(thread.getId());
			total += Math.max(0, cpu);
		}
		return total;
	}

}
