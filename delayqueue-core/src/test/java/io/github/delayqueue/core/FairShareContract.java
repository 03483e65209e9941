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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import io.github.delayqueue.core.listener.RetryPolicy;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Fair share between keys ({@link DelayQueueEngineBuilder#fairShare(String)}): one key's
 * backlog does not hold back the others' messages due at the same time, each key's
 * messages keep their order, priorities still go first, retries and dead letters work,
 * and an engine that does not declare it moves what waits for its turn at once. Run on a
 * single server and on a Redis Cluster.
 */
abstract class FairShareContract extends QueueTestFixture {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static final List<String> OTHER_KEYS = List.of("b", "c", "d", "e", "f", "g", "h", "i", "j", "k");

	FairShareContract(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private DelayQueueEngine engine(boolean fairShare, int partitions) {
		DelayQueueEngineBuilder builder = DelayQueueEngine.builder(this.connectionFactory)
			.partitions(this.queue, partitions);
		return build(fairShare ? builder.fairShare(this.queue) : builder);
	}

	private DelayMessage<String> message(String key, String id, Instant due) {
		return DelayMessage.builder(id).queue(this.queue).id(id).key(key).deliverAt(due).build();
	}

	/**
	 * Key "a" has 10,000 messages due at one instant, keys "b" to "k" one each at the
	 * same instant (their ids sort after a's, so due order alone hands them out last):
	 * started positions of b to k, with and without fair share.
	 */
	private List<Integer> positionsOfTheOtherKeys(boolean fairShare, int concurrency) {
		DelayQueueEngine engine = engine(fairShare, 1);
		List<String> started = new CopyOnWriteArrayList<>();
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> started.add(payload))
			.concurrency(concurrency)
			.build());
		Instant due = Instant.now().plusSeconds(4);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 10_000; i++) {
			messages.add(message("a", String.format("a-%05d", i), due));
		}
		for (String key : OTHER_KEYS) {
			messages.add(message(key, "z-" + key, due));
		}
		engine.template().sendAll(messages);
		// the premise: every message is in Redis before any comes due (a send that ends
		// after the due time lets key a's first messages start before b-k exist; a CI
		// run on a machine busy with other builds once measured 65-74 that way)
		assertThat(Instant.now()).as("the send of %d messages ended before their due time", messages.size())
			.isBefore(due);
		await().atMost(WAIT).until(() -> started.size() == messages.size());
		List<Integer> positions = new ArrayList<>();
		for (String key : OTHER_KEYS) {
			positions.add(started.indexOf("z-" + key));
		}
		return positions;
	}

	@Test
	void oneKeysBacklogHoldsBackAnotherKeysMessageByAtMostTheBound() {
		int concurrency = 8;
		List<Integer> positions = positionsOfTheOtherKeys(true, concurrency);
		System.out.println("Fair share: keys b-k started after " + positions + " deliveries (concurrency " + concurrency
				+ ", key a's backlog 10,000)");
		// the bound of docs/fairness.md (one container, default prefetch):
		// keys + 6 x concurrency, 59 here
		int keys = OTHER_KEYS.size() + 1;
		assertThat(positions).allSatisfy((position) -> assertThat(position).isBetween(0, keys + 6 * concurrency));
	}

	@Test
	void withoutFairShareTheBacklogGoesFirst() {
		List<Integer> positions = positionsOfTheOtherKeys(false, 8);
		assertThat(positions).allSatisfy((position) -> assertThat(position).isGreaterThan(9_000));
	}

	@Test
	void keysTakeTurnsAndEachKeysMessagesKeepTheirOrder() {
		DelayQueueEngine engine = engine(true, 1);
		List<String> started = new CopyOnWriteArrayList<>();
		Instant due = Instant.now().plusMillis(500);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			messages.add(message("a", "a" + i, due));
		}
		for (int i = 0; i < 5; i++) {
			messages.add(message("b", "b" + i, due));
		}
		messages.add(DelayMessage.builder("none0").queue(this.queue).id("none0").deliverAt(due).build());
		engine.template().sendAll(messages);
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> started.add(payload))
			.concurrency(1)
			.prefetch(1)
			.build());
		await().atMost(WAIT).until(() -> started.size() == 11);
		assertThat(started).containsExactly("a0", "b0", "none0", "a1", "b1", "a2", "b2", "a3", "b3", "a4", "b4");
	}

	@Test
	void orderedListenersGetEachKeysMessagesInOrderOverPartitions() {
		DelayQueueEngine engine = engine(true, 2);
		Map<String, List<Integer>> byKey = new ConcurrentHashMap<>();
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			String[] parts = payload.split("/");
			byKey.computeIfAbsent(parts[0], (key) -> new CopyOnWriteArrayList<>()).add(Integer.parseInt(parts[1]));
		}).ordered(true).concurrency(4).build());
		Instant due = Instant.now().plusMillis(300);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			String key = "k" + (i % 7);
			// a key's order is its due order (ids break the ties of a millisecond)
			messages.add(DelayMessage.builder(key + "/" + i)
				.queue(this.queue)
				.key(key)
				.deliverAt(due.plusMillis(i))
				.build());
		}
		engine.template().sendAll(messages);
		// and some due at once, sent while the others are handed out (due later: after
		// them)
		await().atMost(WAIT).until(() -> !byKey.isEmpty() && Instant.now().isAfter(due.plusMillis(250)));
		for (int i = 200; i < 260; i++) {
			String key = "k" + (i % 7);
			engine.template().send(DelayMessage.builder(key + "/" + i).queue(this.queue).key(key).build());
		}
		await().atMost(WAIT).until(() -> byKey.values().stream().mapToInt(List::size).sum() == 260);
		byKey.forEach((key, received) -> assertThat(received).as(key).isSorted());
	}

	@Test
	void prioritizedMessagesGoAheadOfTheTurns() {
		DelayQueueEngine engine = engine(true, 1);
		List<String> started = new CopyOnWriteArrayList<>();
		Instant due = Instant.now().plusMillis(500);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			messages.add(message("a", String.format("a-%05d", i), due));
		}
		messages
			.add(DelayMessage.builder("vip").queue(this.queue).id("vip").key("a").priority(9).deliverAt(due).build());
		engine.template().sendAll(messages);
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> started.add(payload))
			.concurrency(4)
			.build());
		await().atMost(WAIT).until(() -> started.size() == messages.size());
		assertThat(started.indexOf("vip")).isLessThan(100);
	}

	@Test
	void retriesAndDeadLettersWorkAndWaitingMessagesAreReadyNotScheduled() {
		DelayQueueEngine engine = engine(true, 1);
		List<String> started = new CopyOnWriteArrayList<>();
		// nobody reads yet: due messages wait for their turn
		for (int i = 0; i < 3; i++) {
			engine.template().send(DelayMessage.builder("bad-" + i).queue(this.queue).id("bad-" + i).key("x").build());
		}
		QueueStats stats = engine.admin().stats(this.queue);
		assertThat(stats.scheduled()).isZero();
		assertThat(stats.ready()).isEqualTo(3);
		// waiting for its turn, a message is due: no longer cancelled nor rescheduled
		assertThat(engine.template().cancel(this.queue, "bad-0")).isFalse();
		assertThat(engine.template().reschedule(this.queue, "bad-1", Duration.ofHours(1))).isFalse();
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			started.add(payload);
			throw new IllegalStateException("refused " + payload);
		}).retryPolicy(RetryPolicy.fixed(2, Duration.ofMillis(50))).build());
		await().atMost(WAIT).until(() -> engine.admin().stats(this.queue).dead() == 3);
		assertThat(started).hasSize(6);
		assertThat(ready(engine)).isZero();
	}

	@Test
	void aListenerThatDoesNotDeclareFairShareMovesTheWaitingMessagesAtOnce() {
		DelayQueueEngine fair = engine(true, 1);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 500; i++) {
			messages.add(DelayMessage.builder("m" + i).queue(this.queue).key("k" + (i % 3)).build());
		}
		fair.template().sendAll(messages);
		assertThat(fair.admin().stats(this.queue).ready()).isEqualTo(500);
		DelayQueueEngine plain = engine(false, 1);
		List<String> started = new CopyOnWriteArrayList<>();
		start(plain.listenerContainer(this.queue, "g", String.class, (payload, context) -> started.add(payload))
			.build());
		await().atMost(WAIT).until(() -> started.size() == 500);
		assertThat(started).doesNotHaveDuplicates();
	}

	@Test
	void aChangeOfThePartitionCountWaitsForTheMessagesWaitingForTheirTurn() {
		DelayQueueEngine old = engine(true, 3);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			messages.add(DelayMessage.builder("m" + i).queue(this.queue).id("m" + i).key("k" + i).build());
		}
		old.template().sendAll(messages);
		// partitions 1 and 2 are to drain
		old.admin().changePartitions(this.queue, 1);
		DelayQueueEngine current = engine(true, 1);
		assertThatIllegalStateException().isThrownBy(() -> current.admin().finishPartitionChange(this.queue))
			.withMessageContaining("due message(s) waiting for their fair share");
		Map<String, Integer> received = new ConcurrentHashMap<>();
		start(current
			.listenerContainer(this.queue, "g", String.class,
					(payload, context) -> received.merge(payload, 1, Integer::sum))
			.build());
		await().atMost(WAIT).until(() -> received.size() == 20);
		assertThat(received.values()).allMatch((times) -> times == 1);
		await().atMost(WAIT).until(() -> current.admin().partitionLayout(this.queue).held().isEmpty());
		assertThat(current.admin().finishPartitionChange(this.queue).changing()).isFalse();
	}

	@Test
	void batchesOfThousandsOfKeysAreHeldAndHandedOut() {
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory)
			.fairShare(this.queue)
			.sendBatchSize(10_000)
			.promoteBatchSize(10_000));
		Instant due = Instant.now().plusMillis(500);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 10_000; i++) {
			// half due at once (held by the send), half held by a promote call
			DelayMessage.Builder<String> builder = DelayMessage.builder("m" + i).queue(this.queue).key("key-" + i);
			messages.add(((i % 2 == 0) ? builder.deliverAt(due) : builder).build());
		}
		engine.template().sendAll(messages);
		Map<String, Integer> received = new ConcurrentHashMap<>();
		start(engine
			.listenerContainer(this.queue, "g", String.class,
					(payload, context) -> received.merge(payload, 1, Integer::sum))
			.concurrency(16)
			.build());
		await().atMost(WAIT).until(() -> received.size() == 10_000);
		assertThat(received.values()).allMatch((times) -> times == 1);
	}

	@Test
	void anInvalidQueueNameIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayQueueEngine.builder(this.connectionFactory).fairShare("no{braces}"))
			.withMessageContaining("no{braces}");
	}

}
