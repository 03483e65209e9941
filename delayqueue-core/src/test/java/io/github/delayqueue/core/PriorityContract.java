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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Message priorities ({@link DelayMessage.Builder#priority(int)}): prioritized messages
 * pass the backlog of the others, a container starts the higher ones it holds first,
 * never early, retried and dead-lettered as any other. Run on a single server and on a
 * Redis Cluster.
 */
abstract class PriorityContract extends QueueTestFixture {

	private static final Duration WAIT = Duration.ofSeconds(30);

	PriorityContract(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private DelayQueueEngine engine(int partitions) {
		return build(DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, partitions));
	}

	private DelayMessage<String> message(String id, int priority, Duration delay) {
		return DelayMessage.builder(id).queue(this.queue).id(id).priority(priority).delay(delay).build();
	}

	@Test
	void prioritizedMessagesPassTheBacklogOfTheOthers() {
		DelayQueueEngine engine = engine(1);
		int concurrency = 8;
		List<String> started = new CopyOnWriteArrayList<>();
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			started.add(payload);
			sleep(2);
		}).concurrency(concurrency).build());
		List<DelayMessage<?>> backlog = new ArrayList<>();
		for (int i = 0; i < 3000; i++) {
			backlog.add(DelayMessage.builder("normal-" + i).queue(this.queue).delay(Duration.ZERO).build());
		}
		engine.template().sendAll(backlog);
		await().atMost(WAIT).until(() -> started.size() >= 200);
		List<DelayMessage<?>> urgent = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			urgent.add(message("urgent-" + i, 5, Duration.ZERO));
		}
		// the backlog drains while the send runs: counted from the moment the
		// prioritized messages are in Redis (the send returned)
		engine.template().sendAll(urgent);
		int sent = started.size();
		await().atMost(WAIT).until(() -> started.stream().filter((p) -> p.startsWith("urgent-")).count() == 100);
		List<String> snapshot = new ArrayList<>(started);
		int lastUrgent = 0;
		for (int i = 0; i < snapshot.size(); i++) {
			if (snapshot.get(i).startsWith("urgent-")) {
				lastUrgent = i;
			}
		}
		long normalBefore = (lastUrgent <= sent) ? 0
				: snapshot.subList(sent, lastUrgent).stream().filter((p) -> p.startsWith("normal-")).count();
		System.out.println("Priority: " + normalBefore + " normal messages started after the 100 prioritized ones were "
				+ "sent and before the last of them (concurrency " + concurrency + ", backlog " + (3000 - sent) + ")");
		assertThat(normalBefore).as("normal starts before the last prioritized one")
			.isLessThanOrEqualTo(2L * concurrency);
	}

	@Test
	void aSustainedFlowOfPrioritizedMessagesDoesNotStarveTheOthers() {
		DelayQueueEngine engine = engine(1);
		List<String> started = new CopyOnWriteArrayList<>();
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			messages.add(message("urgent-" + i, 9, Duration.ZERO));
		}
		for (int i = 0; i < 20; i++) {
			messages.add(DelayMessage.builder("normal-" + i).queue(this.queue).delay(Duration.ZERO).build());
		}
		engine.template().sendAll(messages);
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			started.add(payload);
			sleep(2);
		}).concurrency(2).build());
		await().atMost(WAIT).until(() -> started.size() >= 2020);
		assertThat(new java.util.HashSet<>(started)).hasSize(2020);
		java.util.Map<String, Long> counts = started.stream()
			.collect(java.util.stream.Collectors.groupingBy((p) -> p, java.util.stream.Collectors.counting()));
		assertThat(counts.values()).as("twice: %s", counts.entrySet().stream().filter((e) -> e.getValue() > 1).toList())
			.containsOnly(1L);
		int lastUrgent = 0;
		for (int i = 0; i < started.size(); i++) {
			if (started.get(i).startsWith("urgent-")) {
				lastUrgent = i;
			}
		}
		long normalBefore = started.subList(0, lastUrgent).stream().filter((p) -> p.startsWith("normal-")).count();
		assertThat(normalBefore).as("messages without priority started while prioritized ones kept waiting")
			.isPositive();
	}

	@Test
	void twoEnginesPromotingAndConsumingMixedPrioritiesDeliverEachMessageOncePerGroup() {
		List<DelayQueueEngine> engines = List.of(engine(3), engine(3));
		java.util.Map<String, java.util.concurrent.atomic.AtomicInteger> delivered = new java.util.concurrent.ConcurrentHashMap<>();
		for (DelayQueueEngine engine : engines) {
			for (String group : List.of("a", "b")) {
				start(engine
					.listenerContainer(this.queue, group, String.class,
							(payload, context) -> delivered.computeIfAbsent(group + "/" + payload,
									(key) -> new java.util.concurrent.atomic.AtomicInteger())
								.incrementAndGet())
					.build());
			}
		}
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 400; i++) {
			// due over 400 ms, so that both engines' schedulers move them
			messages.add(DelayMessage.builder("m" + i)
				.queue(this.queue)
				.id("m" + i)
				.priority(i % 10)
				.delay(Duration.ofMillis(i))
				.build());
		}
		engines.get(0).template().sendAll(messages);
		await().atMost(WAIT).until(() -> delivered.size() == 800);
		sleep(500);
		assertThat(delivered).hasSize(800);
		assertThat(delivered.values()).extracting(java.util.concurrent.atomic.AtomicInteger::get).containsOnly(1);
	}

	@Test
	void aContainerStartsTheHigherPrioritiesItHoldsFirstAndNoneEarly() throws Exception {
		DelayQueueEngine engine = engine(1);
		CountDownLatch release = new CountDownLatch(1);
		List<String> started = new CopyOnWriteArrayList<>();
		List<Boolean> early = new CopyOnWriteArrayList<>();
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			early.add(Instant.now().isBefore(context.dueTime()));
			started.add(payload);
			if (payload.equals("blocker") && !release.await(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("not released");
			}
		}).concurrency(1).prefetch(16).build());
		engine.template().send(message("blocker", 0, Duration.ZERO));
		await().atMost(WAIT).until(() -> started.contains("blocker"));
		List<DelayMessage<?>> messages = new ArrayList<>();
		messages.add(message("p0", 0, Duration.ZERO));
		for (int p = 1; p <= 9; p++) {
			messages.add(message("p" + p, p, Duration.ZERO));
		}
		engine.template().sendAll(messages);
		// all read and held by the container before the blocker returns
		await().atMost(WAIT).until(() -> engine.admin().stats(this.queue).inFlight() == 11);
		release.countDown();
		await().atMost(WAIT).until(() -> started.size() == 11);
		assertThat(started).containsExactly("blocker", "p9", "p8", "p7", "p6", "p5", "p4", "p3", "p2", "p1", "p0");
		// a delayed prioritized message: never early
		engine.template().send(message("later", 9, Duration.ofMillis(400)));
		await().atMost(WAIT).until(() -> started.contains("later"));
		assertThat(early).containsOnly(false);
	}

	@Test
	void aPrioritizedMessageIsRetriedDeadLetteredAndReplayedAsAnyOther() {
		DelayQueueEngine engine = engine(3);
		AtomicBoolean failing = new AtomicBoolean(true);
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			attempts.add(context.attempt());
			if (failing.get()) {
				throw new IllegalStateException("down");
			}
		}).maxAttempts(2).initialBackoff(Duration.ofMillis(10)).build());
		engine.template().send(message("vip", 7, Duration.ZERO));
		await().atMost(WAIT).until(() -> engine.admin().stats(this.queue).dead() == 1);
		assertThat(attempts).containsExactly(1, 2);
		DeadLetter letter = engine.admin().deadLetters(this.queue, null, 10).get(0);
		assertThat(letter.messageId()).isEqualTo("vip");
		failing.set(false);
		assertThat(engine.admin().replay(this.queue, letter.entryId())).isTrue();
		await().atMost(WAIT).until(() -> attempts.size() == 3);
		await().atMost(WAIT).until(() -> engine.admin().stats(this.queue).inFlight() == 0);
		assertThat(engine.admin().stats(this.queue).dead()).isZero();
	}

	@Test
	void prioritizedMessagesAreCountedScheduledCancelledAndRescheduledAsAnyOther() {
		DelayQueueEngine engine = engine(3);
		engine.template().send(message("a", 3, Duration.ofHours(1)));
		engine.template().send(message("b", 3, Duration.ZERO));
		assertThat(engine.admin().scheduledMessage(this.queue, "a").orElseThrow().priority()).isEqualTo(3);
		QueueStats stats = engine.admin().stats(this.queue);
		assertThat(stats.scheduled()).isEqualTo(1);
		assertThat(stats.ready()).as("the due one, waiting in the urgent stream").isEqualTo(1);
		assertThat(engine.template().reschedule(this.queue, "a", Duration.ZERO)).isTrue();
		assertThat(engine.admin().stats(this.queue).ready()).isEqualTo(2);
		engine.template().send(message("c", 1, Duration.ofHours(1)));
		assertThat(engine.template().cancel(this.queue, "c")).isTrue();
		List<String> delivered = new CopyOnWriteArrayList<>();
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> delivered.add(payload))
			.build());
		await().atMost(WAIT).until(() -> delivered.size() == 2);
		assertThat(delivered).containsExactlyInAnyOrder("a", "b");
	}

	@Test
	void aPriorityOutOfRangeIsRefusedBeforeAnythingIsSent() {
		assertThatIllegalArgumentException().isThrownBy(() -> DelayMessage.builder("x").priority(10))
			.withMessage("Priority must be from 0 to 9, but was 10");
		assertThatIllegalArgumentException().isThrownBy(() -> DelayMessage.builder("x").priority(-1))
			.withMessage("Priority must be from 0 to 9, but was -1");
	}

}
