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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueEngineBuilder;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerBuilder;
import io.github.delayqueue.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The rules of the reliability contract, each against real redis-server processes:
 * exactly once per move with two schedulers, never early whatever the JVM clock says,
 * nothing acknowledged lost across a Redis kill with AOF always, redelivery after a
 * consumer JVM is killed with SIGKILL, recovery from a hung handler.
 */
@Tag("faults")
class ReliabilityTests {

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		Exception first = null;
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			try {
				this.resources.get(i).close();
			}
			catch (Exception ex) {
				first = (first != null) ? first : ex;
			}
		}
		this.resources.clear();
		if (first != null) {
			throw first;
		}
	}

	private RedisServer redis(RedisServerBuilder builder) {
		RedisServer server = builder.start();
		this.resources.add(server);
		return server;
	}

	private DelayQueueEngine engine(RedisServer redis, Clock clock) {
		return engine(redis, DelayQueueEngineBuilder::build, clock);
	}

	private DelayQueueEngine engine(RedisServer redis, Function<DelayQueueEngineBuilder, DelayQueueEngine> build,
			Clock clock) {
		LettuceConnectionFactory factory = RedisServerExtension.connectionFactory(redis);
		this.resources.add(factory::destroy);
		DelayQueueEngine engine = build.apply(DelayQueueEngine.builder(factory).clock(clock));
		this.resources.add(engine);
		return engine;
	}

	private DelayQueueListenerContainer listen(DelayQueueEngine engine, String queue, String group,
			DelayMessageHandler<String> handler) {
		return start(engine.listenerContainer(queue, group, String.class, handler)
			.visibilityTimeout(Duration.ofSeconds(2))
			.concurrency(8));
	}

	private DelayQueueListenerContainer start(DelayQueueListenerContainer.Builder<String> builder) {
		DelayQueueListenerContainer container = builder.build();
		container.start();
		this.resources.add(container::stop);
		return container;
	}

	private static Object field(List<?> flat, String name) {
		for (int i = 0; i + 1 < flat.size(); i += 2) {
			if (name.equals(flat.get(i))) {
				return flat.get(i + 1);
			}
		}
		throw new AssertionError("No field " + name + " in " + flat);
	}

	/**
	 * Starts a {@link CrashingConsumer} JVM and waits until it listens.
	 */
	private ReliabilitySupport.ChildJvm startConsumerJvm(RedisServer redis, String queue, String group,
			String handlingMillis) throws Exception {
		ReliabilitySupport.ChildJvm child = new ReliabilitySupport.ChildJvm(CrashingConsumer.class,
				Integer.toString(redis.port()), queue, group, handlingMillis);
		this.resources.add(child);
		child.awaitLine("STARTED ", Duration.ofSeconds(60));
		return child;
	}

	@Test
	void twoSchedulersMoveEachMessageExactlyOnce() {
		RedisServer redis = redis(RedisServer.builder());
		Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		Set<Integer> attempts = ConcurrentHashMap.newKeySet();
		DelayMessageHandler<String> handler = (payload, context) -> {
			deliveries.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
			attempts.add(context.attempt());
		};
		// small promote batches: the two schedulers race through many calls, not one each
		DelayQueueEngine first = engine(redis, (builder) -> builder.promoteBatchSize(50).build(), Clock.systemUTC());
		DelayQueueEngine second = engine(redis, (builder) -> builder.promoteBatchSize(50).build(), Clock.systemUTC());
		listen(first, "orders", "g", handler);
		listen(second, "orders", "g", handler);
		int n = 2000;
		Instant due = ReliabilitySupport.redisTime(redis).plusMillis(1500);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			messages.add(DelayMessage.builder("m" + i).queue("orders").id("m" + i).deliverAt(due).build());
		}
		assertThat(first.template().sendAll(messages))
			.allSatisfy((result) -> assertThat(result.status()).isEqualTo(SendResult.Status.SCHEDULED));
		assertThat(deliveries).as("nothing delivered before the due time").isEmpty();
		await().atMost(Duration.ofSeconds(30)).until(() -> deliveries.size() == n);
		await().during(Duration.ofSeconds(1))
			.atMost(Duration.ofSeconds(5))
			.until(() -> first.admin().stats("orders").inFlight() == 0);
		assertThat(deliveries).hasSize(n);
		assertThat(deliveries.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
		assertThat(attempts).containsOnly(1);
		assertThat(first.admin().stats("orders").scheduled()).isZero();
		assertThat(redis.execute("HLEN", first.keys("orders").messages())).isEqualTo(0L);
		// every message was added to the stream once
		redis.requireVersion("7.0", "XINFO STREAM entries-added");
		List<?> stream = (List<?>) redis.execute("XINFO", "STREAM", first.keys("orders").stream());
		assertThat(field(stream, "entries-added")).as("entries added to the stream").isEqualTo((long) n);
	}

	@Test
	void whenOneOfTwoSchedulerNodesIsKilledMidRunDueMessagesStillMoveEachOnce() throws Exception {
		RedisServer redis = redis(RedisServer.builder());
		DelayQueueEngine engine = engine(redis, Clock.systemUTC());
		// the child JVM runs a scheduler for the queue (its listener is in a group of its
		// own)
		ReliabilitySupport.ChildJvm child = startConsumerJvm(redis, "spread", "child", "0");
		Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
		listen(engine, "spread", "g", (payload,
				context) -> deliveries.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet());
		int n = 1000;
		Instant first = ReliabilitySupport.redisTime(redis).plusMillis(500);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			messages.add(DelayMessage.builder("m" + i)
				.queue("spread")
				.id("m" + i)
				.deliverAt(first.plusMillis(3L * i))
				.build());
		}
		engine.template().sendAll(messages);
		// kill the child in the middle of the 3 s during which messages fall due
		await().atMost(Duration.ofSeconds(10)).until(() -> deliveries.size() > n / 3);
		assertThat(child.kill()).as("the child JVM ended on SIGKILL").isTrue();
		await().atMost(Duration.ofSeconds(30)).until(() -> deliveries.size() == n);
		await().during(Duration.ofSeconds(1))
			.atMost(Duration.ofSeconds(5))
			.until(() -> engine.admin()
				.stats("spread")
				.groups()
				.stream()
				.filter((group) -> group.group().equals("g"))
				.allMatch((group) -> group.pending() == 0));
		assertThat(deliveries.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
		assertThat(engine.admin().stats("spread").scheduled()).isZero();
		redis.requireVersion("7.0", "XINFO STREAM entries-added");
		List<?> stream = (List<?>) redis.execute("XINFO", "STREAM", engine.keys("spread").stream());
		assertThat(field(stream, "entries-added")).as("each message added to the stream once").isEqualTo((long) n);
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
			start(engine.listenerContainer("recover", "g", String.class, handler)
				.visibilityTimeout(Duration.ofSeconds(1))
				.concurrency(4)
				.prefetch(200));
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> deliveries.size() == 300);
		await().during(Duration.ofSeconds(2))
			.atMost(Duration.ofSeconds(10))
			.until(() -> first.admin().stats("recover").inFlight() == 0);
		assertThat(deliveries.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
		assertThat(attempts).containsOnly(2);
	}

	@Test
	void neverDeliversBeforeDueTimeWhateverTheJvmClockSays() {
		RedisServer redis = redis(RedisServer.builder());
		// two nodes, one JVM clock an hour ahead, the other an hour behind: both
		// schedule,
		// promote and consume the same queue
		List<DelayQueueEngine> engines = List.of(engine(redis, Clock.offset(Clock.systemUTC(), Duration.ofHours(1))),
				engine(redis, Clock.offset(Clock.systemUTC(), Duration.ofHours(-1))));
		Map<String, Instant[]> received = new ConcurrentHashMap<>();
		AtomicInteger deliveries = new AtomicInteger();
		for (DelayQueueEngine engine : engines) {
			listen(engine, "skew", "g", (payload, context) -> {
				received.put(context.id(), new Instant[] { context.dueTime(), ReliabilitySupport.redisTime(redis) });
				deliveries.incrementAndGet();
			});
		}
		Map<String, Instant> dueTimes = new HashMap<>();
		for (int i = 0; i < 40; i++) {
			DelayQueueEngine engine = engines.get(i % 2);
			Duration delay = Duration.ofMillis(100 + 40 * i);
			Instant before = ReliabilitySupport.redisTime(redis);
			SendResult result = engine.template().send("skew", "p" + i, delay);
			Instant after = ReliabilitySupport.redisTime(redis);
			// the due time is the Redis clock at the send (rounded up to the ms: never
			// early) plus the delay, not the JVM's
			assertThat(result.dueTime()).as("due time of send %d", i)
				.isBetween(before.plus(delay), after.plus(delay).plusMillis(1));
			dueTimes.put(result.id(), result.dueTime());
		}
		await().atMost(Duration.ofSeconds(15)).until(() -> received.size() == dueTimes.size());
		assertThat(received).allSatisfy((id, delivery) -> {
			assertThat(delivery[0]).as("due time of %s", id).isEqualTo(dueTimes.get(id));
			assertThat(delivery[1]).as("Redis time at the delivery of %s", id).isAfterOrEqualTo(delivery[0]);
			assertThat(Duration.between(delivery[0], delivery[1])).as("lateness of %s", id)
				.isLessThan(Duration.ofMillis(1500));
		});
		await().during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(5))
			.until(() -> engines.get(0).admin().stats("skew").inFlight() == 0);
		assertThat(deliveries).as("each delivered once").hasValue(dueTimes.size());
	}

	@Test
	void keepsEveryAcknowledgedSendAcrossRedisKillWithAofAlways() {
		RedisServer redis = redis(RedisServer.builder().appendOnly(RedisServer.AppendFsync.ALWAYS));
		DelayQueueEngine engine = engine(redis, Clock.systemUTC());
		Map<String, Instant> sent = new HashMap<>();
		// single sends: due at once (straight to the stream), in 1 s, in 2 s
		for (int i = 0; i < 300; i++) {
			SendResult result = engine.template().send("aof", "single-" + i, Duration.ofMillis(1000L * (i % 3)));
			sent.put(result.id(), result.dueTime());
		}
		// batches: due at once or in 1.5 s
		for (int b = 0; b < 4; b++) {
			List<DelayMessage<?>> batch = new ArrayList<>();
			for (int i = 0; i < 50; i++) {
				batch.add(DelayMessage.builder("batch-" + b + "-" + i)
					.queue("aof")
					.delay(Duration.ofMillis((i % 2 == 0) ? 0 : 1500))
					.build());
			}
			engine.template().sendAll(batch).forEach((result) -> sent.put(result.id(), result.dueTime()));
		}
		assertThat(sent).hasSize(500);
		QueueStats before = engine.admin().stats("aof");
		assertThat(before.scheduled()).as("scheduled before the kill").isEqualTo(300);
		assertThat(redis.execute("XLEN", engine.keys("aof").stream())).as("ready before the kill").isEqualTo(200L);

		redis.kill(); // SIGKILL: only what was fsynced survives
		redis.startAgain();

		Map<String, AtomicInteger> delivered = new ConcurrentHashMap<>();
		Map<String, Instant> receivedAt = new ConcurrentHashMap<>();
		listen(engine, "aof", "g", (payload, context) -> {
			receivedAt.putIfAbsent(context.id(), ReliabilitySupport.redisTime(redis));
			delivered.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
		});
		await().atMost(Duration.ofSeconds(20)).until(() -> delivered.size() >= sent.size());
		assertThat(delivered.keySet()).containsExactlyInAnyOrderElementsOf(sent.keySet());
		assertThat(receivedAt)
			.allSatisfy((id, at) -> assertThat(at).as("delivery of %s", id).isAfterOrEqualTo(sent.get(id)));
		await().atMost(Duration.ofSeconds(5)).until(() -> engine.admin().stats("aof").inFlight() == 0);
		assertThat(delivered.values()).as("no delivery twice (no consumer died)")
			.allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
	}

	@Test
	void withAofEverysecARedisKillLosesAtMostTheLastTwoSecondsAndTheCheckerReportsIt() throws Exception {
		RedisServer redis = redis(RedisServer.builder().appendOnly(RedisServer.AppendFsync.EVERYSEC));
		DelayQueueEngine engine = engine(redis, Clock.systemUTC());
		Map<String, Long> acknowledgedAt = new ConcurrentHashMap<>();
		java.util.concurrent.atomic.AtomicBoolean producing = new java.util.concurrent.atomic.AtomicBoolean(true);
		java.util.concurrent.atomic.AtomicReference<String> unconfirmed = new java.util.concurrent.atomic.AtomicReference<>();
		Thread producer = new Thread(() -> {
			for (int i = 0; producing.get(); i++) {
				try {
					SendResult result = engine.template()
						.send(DelayMessage.builder("p" + i)
							.queue("everysec")
							.id("p" + i)
							.delay(Duration.ofSeconds(2))
							.build());
					acknowledgedAt.put(result.id(), System.nanoTime());
				}
				catch (DelayQueueException ex) {
					// Redis is gone: this send's script may have run (and reached the
					// AOF)
					// before the kill cut its reply
					unconfirmed.set("p" + i);
					return;
				}
			}
		}, "test-producer");
		producer.start();
		Thread.sleep(2000);
		long killedAt = System.nanoTime();
		// SIGKILL while sends keep coming. Redis writes the AOF before it replies, so a
		// killed
		// process loses nothing acknowledged unless a slow fsync made it postpone that
		// write
		// (up to 2 s); the page cache survives a process kill, not a machine crash
		redis.kill();
		producing.set(false);
		producer.join(10_000);
		redis.startAgain();

		HistoryChecker history = new HistoryChecker();
		listen(engine, "everysec", "g", (payload, context) -> history.record(new HistoryChecker.Event(context.id(),
				context.attempt(), 1, context.dueTime().toEpochMilli(), ReliabilitySupport.redisMillis(redis), true)));
		Set<String> sent = acknowledgedAt.keySet();
		await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(30)).until(() -> {
			QueueStats stats = engine.admin().stats("everysec");
			return stats.scheduled() == 0 && stats.inFlight() == 0;
		});
		List<String> violations = history.violations(sent, List.of(), 5, 0, false)
			.stream()
			.filter((violation) -> !violation.equals(unconfirmed.get() + ": delivered but never sent"))
			.toList();
		List<String> lost = violations.stream()
			.filter((violation) -> violation.endsWith(": lost (never delivered)"))
			.map((violation) -> violation.substring(0, violation.indexOf(':')))
			.toList();
		System.out.println(sent.size() + " sends acknowledged before the kill; the history checker reports "
				+ lost.size() + " lost: " + lost.stream().limit(5).toList() + (lost.size() > 5 ? "..." : ""));
		assertThat(violations).as("nothing but losses (no early, duplicate or stuck delivery)")
			.allSatisfy((violation) -> assertThat(violation).endsWith(": lost (never delivered)"));
		assertThat(lost).as("lost sends were all acknowledged in the last 2 s before the kill (everysec's window)")
			.allSatisfy((id) -> assertThat(killedAt - acknowledgedAt.get(id)).isLessThan(TimeUnit.SECONDS.toNanos(2)));
		assertThat(sent.size() - lost.size()).as("what was fsynced is delivered").isGreaterThan(sent.size() / 3);
	}

	@Test
	void aConsumerKilledLongAfterTheOthersStartedIsRecoveredOnceItsHeartbeatLapses() throws Exception {
		RedisServer redis = redis(RedisServer.builder());
		DelayQueueEngine engine = engine(redis, Clock.systemUTC());
		Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();
		// the survivor starts first: its start-up recovery passes are over at the crash,
		// only the heartbeat's lapse triggers the recovery
		listen(engine, "late-crash", "g",
				(payload, context) -> attempts.computeIfAbsent(context.id(), (id) -> new CopyOnWriteArrayList<>())
					.add(context.attempt()));
		long survivorStarted = System.nanoTime();
		ReliabilitySupport.ChildJvm child = new ReliabilitySupport.ChildJvm(CrashingConsumer.class,
				Integer.toString(redis.port()), "late-crash", "g");
		this.resources.add(child);
		String childConsumer = child.awaitLine("STARTED ", Duration.ofSeconds(60)).substring("STARTED ".length());
		// sent until the child holds one (the survivor takes its share of them)
		int sent = 0;
		boolean handling = false;
		while (!handling && sent < 200) {
			engine.template().send(DelayMessage.builder("w" + sent).queue("late-crash").id("w" + sent).build());
			sent++;
			handling = child.linesWithin(Duration.ofMillis(20)).stream().anyMatch((l) -> l.startsWith("HANDLING "));
		}
		assertThat(handling).as("the child handles a message").isTrue();
		int total = sent;
		String stream = engine.keys("late-crash").stream();
		await().atMost(Duration.ofSeconds(10))
			.until(() -> !((List<?>) redis.execute("XPENDING", stream, "g", "-", "+", "10", childConsumer)).isEmpty());
		Thread.sleep(Math.max(0, 3000 - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - survivorStarted)));
		assertThat(child.kill()).as("the child JVM ended on SIGKILL").isTrue();
		long killed = System.nanoTime();
		// lease (2 s) plus the heartbeat's staleness (6 s) and a beat (2 s), and a margin
		await().atMost(Duration.ofSeconds(15)).until(() -> attempts.size() == total);
		assertThat(((List<?>) redis.execute("XPENDING", stream, "g", "-", "+", "10", childConsumer))).isEmpty();
		assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed)).isGreaterThanOrEqualTo(2000);
	}

	@Test
	void redeliversAfterConsumerCrash() throws Exception {
		RedisServer redis = redis(RedisServer.builder());
		DelayQueueEngine engine = engine(redis, Clock.systemUTC());
		ReliabilitySupport.ChildJvm child = new ReliabilitySupport.ChildJvm(CrashingConsumer.class,
				Integer.toString(redis.port()), "crash", "g");
		this.resources.add(child);
		String childConsumer = child.awaitLine("STARTED ", Duration.ofSeconds(60)).substring("STARTED ".length());
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			messages.add(DelayMessage.builder("work-" + i).queue("crash").id("work-" + i).build());
		}
		engine.template().sendAll(messages);
		String[] handling = child.awaitLine("HANDLING ", Duration.ofSeconds(30)).split(" ");
		assertThat(handling[2]).as("attempt in the child").isEqualTo("1");
		// the child holds its running message and four prefetched ones (leases renewed)
		await().atMost(Duration.ofSeconds(10))
			.until(() -> ((List<?>) redis.execute("XPENDING", engine.keys("crash").stream(), "g")).get(0).equals(5L));
		List<?> owners = (List<?>) ((List<?>) redis.execute("XPENDING", engine.keys("crash").stream(), "g")).get(3);
		assertThat(owners).hasSize(1);
		assertThat(((List<?>) owners.get(0)).get(0)).isEqualTo(childConsumer);
		List<String> heldByChild = new ArrayList<>();
		for (Object entry : (List<?>) redis.execute("XRANGE", engine.keys("crash").stream(), "-", "+", "COUNT", "5")) {
			heldByChild.add((String) field((List<?>) ((List<?>) entry).get(1), "i"));
		}
		assertThat(heldByChild).contains(handling[1]);

		assertThat(child.kill()).as("the child JVM ended on SIGKILL").isTrue();

		Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();
		listen(engine, "crash", "g",
				(payload, context) -> attempts.computeIfAbsent(context.id(), (id) -> new CopyOnWriteArrayList<>())
					.add(context.attempt()));
		await().atMost(Duration.ofSeconds(20)).until(() -> attempts.size() == 10);
		await().during(Duration.ofMillis(1500))
			.atMost(Duration.ofSeconds(10))
			.until(() -> engine.admin().stats("crash").inFlight() == 0);
		// the message the child was handling, and those it had read, come back as attempt
		// 2 after the visibility timeout; the others are first deliveries
		assertThat(attempts).hasSize(10).allSatisfy((id, list) -> {
			assertThat(list).as("deliveries of %s", id).hasSize(1);
			assertThat(list.get(0)).as("attempt of %s", id).isEqualTo(heldByChild.contains(id) ? 2 : 1);
		});
		assertThat(attempts.get(handling[1])).containsExactly(2);
		assertThat(engine.admin().stats("crash").dead()).isZero();
	}

	@Test
	void aStalledConsumersMessageGoesToAnotherAndItsLateAckDoesNoHarm() throws Exception {
		RedisServer redis = redis(RedisServer.builder());
		DelayQueueEngine engine = engine(redis, Clock.systemUTC());
		// the child handles for 1 s; it is stopped in the middle, past its 2 s lease
		ReliabilitySupport.ChildJvm child = startConsumerJvm(redis, "stall", "g", "1000");
		engine.template().send(DelayMessage.builder("work").queue("stall").id("stall-1").build());
		assertThat(child.awaitLine("HANDLING ", Duration.ofSeconds(30))).isEqualTo("HANDLING stall-1 1");
		child.pause();
		try {
			Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();
			listen(engine, "stall", "g",
					(payload, context) -> attempts.computeIfAbsent(context.id(), (id) -> new CopyOnWriteArrayList<>())
						.add(context.attempt()));
			await("the stalled consumer's message recovered by the live one").atMost(Duration.ofSeconds(20))
				.until(() -> attempts.containsKey("stall-1"));
			assertThat(attempts.get("stall-1")).containsExactly(2);
			await().atMost(Duration.ofSeconds(10)).until(() -> engine.admin().stats("stall").inFlight() == 0);
			child.resume();
			// the stale consumer wakes up, finishes attempt 1 and acknowledges it
			assertThat(child.awaitLine("DONE ", Duration.ofSeconds(30))).isEqualTo("DONE stall-1 1");
			await().during(Duration.ofSeconds(3))
				.atMost(Duration.ofSeconds(10))
				.until(() -> engine.admin().stats("stall").inFlight() == 0);
			assertThat(attempts.get("stall-1")).as("no third delivery").containsExactly(2);
			assertThat(engine.admin().stats("stall").dead()).isZero();
			assertThat(engine.admin().stats("stall").groups()).singleElement()
				.satisfies((group) -> assertThat(group.pending()).isZero());
		}
		finally {
			child.resume();
		}
	}

	@Test
	void givesUpTheMessageOfAHungHandlerAndIgnoresItsLateReturn() throws Exception {
		RedisServer redis = redis(RedisServer.builder());
		DelayQueueEngine hungNode = engine(redis, Clock.systemUTC());
		DelayQueueEngine liveNode = engine(redis, Clock.systemUTC());
		CountDownLatch releaseHung = new CountDownLatch(1);
		this.resources.add(releaseHung::countDown);
		Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();
		AtomicInteger hungReturned = new AtomicInteger();
		DelayQueueListenerContainer stuck = start(
				hungNode.listenerContainer("hung", "g", String.class, (payload, context) -> {
					attempts.computeIfAbsent(context.id(), (id) -> new CopyOnWriteArrayList<>()).add(context.attempt());
					if (context.attempt() > 1) {
						return;
					}
					// deaf to the interrupt of its abandonment: it returns late
					while (releaseHung.getCount() > 0) {
						try {
							releaseHung.await();
						}
						catch (InterruptedException ex) {
							// ignored on purpose
						}
					}
					hungReturned.incrementAndGet();
					if (payload.equals("late-fail")) {
						throw new IllegalStateException("fails late, after its message was given up");
					}
				})
					.visibilityTimeout(Duration.ofSeconds(1))
					.leaseRenewalLimit(Duration.ofSeconds(1))
					.shutdownTimeout(Duration.ofSeconds(1))
					.retryPolicy(RetryPolicy.fixed(3, Duration.ofMillis(200)))
					.concurrency(2));
		String lateAck = hungNode.template().send("hung", "late-ack", Duration.ZERO).id();
		String lateFail = hungNode.template().send("hung", "late-fail", Duration.ZERO).id();
		await().atMost(Duration.ofSeconds(10)).until(() -> attempts.size() == 2);

		start(liveNode
			.listenerContainer("hung", "g", String.class,
					(payload, context) -> attempts.computeIfAbsent(context.id(), (id) -> new CopyOnWriteArrayList<>())
						.add(context.attempt()))
			.visibilityTimeout(Duration.ofSeconds(1))
			.concurrency(2));
		// past the renewal limit the hung node gives both up: retried as attempt 2, on
		// either node, while the hung handlers still run
		await().atMost(Duration.ofSeconds(15))
			.until(() -> attempts.values().stream().allMatch((list) -> list.equals(List.of(1, 2))));
		assertThat(stuck.abandonedHandlers()).isEqualTo(2);
		assertThat(stuck.isHealthy()).as("replacement workers serve the hung node").isTrue();

		// the hung handlers return late: one returns, the other throws; both are ignored
		releaseHung.countDown();
		await().atMost(Duration.ofSeconds(10)).until(() -> hungReturned.get() == 2 && stuck.heldMessages() == 0);
		await("no retry, dead letter or third delivery").during(Duration.ofSeconds(2))
			.atMost(Duration.ofSeconds(5))
			.until(() -> {
				QueueStats stats = hungNode.admin().stats("hung");
				return stats.inFlight() == 0 && stats.dead() == 0 && stats.scheduled() == 0
						&& stats.groups().get(0).retryScheduled() == 0
						&& attempts.values().stream().allMatch((list) -> list.size() == 2);
			});
		assertThat(attempts).containsOnlyKeys(lateAck, lateFail);
		assertThat(redis.execute("XPENDING", hungNode.keys("hung").stream(), "g").toString()).startsWith("[0,");
	}

}
