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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.delayqueue.core.QueueStats.GroupStats;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Container lifecycle and leases against a real Redis: graceful shutdown loses nothing,
 * an extended lease keeps a long handler's message from a second consumer, trimming never
 * removes what a group still needs, and the admin figures match a known state. Written
 * once, run on a single server ({@link LifecycleAndLeaseTests}) and on a cluster
 * ({@link ClusterLifecycleAndLeaseTests}).
 */
abstract class LifecycleAndLeaseContract {

	private final Function<String, RedisServer> serverFor;

	private final DelayQueueEngine engine;

	private final List<DelayQueueListenerContainer> containers = new ArrayList<>();

	private final List<CountDownLatch> latches = new ArrayList<>();

	private String queue;

	/**
	 * @param connectionFactory the factory of the Redis under test
	 * @param serverFor the server that holds a key
	 */
	LifecycleAndLeaseContract(RedisConnectionFactory connectionFactory, Function<String, RedisServer> serverFor) {
		this.serverFor = serverFor;
		this.engine = DelayQueueEngine.builder(connectionFactory).build();
	}

	@BeforeEach
	void queueName(TestInfo info) {
		this.queue = info.getTestMethod().orElseThrow().getName();
	}

	@AfterEach
	void stopContainers() {
		this.latches.forEach((latch) -> {
			while (latch.getCount() > 0) {
				latch.countDown();
			}
		});
		this.containers.forEach(DelayQueueListenerContainer::stop);
		this.engine.close();
	}

	private DelayQueueListenerContainer.Builder<String> container(String group, DelayMessageHandler<String> handler) {
		return this.engine.listenerContainer(this.queue, group, String.class, handler)
			.pollTimeout(Duration.ofMillis(300))
			.visibilityTimeout(Duration.ofSeconds(2))
			.retryPolicy(RetryPolicy.fixed(3, Duration.ofMillis(100)));
	}

	private DelayQueueListenerContainer start(DelayQueueListenerContainer.Builder<String> builder) {
		DelayQueueListenerContainer container = builder.build();
		this.containers.add(container);
		container.start();
		return container;
	}

	private CountDownLatch latch() {
		CountDownLatch latch = new CountDownLatch(1);
		this.latches.add(latch);
		return latch;
	}

	private List<String> sendReady(String prefix, int count, int maxAttempts) {
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			DelayMessage.Builder<String> message = DelayMessage.builder(prefix + i).queue(this.queue).id(prefix + i);
			messages.add((maxAttempts > 0) ? message.maxAttempts(maxAttempts).build() : message.build());
		}
		return this.engine.template().sendAll(messages).stream().map(SendResult::id).toList();
	}

	@Test
	void stoppingInTheMiddleOfReadsUsesUpNoAttempt() throws Exception {
		// one attempt per message: any delivery lost to a stop() racing a blocking read
		// would
		// come back as attempt 2 and go straight to the dead letters
		Set<String> handled = ConcurrentHashMap.newKeySet();
		Set<Integer> attempts = ConcurrentHashMap.newKeySet();
		DelayMessageHandler<String> handler = (payload, context) -> {
			handled.add(payload);
			attempts.add(context.attempt());
		};
		List<String> all = new ArrayList<>();
		for (int round = 0; round < 5; round++) {
			DelayQueueListenerContainer container = start(container("g", handler).concurrency(1).prefetch(1));
			all.addAll(sendReady("r" + round + "-", 30, 1));
			container.stop();
		}
		start(container("g", handler).visibilityTimeout(Duration.ofMillis(500)));
		await().atMost(Duration.ofSeconds(15)).until(() -> handled.size() >= all.size());
		assertThat(handled).containsExactlyInAnyOrderElementsOf(all);
		assertThat(attempts).containsOnly(1);
		assertThat(this.engine.admin().stats(this.queue).dead()).as("dead letters").isZero();
	}

	@Test
	void renewsTheLeaseOfMessagesWaitingForAWorker() throws Exception {
		Map<String, AtomicInteger> handled = new ConcurrentHashMap<>();
		Set<Integer> attempts = ConcurrentHashMap.newKeySet();
		DelayMessageHandler<String> slow = (payload, context) -> {
			handled.computeIfAbsent(payload, (id) -> new AtomicInteger()).incrementAndGet();
			attempts.add(context.attempt());
			Thread.sleep(600);
		};
		// one worker, five held: the last waits about 2.4s, longer than the 1s lease
		start(container("g", slow).concurrency(1).prefetch(4).visibilityTimeout(Duration.ofSeconds(1)));
		List<String> sent = sendReady("w", 5, 0);
		Thread.sleep(300); // let the first container take all five before the other one
							// starts
		start(container("g", slow).concurrency(1).prefetch(4).visibilityTimeout(Duration.ofSeconds(1)));
		await().atMost(Duration.ofSeconds(15)).until(() -> handled.size() == sent.size());
		await().during(Duration.ofSeconds(2))
			.atMost(Duration.ofSeconds(5))
			.until(() -> this.engine.admin().stats(this.queue).inFlight() == 0);
		assertThat(handled.values()).allSatisfy((count) -> assertThat(count.get()).isEqualTo(1));
		assertThat(attempts).containsOnly(1);
	}

	@Test
	void keepsPromotingWhileAnotherContainerOfTheGroupRunsOnTheEngine() throws Exception {
		Set<String> received = ConcurrentHashMap.newKeySet();
		DelayQueueListenerContainer first = start(container("g", (payload, context) -> received.add(payload)));
		start(container("g", (payload, context) -> received.add(payload)));
		first.stop();
		this.engine.template().send(this.queue, "later", Duration.ofMillis(300));
		await().atMost(Duration.ofSeconds(10)).until(() -> received.contains("later"));
	}

	@Test
	void recordsTheAttemptsMadeWhenLeasesRunOut() {
		redis().execute("XGROUP", "CREATE", "dq:{" + this.queue + "}:stream", "g", "0", "MKSTREAM");
		sendReady("lease", 1, 1);
		// a consumer takes it and dies: its one attempt is used up by the lease expiry
		redis().execute("XREADGROUP", "GROUP", "g", "dead-consumer", "COUNT", "10", "STREAMS",
				"dq:{" + this.queue + "}:stream", ">");
		start(container("g", (payload, context) -> {
		}).visibilityTimeout(Duration.ofMillis(500)));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.engine.admin().stats(this.queue).dead() == 1);
		DeadLetter dead = this.engine.admin().deadLetters(this.queue, null, 1).get(0);
		assertThat(dead.attempts()).isEqualTo(1);
		assertThat(dead.errorMessage()).contains("Attempts exhausted");
	}

	@Test
	void anObserverThatThrowsBreaksNothing(RedisConnectionFactory connectionFactory) throws Exception {
		DelayQueueObserver throwing = new DelayQueueObserver() {
			@Override
			public void sent(SendResult result) {
				throw new IllegalStateException("sent");
			}

			@Override
			public void delivered(String queue, String group, int attempt, Duration lateness) {
				throw new IllegalStateException("delivered");
			}

			@Override
			public void acked(String queue, String group, Duration processing) {
				throw new IllegalStateException("acked");
			}
		};
		try (DelayQueueEngine observed = DelayQueueEngine.builder(connectionFactory).observer(throwing).build()) {
			Set<String> received = ConcurrentHashMap.newKeySet();
			DelayQueueListenerContainer container = observed
				.listenerContainer(this.queue, "g", String.class, (payload, context) -> received.add(payload))
				.concurrency(1)
				.build();
			container.start();
			try {
				for (int i = 0; i < 5; i++) {
					observed.template().send(this.queue, "m" + i, Duration.ZERO);
				}
				await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 5);
				await().atMost(Duration.ofSeconds(5)).until(() -> container.heldMessages() == 0);
				assertThat(observed.admin().stats(this.queue).inFlight()).isZero();
			}
			finally {
				container.stop();
			}
		}
	}

	@Test
	void anObserverThrowingAnErrorCostsTheOtherObserversAndTheHandlersNothing(RedisConnectionFactory connectionFactory)
			throws Exception {
		// what a metrics library missing a class throws
		DelayQueueObserver broken = new DelayQueueObserver() {
			@Override
			public void sent(SendResult result) {
				throw new NoClassDefFoundError("io/micrometer/Missing");
			}

			@Override
			public void delivered(String queue, String group, int attempt, Duration lateness) {
				throw new NoClassDefFoundError("io/micrometer/Missing");
			}

			@Override
			public void acked(String queue, String group, Duration processing) {
				throw new AssertionError("acked");
			}
		};
		List<String> seen = new CopyOnWriteArrayList<>();
		DelayQueueObserver counting = new DelayQueueObserver() {
			@Override
			public void sent(SendResult result) {
				seen.add("sent");
			}

			@Override
			public void delivered(String queue, String group, int attempt, Duration lateness) {
				seen.add("delivered");
			}

			@Override
			public void acked(String queue, String group, Duration processing) {
				seen.add("acked");
			}
		};
		try (DelayQueueEngine observed = DelayQueueEngine.builder(connectionFactory)
			.observer(broken)
			.observer(counting)
			.build()) {
			List<Integer> attempts = new CopyOnWriteArrayList<>();
			DelayQueueListenerContainer container = observed
				.listenerContainer(this.queue, "g", String.class, (payload, context) -> attempts.add(context.attempt()))
				.concurrency(1)
				.build();
			container.start();
			try {
				for (int i = 0; i < 5; i++) {
					observed.template().send(this.queue, "m" + i, Duration.ZERO);
				}
				await().atMost(Duration.ofSeconds(10)).until(() -> attempts.size() == 5);
				await().atMost(Duration.ofSeconds(5)).until(() -> seen.stream().filter("acked"::equals).count() == 5);
				assertThat(seen).filteredOn("sent"::equals).hasSize(5);
				assertThat(seen).filteredOn("delivered"::equals).hasSize(5);
				// each handled once: no attempt failed for the observer
				assertThat(attempts).containsOnly(1);
				assertThat(observed.admin().stats(this.queue).inFlight()).isZero();
			}
			finally {
				container.stop();
			}
		}
	}

	@Test
	void gracefulShutdownFinishesRunningHandlersAndLosesNothing() throws Exception {
		Set<String> started = ConcurrentHashMap.newKeySet();
		Set<String> completed = ConcurrentHashMap.newKeySet();
		CountDownLatch twoRunning = new CountDownLatch(2);
		DelayQueueListenerContainer first = start(container("g", (payload, context) -> {
			started.add(payload);
			twoRunning.countDown();
			Thread.sleep(500);
			completed.add(payload);
		}).concurrency(2).prefetch(2).shutdownTimeout(Duration.ofSeconds(5)));
		// one attempt each: a message held but not started at shutdown must not use it up
		List<String> all = sendReady("m", 10, 1);
		assertThat(twoRunning.await(5, TimeUnit.SECONDS)).isTrue();
		// two running, two read and waiting for a worker: the reader waits for capacity
		await().atMost(Duration.ofSeconds(5)).until(() -> first.heldMessages() == 4);

		first.stop();
		assertThat(first.isRunning()).isFalse();
		assertThat(completed).as("handlers running at stop() completed").containsAll(started).hasSizeGreaterThan(1);
		Set<String> pending = pendingMessageIds("g");
		assertThat(pending).as("completed messages were acknowledged before stop() returned")
			.doesNotContainAnyElementsOf(completed);

		List<String> redelivered = new CopyOnWriteArrayList<>();
		Map<String, Integer> attempts = new ConcurrentHashMap<>();
		start(container("g", (payload, context) -> {
			redelivered.add(payload);
			attempts.put(payload, context.attempt());
		}).concurrency(4));
		Set<String> expected = new HashSet<>(all);
		expected.removeAll(completed);
		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(redelivered).hasSameElementsAs(expected));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).inFlight() == 0);
		assertThat(redelivered).as("acknowledged messages are not delivered again")
			.doesNotContainAnyElementsOf(completed);
		assertThat(attempts).as("released messages were never attempted")
			.allSatisfy((id, attempt) -> assertThat(attempt).isEqualTo(1));
		assertThat(this.engine.admin().stats(this.queue).dead()).isZero();
	}

	@Test
	void aStoppingContainerTakesNothingOverWhileItsHandlersFinish(RedisConnectionFactory connectionFactory)
			throws Exception {
		// a consumer that died holds two entries; a container is stopped while its
		// handler
		// runs for 2 s, past the entries' visibility timeout: it must leave them to the
		// consumers that go on (what it took over then, it would sit on until its
		// handlers
		// finished, and what it took after giving its entries back, a visibility timeout
		// more, an attempt used up)
		AtomicBoolean stopping = new AtomicBoolean();
		AtomicInteger takenWhileStopping = new AtomicInteger();
		DelayQueueObserver recoveries = new DelayQueueObserver() {
			@Override
			public void recovered(String queue, String group, int count) {
				if (stopping.get()) {
					takenWhileStopping.addAndGet(count);
				}
			}
		};
		String stream = this.engine.keys(this.queue).stream();
		redis().execute("XGROUP", "CREATE", stream, "g", "0", "MKSTREAM");
		try (DelayQueueEngine observed = DelayQueueEngine.builder(connectionFactory).observer(recoveries).build()) {
			CountDownLatch running = new CountDownLatch(1);
			DelayQueueListenerContainer stopped = observed
				.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
					running.countDown();
					Thread.sleep(2000);
				})
				.concurrency(1)
				.prefetch(1)
				.pollTimeout(Duration.ofMillis(300))
				.visibilityTimeout(Duration.ofMillis(500))
				.staleConsumerTimeout(Duration.ofSeconds(1))
				.shutdownTimeout(Duration.ofSeconds(5))
				.build();
			stopped.start();
			sendReady("orphan", 2, 0);
			List<?> read = (List<?>) redis().execute("XREADGROUP", "GROUP", "g", "dead-consumer", "COUNT", "10",
					"STREAMS", stream, ">");
			assertThat((List<?>) ((List<?>) read.get(0)).get(1)).hasSize(2);
			sendReady("slow", 1, 1);
			assertThat(running.await(5, TimeUnit.SECONDS)).isTrue();
			stopping.set(true);
			stopped.stop();
			assertThat(takenWhileStopping).as("entries a stopping container took over").hasValue(0);
		}
		Map<String, Integer> attempts = new ConcurrentHashMap<>();
		start(container("g", (payload, context) -> attempts.put(payload, context.attempt()))
			.visibilityTimeout(Duration.ofMillis(500)));
		await().atMost(Duration.ofSeconds(10))
			.until(() -> attempts.keySet().containsAll(List.of("orphan0", "orphan1")));
		// the dead consumer's delivery counts, the stopping container's none
		assertThat(attempts).as("the slow message was acknowledged").containsOnlyKeys("orphan0", "orphan1");
		assertThat(attempts.values()).allSatisfy((attempt) -> assertThat(attempt).isLessThanOrEqualTo(2));
	}

	@Test
	void anExtendedLeaseKeepsALongHandlersMessageFromOtherConsumers() throws Exception {
		AtomicInteger invocations = new AtomicInteger();
		AtomicBoolean extended = new AtomicBoolean();
		DelayMessageHandler<String> slow = (payload, context) -> {
			invocations.incrementAndGet();
			extended.set(context.extendLease(Duration.ofSeconds(6)));
			Thread.sleep(4000);
		};
		startLeaseContainers(slow);
		this.engine.template().send(this.queue, "long job", Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> invocations.get() == 1);
		assertThat(extended).isTrue();
		// over two visibility timeouts past the watchdog's renewal limit
		await().atMost(Duration.ofSeconds(7))
			.until(() -> this.engine.admin().stats(this.queue).inFlight() == 0 && invocations.get() >= 1);
		assertThat(invocations).as("deliveries of the message").hasValue(1);
		assertThat(this.engine.admin().stats(this.queue).dead()).isZero();
	}

	@Test
	void leaseExtensionsOutOfRangeAreClampedOrRefusedClearly() throws Exception {
		List<Object> outcomes = new CopyOnWriteArrayList<>();
		start(container("g", (payload, context) -> {
			outcomes.add(context.extendLease(Duration.ofSeconds(Long.MAX_VALUE)));
			for (Duration bad : new Duration[] { Duration.ZERO, Duration.ofMillis(-1), null }) {
				try {
					context.extendLease(bad);
					outcomes.add("accepted " + bad);
				}
				catch (IllegalArgumentException ex) {
					outcomes.add(ex.getMessage());
				}
			}
		}));
		this.engine.template().send(this.queue, "x", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> outcomes.size() == 4 && this.engine.admin().stats(this.queue).inFlight() == 0);
		assertThat(outcomes).containsExactly(true, "Lease extension must be positive, but was PT0S",
				"Lease extension must be positive, but was PT-0.001S",
				"Lease extension must be positive, but was null");
		assertThat(this.engine.admin().stats(this.queue).dead()).isZero();
	}

	@Test
	void withoutAnExtendedLeaseALongHandlerLosesItsMessageToAnotherDelivery() throws Exception {
		AtomicInteger invocations = new AtomicInteger();
		startLeaseContainers((payload, context) -> {
			invocations.incrementAndGet();
			Thread.sleep(4000);
		});
		this.engine.template().send(this.queue, "long job", Duration.ZERO);
		await().atMost(Duration.ofSeconds(6)).until(() -> invocations.get() >= 2);
	}

	private void startLeaseContainers(DelayMessageHandler<String> handler) {
		for (String consumer : List.of("a", "b")) {
			start(container("g", handler).consumerName(consumer)
				.concurrency(2)
				.visibilityTimeout(Duration.ofMillis(1500))
				.leaseRenewalLimit(Duration.ofSeconds(1)));
		}
	}

	@Test
	void trimmingNeverRemovesEntriesAGroupStillNeeds() throws Exception {
		String stream = this.engine.keys(this.queue).stream();
		Set<String> fast = ConcurrentHashMap.newKeySet();
		start(container("fast", (payload, context) -> fast.add(payload)).trimInterval(Duration.ofMillis(200)));
		DelayQueueListenerContainer slow = start(container("slow", (payload, context) -> {
		}).trimInterval(Duration.ofMillis(200)));
		await().atMost(Duration.ofSeconds(5)).until(() -> groups().containsKey("slow"));
		slow.stop();

		List<String> all = sendReady("m", 5, 0);
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(fast).hasSameElementsAs(all));
		await().atMost(Duration.ofSeconds(5)).until(() -> groups().get("fast").pending() == 0);
		// the fast group's container trims every 200ms: the slow group has read nothing
		await().during(Duration.ofMillis(1200)).atMost(Duration.ofSeconds(2)).until(() -> xlen(stream) == 5);
		assertThat(groups().get("slow").lag()).isEqualTo(lag(5));

		Set<String> slowReceived = ConcurrentHashMap.newKeySet();
		CountDownLatch release = latch();
		start(container("slow", (payload, context) -> {
			slowReceived.add(payload);
			if (payload.equals("m0")) {
				release.await(10, TimeUnit.SECONDS);
			}
		}).concurrency(2).trimInterval(Duration.ofMillis(200)));
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(slowReceived).hasSameElementsAs(all));
		await().atMost(Duration.ofSeconds(5)).until(() -> groups().get("slow").pending() == 1);
		// m0, the oldest entry, is still pending in the slow group: nothing may go
		await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(2)).until(() -> xlen(stream) == 5);

		release.countDown();
		// once every group acknowledged everything, trimming does remove entries
		await().atMost(Duration.ofSeconds(5)).until(() -> xlen(stream) <= 1);
		assertThat(groups().get("slow").pending()).isZero();
	}

	@Test
	void statsMatchAKnownSituation() throws Exception {
		DelayQueueListenerContainer idle = start(container("b", (payload, context) -> {
			throw new IllegalStateException("group b never runs a handler here");
		}));
		// the reader creates the group; Redis creates a consumer only once it reads an
		// entry
		await().atMost(Duration.ofSeconds(5)).until(() -> groups().containsKey("b"));
		idle.stop();

		for (int i = 0; i < 3; i++) {
			this.engine.template().send(this.queue, "later-" + i, Duration.ofHours(1));
		}
		CountDownLatch release = latch();
		start(container("a", (payload, context) -> {
			switch (payload) {
				case "retry" -> throw new IllegalStateException("try again later");
				case "dead" -> throw new IllegalArgumentException("never");
				default -> release.await(10, TimeUnit.SECONDS);
			}
		}).concurrency(4)
			.retryPolicy(RetryPolicy.fixed(3, Duration.ofHours(1)).withNonRetryable(IllegalArgumentException.class)));
		for (String payload : List.of("hold-1", "hold-2", "retry", "dead")) {
			this.engine.template().send(this.queue, payload, Duration.ZERO);
		}
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			QueueStats stats = this.engine.admin().stats(this.queue);
			assertThat(stats.dead()).as(stats::toString).isEqualTo(1);
			assertThat(stats.inFlight()).as(stats::toString).isEqualTo(2);
			assertThat(stats.groups()).as(stats::toString)
				.anySatisfy((group) -> assertThat(group.retryScheduled()).isEqualTo(1));
		});

		QueueStats stats = this.engine.admin().stats(this.queue);
		assertThat(stats.queue()).isEqualTo(this.queue);
		assertThat(stats.scheduled()).as("scheduled").isEqualTo(3);
		assertThat(stats.inFlight()).as("in flight").isEqualTo(2);
		assertThat(stats.dead()).as("dead").isEqualTo(1);
		assertThat(stats.ready()).as("ready: the most any group has not read yet").isEqualTo(lag(4));
		assertThat(stats.groups()).extracting(GroupStats::group).containsExactlyInAnyOrder("a", "b");
		assertThat(groups().get("a")).isEqualTo(new GroupStats("a", 1, 2, lag(0), 1));
		assertThat(groups().get("b")).isEqualTo(new GroupStats("b", 0, 0, lag(4), 0));

		release.countDown();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).inFlight() == 0);
		QueueStats after = this.engine.admin().stats(this.queue);
		assertThat(after.scheduled()).isEqualTo(3);
		assertThat(after.dead()).isEqualTo(1);
		assertThat(groups().get("a")).isEqualTo(new GroupStats("a", 1, 0, lag(0), 1));
		assertThat(this.engine.admin().queues()).contains(this.queue);
	}

	/**
	 * The lag (or ready count) the stats report for {@code unread} entries: the number on
	 * Redis 7.0+, -1 before ({@code XINFO GROUPS} has no {@code lag} on 6.2).
	 */
	private long lag(long unread) {
		return redis().versionAtLeast("7.0") ? unread : -1;
	}

	private Map<String, GroupStats> groups() {
		return this.engine.admin()
			.stats(this.queue)
			.groups()
			.stream()
			.collect(Collectors.toMap(GroupStats::group, (group) -> group));
	}

	/** The server that holds the queue's keys. */
	private RedisServer redis() {
		return this.serverFor.apply(this.engine.keys(this.queue).stream());
	}

	private long xlen(String stream) {
		return (Long) redis().execute("XLEN", stream);
	}

	/** The message ids of the entries of the queue's stream pending in a group. */
	private Set<String> pendingMessageIds(String group) {
		String stream = this.engine.keys(this.queue).stream();
		Set<String> ids = new HashSet<>();
		for (Object item : (List<?>) redis().execute("XPENDING", stream, group, "-", "+", "1000")) {
			String entryId = (String) ((List<?>) item).get(0);
			List<?> entries = (List<?>) redis().execute("XRANGE", stream, entryId, entryId);
			List<?> fields = (List<?>) ((List<?>) entries.get(0)).get(1);
			for (int i = 0; i + 1 < fields.size(); i += 2) {
				if ("i".equals(fields.get(i))) {
					ids.add((String) fields.get(i + 1));
				}
			}
		}
		return ids;
	}

}
