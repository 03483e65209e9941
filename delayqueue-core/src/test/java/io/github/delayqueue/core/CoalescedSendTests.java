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
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Single sends from many threads at once share script calls: each caller still gets its
 * own result, its own refusal or failure, within its own operation timeout.
 */
class CoalescedSendTests {

	private RedisServer redis;

	private LettuceConnectionFactory connectionFactory;

	private DelayQueueEngine engine;

	private ExecutorService threads;

	@BeforeEach
	void start() {
		this.redis = RedisServer.builder().start();
		this.connectionFactory = RedisServerExtension.connectionFactory(this.redis, Duration.ofSeconds(60));
		this.engine = DelayQueueEngine.builder(this.connectionFactory).operationTimeout(Duration.ofMillis(500)).build();
		this.threads = Executors.newFixedThreadPool(32);
	}

	@AfterEach
	void stop() throws InterruptedException {
		try {
			this.redis.resume();
			this.threads.shutdownNow();
			this.threads.awaitTermination(10, TimeUnit.SECONDS);
			this.engine.close();
		}
		finally {
			this.connectionFactory.destroy();
			this.redis.close();
		}
	}

	@Test
	void concurrentSingleSendsShareScriptCallsAndEachGetsItsOwnResult() throws Exception {
		this.engine.template().send("warm", "x", Duration.ofHours(1));
		long callsBefore = scriptCalls();
		List<Callable<SendResult>> sends = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			String id = "m" + i;
			// half of them far enough ahead for the far tier, half due within a minute
			Duration delay = (i % 2 == 0) ? Duration.ofHours(1) : Duration.ofSeconds(30);
			sends.add(() -> this.engine.template()
				.send(DelayMessage.builder(id).queue("orders").id(id).delay(delay).build()));
		}
		List<SendResult> results = new ArrayList<>();
		for (Future<SendResult> result : this.threads.invokeAll(sends)) {
			results.add(result.get());
		}
		for (int i = 0; i < results.size(); i++) {
			assertThat(results.get(i).id()).isEqualTo("m" + i);
			assertThat(results.get(i).status()).isEqualTo(SendResult.Status.SCHEDULED);
			assertThat(results.get(i).dueTime()).isAfter(java.time.Instant.now().plusSeconds(20));
		}
		assertThat(this.engine.admin().stats("orders").scheduled()).isEqualTo(2000);
		long calls = scriptCalls() - callsBefore;
		assertThat(calls).as("script calls for 2,000 sends from 32 threads").isLessThan(1000);
		for (int i = 0; i < 2000; i += 97) {
			assertThat(this.engine.admin().scheduledMessage("orders", "m" + i)).isPresent();
		}
	}

	@Test
	void theSameIdSentByManyThreadsAtOnceIsScheduledOnce() throws Exception {
		for (int round = 0; round < 20; round++) {
			String id = "same-" + round;
			List<Callable<SendResult>> sends = new ArrayList<>();
			for (int i = 0; i < 16; i++) {
				String payload = "p" + i;
				sends.add(() -> this.engine.template()
					.send(DelayMessage.builder(payload).queue("dedup").id(id).delay(Duration.ofMinutes(10)).build()));
			}
			Map<SendResult.Status, Integer> statuses = new ConcurrentHashMap<>();
			for (Future<SendResult> result : this.threads.invokeAll(sends)) {
				statuses.merge(result.get().status(), 1, Integer::sum);
			}
			assertThat(statuses).containsExactlyInAnyOrderEntriesOf(
					Map.of(SendResult.Status.SCHEDULED, 1, SendResult.Status.DUPLICATE, 15));
		}
		assertThat(this.engine.admin().stats("dedup").scheduled()).isEqualTo(20);
	}

	@Test
	void aRefusalOverTheSizeLimitGoesToItsOwnCallerOnly() throws Exception {
		this.engine.admin().limitSize("capped", 50);
		List<Callable<Object>> sends = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			String id = "c" + i;
			sends.add(() -> {
				try {
					return this.engine.template()
						.send(DelayMessage.builder(id).queue("capped").id(id).delay(Duration.ofMinutes(5)).build());
				}
				catch (QueueFullException ex) {
					return ex;
				}
			});
		}
		int sent = 0;
		int refused = 0;
		for (Future<Object> result : this.threads.invokeAll(sends)) {
			if (result.get() instanceof QueueFullException refusal) {
				assertThat(refusal.getMessage()).contains("capped");
				refused++;
			}
			else {
				assertThat(((SendResult) result.get()).status()).isEqualTo(SendResult.Status.SCHEDULED);
				sent++;
			}
		}
		assertThat(sent).isEqualTo(50);
		assertThat(refused).isEqualTo(150);
		assertThat(this.engine.admin().stats("capped").scheduled()).isEqualTo(50);
	}

	@Test
	void aQueueWhoseCallsFailDoesNotFailAnotherQueuesSends() throws Exception {
		// the schedule of 'broken' is not a sorted set: its script calls fail
		this.redis.execute("SET", new QueueKeys("dq", "broken").delayed(), "not a zset");
		List<Callable<Object>> sends = new ArrayList<>();
		for (int i = 0; i < 400; i++) {
			String queue = (i % 2 == 0) ? "broken" : "fine";
			sends.add(() -> {
				try {
					return this.engine.template().send(queue, "x", Duration.ofSeconds(30));
				}
				catch (DelayQueueException ex) {
					return ex;
				}
			});
		}
		List<Future<Object>> results = this.threads.invokeAll(sends);
		for (int i = 0; i < results.size(); i++) {
			Object result = results.get(i).get();
			if (i % 2 == 0) {
				assertThat(result).isInstanceOfSatisfying(DelayQueueException.class,
						(ex) -> assertThat(ex.getMessage()).startsWith("Cannot send to queue(s) broken: ")
							.contains("WRONGTYPE"));
			}
			else {
				assertThat(result).isInstanceOf(SendResult.class);
			}
		}
		assertThat(this.engine.admin().stats("fine").scheduled()).isEqualTo(200);
	}

	@Test
	void withRedisHungEachSenderFailsWithinItsOwnOperationTimeout() throws Exception {
		this.engine.template().send("hung", "warm-up", Duration.ofHours(1));
		this.redis.pause();
		List<Callable<Long>> sends = new ArrayList<>();
		for (int i = 0; i < 16; i++) {
			sends.add(() -> {
				long started = System.nanoTime();
				assertThatExceptionOfType(DelayQueueException.class)
					.isThrownBy(() -> this.engine.template().send("hung", "x", Duration.ofMinutes(1)))
					.withMessageStartingWith("Cannot send to queue(s) hung: ");
				assertThat(Thread.currentThread().isInterrupted()).as("no interrupt leaks to the caller").isFalse();
				return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
			});
		}
		for (Future<Long> millis : this.threads.invokeAll(sends)) {
			// the operation timeout is 500 ms: none waits for the calls ahead of it on
			// top
			assertThat(millis.get()).as("failed after (ms)").isBetween(400L, 1200L);
		}
		this.redis.resume();
		assertThat(this.engine.template().send("hung", "after", Duration.ZERO).status())
			.isEqualTo(SendResult.Status.READY);
	}

	@Test
	void aSenderInterruptedWhileWaitingForAnEarlierCallIsNotSentAndKeepsItsInterrupt() throws Exception {
		this.engine.template().send("waiting", "warm-up", Duration.ofHours(1));
		this.redis.pause();
		CountDownLatch leaderStarted = new CountDownLatch(1);
		Future<?> leader = this.threads.submit(() -> {
			leaderStarted.countDown();
			return catching(() -> this.engine.template().send("waiting", "first", Duration.ofMinutes(1)));
		});
		leaderStarted.await();
		Thread.sleep(100);
		AtomicReference<Object> outcome = new AtomicReference<>();
		AtomicReference<Boolean> interruptKept = new AtomicReference<>();
		Thread follower = new Thread(() -> {
			outcome.set(catching(() -> this.engine.template()
				.send(DelayMessage.builder("second")
					.queue("waiting")
					.id("second")
					.delay(Duration.ofMinutes(1))
					.build())));
			interruptKept.set(Thread.currentThread().isInterrupted());
		});
		follower.start();
		Thread.sleep(100);
		follower.interrupt();
		follower.join(5000);
		assertThat(outcome.get()).isInstanceOfSatisfying(DelayQueueException.class,
				(ex) -> assertThat(ex.getMessage()).contains("interrupted").endsWith("it was not sent"));
		assertThat(interruptKept.get()).isTrue();
		assertThat(leader.get(5, TimeUnit.SECONDS)).isInstanceOf(DelayQueueException.class);
		this.redis.resume();
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(
					() -> assertThat(this.engine.template().send("waiting", "after", Duration.ofHours(1)).status())
						.isEqualTo(SendResult.Status.SCHEDULED));
		assertThat(this.engine.admin().scheduledMessage("waiting", "second")).isEmpty();
	}

	private static Object catching(Callable<Object> call) {
		try {
			return call.call();
		}
		catch (Exception ex) {
			return ex;
		}
	}

	private long scriptCalls() {
		String stats = (String) this.redis.execute("INFO", "commandstats");
		long calls = 0;
		for (String line : stats.split("\r?\n")) {
			if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
				calls += Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
			}
		}
		return calls;
	}

}
