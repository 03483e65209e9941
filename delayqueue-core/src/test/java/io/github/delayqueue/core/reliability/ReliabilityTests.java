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

package io.github.delayqueue.core.reliability;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The rules of the reliability contract, each against real redis-server processes:
 * exactly once per move with two schedulers, never early whatever the JVM clock says,
 * nothing acknowledged lost across a Redis kill with AOF always, redelivery after a
 * consumer JVM is killed with SIGKILL.
 */
class ReliabilityTests {

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	private RedisServer redis(RedisServer.Builder builder) {
		RedisServer server = builder.start();
		this.resources.add(server);
		return server;
	}

	private DelayQueueEngine engine(RedisServer redis, Clock clock) {
		LettuceConnectionFactory factory = RedisServerExtension.connectionFactory(redis);
		this.resources.add(factory::destroy);
		DelayQueueEngine engine = DelayQueueEngine.builder(factory).clock(clock).build();
		this.resources.add(engine);
		return engine;
	}

	private DelayQueueListenerContainer listen(DelayQueueEngine engine, String queue, String group,
			DelayMessageHandler<String> handler) {
		DelayQueueListenerContainer container = engine.listenerContainer(queue, group, String.class, handler)
			.visibilityTimeout(Duration.ofSeconds(2))
			.concurrency(8)
			.build();
		container.start();
		this.resources.add(container::stop);
		return container;
	}

	private static Instant redisTime(RedisServer redis) {
		List<?> time = (List<?>) redis.execute("TIME");
		return Instant.ofEpochSecond(Long.parseLong((String) time.get(0)), Long.parseLong((String) time.get(1)) * 1000);
	}

	@Test
	void twoSchedulersMoveEachMessageExactlyOnce() {
		RedisServer redis = redis(RedisServer.builder());
		Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		DelayMessageHandler<String> handler = (payload,
				context) -> deliveries.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
		DelayQueueEngine first = engine(redis, Clock.systemUTC());
		DelayQueueEngine second = engine(redis, Clock.systemUTC());
		listen(first, "orders", "g", handler);
		listen(second, "orders", "g", handler);
		int n = 2000;
		Instant due = redisTime(redis).plusMillis(1500);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			messages.add(DelayMessage.builder("m" + i).queue("orders").id("m" + i).deliverAt(due).build());
		}
		first.template().sendAll(messages);
		await().atMost(Duration.ofSeconds(30)).until(() -> deliveries.size() == n);
		await().during(Duration.ofSeconds(1))
			.atMost(Duration.ofSeconds(5))
			.until(() -> first.admin().stats("orders").inFlight() == 0);
		assertThat(deliveries.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
		// every message was added to the stream once: the group read exactly n entries
		assertThat(redis.execute("XINFO", "STREAM", "dq:{orders}:stream").toString()).contains("entries-added, " + n);
	}

	@Test
	void twoConsumersRecoveringAtOnceTakeEachMessageOnce() {
		RedisServer redis = redis(RedisServer.builder());
		redis.execute("XGROUP", "CREATE", "dq:{recover}:stream", "g", "0", "MKSTREAM");
		DelayQueueEngine first = engine(redis, Clock.systemUTC());
		DelayQueueEngine second = engine(redis, Clock.systemUTC());
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			messages.add(DelayMessage.builder("m" + i).queue("recover").id("m" + i).build());
		}
		first.template().sendAll(messages);
		// a consumer reads everything and dies without acknowledging anything
		List<?> read = (List<?>) redis.execute("XREADGROUP", "GROUP", "g", "dead-consumer", "COUNT", "1000", "STREAMS",
				"dq:{recover}:stream", ">");
		assertThat((List<?>) ((List<?>) read.get(0)).get(1)).hasSize(300);
		Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		Set<Integer> attempts = ConcurrentHashMap.newKeySet();
		DelayMessageHandler<String> handler = (payload, context) -> {
			deliveries.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
			attempts.add(context.attempt());
		};
		for (DelayQueueEngine engine : List.of(first, second)) {
			DelayQueueListenerContainer container = engine.listenerContainer("recover", "g", String.class, handler)
				.visibilityTimeout(Duration.ofSeconds(1))
				.concurrency(4)
				.prefetch(200)
				.build();
			container.start();
			this.resources.add(container::stop);
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> deliveries.size() == 300);
		await().during(Duration.ofSeconds(2))
			.atMost(Duration.ofSeconds(10))
			.until(() -> first.admin().stats("recover").inFlight() == 0);
		assertThat(deliveries.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
		assertThat(attempts).containsOnly(2);
	}

	@Test
	void neverDeliversBeforeDueTimeWhateverTheJvmClockSays() throws Exception {
		RedisServer redis = redis(RedisServer.builder());
		for (Duration skew : List.of(Duration.ofHours(1), Duration.ofHours(-1))) {
			DelayQueueEngine engine = engine(redis, Clock.offset(Clock.systemUTC(), skew));
			String queue = "skew" + (skew.isNegative() ? "-behind" : "-ahead");
			BlockingQueue<Instant[]> received = new LinkedBlockingQueue<>();
			listen(engine, queue, "g",
					(payload, context) -> received.add(new Instant[] { context.dueTime(), redisTime(redis) }));
			List<SendResult> sent = new ArrayList<>();
			for (int i = 0; i < 20; i++) {
				sent.add(engine.template().send(queue, "p" + i, Duration.ofMillis(200 + 50 * i)));
			}
			for (int i = 0; i < sent.size(); i++) {
				Instant[] delivery = received.poll(10, TimeUnit.SECONDS);
				assertThat(delivery).as("delivery %d with JVM clock skew %s", i, skew).isNotNull();
				assertThat(delivery[1]).as("Redis time at delivery").isAfterOrEqualTo(delivery[0]);
			}
		}
	}

	@Test
	void keepsEveryAcknowledgedSendAcrossRedisKillWithAofAlways() {
		RedisServer redis = redis(RedisServer.builder().appendOnly(RedisServer.AppendFsync.ALWAYS));
		DelayQueueEngine engine = engine(redis, Clock.systemUTC());
		Set<String> sent = ConcurrentHashMap.newKeySet();
		for (int i = 0; i < 500; i++) {
			SendResult result = engine.template().send("aof", "p" + i, Duration.ofMillis((i % 3 == 0) ? 0 : 1500));
			sent.add(result.id());
		}
		redis.kill();
		redis.startAgain();
		Set<String> delivered = ConcurrentHashMap.newKeySet();
		listen(engine, "aof", "g", (payload, context) -> delivered.add(context.id()));
		await().atMost(Duration.ofSeconds(20)).until(() -> delivered.size() >= sent.size());
		assertThat(delivered).containsExactlyInAnyOrderElementsOf(sent);
	}

	@Test
	void redeliversAfterConsumerCrash() throws Exception {
		RedisServer redis = redis(RedisServer.builder());
		String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
		Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
				CrashingConsumer.class.getName(), Integer.toString(redis.port()), "crash", "g")
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.PIPE)
			.start();
		this.resources.add(child::destroyForcibly);
		BufferedReader output = new BufferedReader(
				new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
		DelayQueueEngine engine = engine(redis, Clock.systemUTC());
		awaitLine(output, "STARTED");
		SendResult sent = engine.template().send("crash", "work", Duration.ofMillis(100));
		assertThat(awaitLine(output, "HANDLING")).isEqualTo("HANDLING " + sent.id());
		child.destroyForcibly(); // SIGKILL while the handler runs
		assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
		BlockingQueue<Integer> attempts = new LinkedBlockingQueue<>();
		listen(engine, "crash", "g", (payload, context) -> {
			if (context.id().equals(sent.id())) {
				attempts.add(context.attempt());
			}
		});
		assertThat(attempts.poll(20, TimeUnit.SECONDS)).as("redelivered attempt").isEqualTo(2);
		assertThat(attempts.poll(3, TimeUnit.SECONDS)).as("no further delivery").isNull();
	}

	@Test
	void recoversTheMessageOfAHungHandler() throws Exception {
		RedisServer redis = redis(RedisServer.builder());
		DelayQueueEngine engine = engine(redis, Clock.systemUTC());
		java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
		this.resources.add(release::countDown);
		BlockingQueue<String> hung = new LinkedBlockingQueue<>();
		DelayQueueListenerContainer stuck = engine.listenerContainer("hung", "g", String.class, (payload, context) -> {
			hung.add(context.id());
			release.await();
		})
			.visibilityTimeout(Duration.ofSeconds(1))
			.leaseRenewalLimit(Duration.ofSeconds(1))
			.shutdownTimeout(Duration.ofSeconds(1))
			.concurrency(1)
			.build();
		stuck.start();
		this.resources.add(stuck::stop);
		SendResult sent = engine.template().send("hung", "work", Duration.ZERO);
		assertThat(hung.poll(10, TimeUnit.SECONDS)).isEqualTo(sent.id());
		BlockingQueue<Integer> recovered = new LinkedBlockingQueue<>();
		listen(engine, "hung", "g", (payload, context) -> recovered.add(context.attempt()));
		assertThat(recovered.poll(15, TimeUnit.SECONDS)).as("attempt on another consumer").isEqualTo(2);
		release.countDown(); // the hung handler returns late and acks: no harm
		await().atMost(Duration.ofSeconds(10)).until(() -> engine.admin().stats("hung").inFlight() == 0);
		assertThat(recovered.poll(2, TimeUnit.SECONDS)).as("no third delivery").isNull();
		assertThat(engine.admin().stats("hung").dead()).isZero();
	}

	private static String awaitLine(BufferedReader output, String prefix) throws Exception {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		String line;
		while ((line = output.readLine()) != null) {
			if (line.startsWith(prefix)) {
				return line;
			}
			if (System.nanoTime() > deadline) {
				break;
			}
		}
		throw new AssertionError("The consumer process did not print " + prefix + " (class path: "
				+ System.getProperty("java.class.path").split(File.pathSeparator).length + " entries)");
	}

}
