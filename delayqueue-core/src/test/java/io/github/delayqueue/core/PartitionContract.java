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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A queue of several partitions: messages spread over the partitions by key, every one
 * delivered once, cancel and reschedule find an id in any partition, dedup holds, stats
 * and dead letters cover every partition, and an engine that declares another count is
 * refused. Written once, run on a single server ({@link PartitionedQueueTests}) and on a
 * cluster ({@link ClusterPartitionedQueueTests}).
 */
abstract class PartitionContract extends PartitionedQueueFixture {

	PartitionContract(RedisConnectionFactory connectionFactory, Function<String, RedisServer> serverFor,
			int partitions) {
		super(connectionFactory, serverFor, partitions);
	}

	/** Message id → how many times it was handled. */
	private Map<String, Integer> listen(Function<String, RuntimeException> failure) {
		Map<String, Integer> received = new ConcurrentHashMap<>();
		DelayQueueListenerContainer container = this.engine
			.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
				received.merge(context.id(), 1, Integer::sum);
				RuntimeException refused = failure.apply(payload);
				if (refused != null) {
					throw refused;
				}
			})
			.retryPolicy(RetryPolicy.fixed(1, Duration.ofMillis(10)))
			.build();
		container.start();
		track(container::stop);
		return received;
	}

	/**
	 * How many messages each partition has scheduled (in the schedule or the far tier),
	 * read on the server holding it.
	 */
	private List<Long> scheduledPerPartition() {
		List<Long> counts = new ArrayList<>();
		for (QueueKeys keys : this.engine.partitionKeys(this.queue)) {
			RedisServer server = this.serverFor.apply(keys.delayed());
			// in the schedule, and (due an hour ahead) in the far tier
			Object far = server.execute("HGET", keys.farState(), "n");
			counts.add((Long) server.execute("ZCARD", keys.delayed())
					+ ((far != null) ? Long.parseLong((String) far) : 0));
		}
		return counts;
	}

	@Test
	void spreadsMessagesOverThePartitionsAndDeliversEachOnce() {
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 200; i++) {
			messages
				.add(DelayMessage.builder("m-" + i).queue(this.queue).id("id-" + i).delay(Duration.ofHours(1)).build());
		}
		this.engine.template().sendAll(messages);
		assertThat(scheduledPerPartition()).hasSize(this.partitions).allMatch((count) -> count > 0);
		assertThat(this.engine.admin().stats(this.queue).scheduled()).isEqualTo(200);
		Map<String, Integer> received = listen((payload) -> null);
		for (int i = 0; i < 200; i++) {
			assertThat(this.engine.template().reschedule(this.queue, "id-" + i, Duration.ZERO)).isTrue();
		}
		await().atMost(Duration.ofSeconds(15)).until(() -> received.size() == 200);
		assertThat(received.values()).allMatch((times) -> times == 1);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).inFlight() == 0);
		assertThat(this.engine.admin().stats(this.queue).scheduled()).isZero();
	}

	@Test
	void thePartitionsShareTheHandlersAndTheCapacityOfTheContainer() throws InterruptedException {
		AtomicInteger running = new AtomicInteger();
		AtomicInteger mostRunning = new AtomicInteger();
		CountDownLatch release = new CountDownLatch(1);
		Set<String> handled = ConcurrentHashMap.newKeySet();
		DelayQueueListenerContainer container = this.engine
			.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
				mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
				try {
					release.await(20, TimeUnit.SECONDS);
				}
				finally {
					running.decrementAndGet();
				}
				handled.add(context.id());
			})
			.concurrency(3)
			.prefetch(2)
			.build();
		container.start();
		track(container::stop);
		int limit = 3 + 2 * this.partitions;
		sendNow(240, (i) -> "id-" + i);
		// every partition has a backlog: the container fills up to its limit, no further
		await().atMost(Duration.ofSeconds(10)).until(() -> container.heldMessages() == limit);
		long end = System.nanoTime() + Duration.ofMillis(500).toNanos();
		while (System.nanoTime() < end) {
			assertThat(container.heldMessages()).isLessThanOrEqualTo(limit);
			Thread.sleep(10);
		}
		assertThat(mostRunning.get()).isEqualTo(3);
		release.countDown();
		await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == 240);
		assertThat(mostRunning.get()).isEqualTo(3);
	}

	@Test
	void idlePartitionsLeaveTheHandlersToABusyOne() {
		AtomicInteger running = new AtomicInteger();
		AtomicInteger mostRunning = new AtomicInteger();
		Set<String> handled = ConcurrentHashMap.newKeySet();
		DelayQueueListenerContainer container = this.engine
			.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
				mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
				try {
					Thread.sleep(100);
				}
				finally {
					running.decrementAndGet();
				}
				handled.add(context.id());
			})
			.concurrency(4)
			.prefetch(1)
			.build();
		container.start();
		track(container::stop);
		// one key: one partition
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			messages.add(DelayMessage.builder("m").queue(this.queue).id("one-" + i).key("hot").build());
		}
		this.engine.template().sendAll(messages);
		await().atMost(Duration.ofSeconds(20)).until(() -> handled.size() == 40);
		assertThat(mostRunning.get()).isEqualTo(4);
	}

	private void sendNow(int count, Function<Integer, String> id) {
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			messages.add(DelayMessage.builder("m-" + i).queue(this.queue).id(id.apply(i)).build());
		}
		this.engine.template().sendAll(messages);
	}

	@Test
	void messagesOfOneKeyShareAPartitionAndAreFoundByIdAlone() {
		for (int i = 0; i < 10; i++) {
			this.engine.template()
				.send(DelayMessage.builder("k-" + i)
					.queue(this.queue)
					.id("keyed-" + i)
					.key("customer-7")
					.delay(Duration.ofHours(1))
					.build());
		}
		assertThat(scheduledPerPartition()).containsOnlyOnce(10L).filteredOn((count) -> count > 0).hasSize(1);
		assertThat(this.engine.template().cancel(this.queue, "keyed-3")).isTrue();
		assertThat(this.engine.template().cancel(this.queue, "keyed-3")).isFalse();
		assertThat(this.engine.template().reschedule(this.queue, "keyed-4", Duration.ofHours(2))).isTrue();
		assertThat(this.engine.template().reschedule(this.queue, "missing", Duration.ofHours(2))).isFalse();
		assertThat(this.engine.admin().stats(this.queue).scheduled()).isEqualTo(9);
	}

	@Test
	void deduplicatesByIdAcrossSends() {
		DelayMessage<String> message = DelayMessage.builder("once")
			.queue(this.queue)
			.id("dedup-1")
			.delay(Duration.ofHours(1))
			.build();
		assertThat(this.engine.template().send(message).status()).isEqualTo(SendResult.Status.SCHEDULED);
		assertThat(this.engine.template().send(message).status()).isEqualTo(SendResult.Status.DUPLICATE);
		assertThat(this.engine.admin().stats(this.queue).scheduled()).isEqualTo(1);
	}

	@Test
	void deadLettersOfEveryPartitionAreListedReplayedDeletedAndPurged() {
		Map<String, Integer> received = listen(
				(payload) -> payload.startsWith("bad") ? new IllegalStateException("refused " + payload) : null);
		for (int i = 0; i < 20; i++) {
			this.engine.template().send(this.queue, "bad-" + i, Duration.ZERO);
		}
		await().atMost(Duration.ofSeconds(15)).until(() -> this.engine.admin().stats(this.queue).dead() == 20);
		List<DeadLetter> all = new ArrayList<>();
		String after = null;
		for (List<DeadLetter> page = this.engine.admin().deadLetters(this.queue, null, 7); !page
			.isEmpty(); page = this.engine.admin().deadLetters(this.queue, after, 7)) {
			all.addAll(page);
			after = page.get(page.size() - 1).entryId();
		}
		Set<String> ids = new HashSet<>();
		all.forEach((letter) -> ids.add(letter.entryId()));
		assertThat(all).hasSize(20);
		assertThat(ids).hasSize(20).anyMatch((id) -> id.contains(":"));
		DeadLetter prefixed = all.stream().filter((letter) -> letter.entryId().contains(":")).findFirst().orElseThrow();
		assertThat(this.engine.admin().replay(this.queue, prefixed.entryId())).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> received.get(prefixed.messageId()) == 2);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.engine.admin().stats(this.queue).dead() == 20);
		DeadLetter another = this.engine.admin().deadLetters(this.queue, null, 20).get(3);
		assertThat(this.engine.admin().deleteDeadLetter(this.queue, another.entryId())).isTrue();
		assertThat(this.engine.admin().deleteDeadLetter(this.queue, another.entryId())).isFalse();
		assertThat(this.engine.admin().purgeDeadLetters(this.queue)).isEqualTo(19);
		assertThat(this.engine.admin().stats(this.queue).dead()).isZero();
	}

	@Test
	void rejectsBadCountsKeysAndPartitionersClearly() {
		DelayQueueEngineBuilder builder = DelayQueueEngine.builder(this.connectionFactory);
		assertThatIllegalArgumentException().isThrownBy(() -> builder.partitions(this.queue, 0))
			.withMessage("Partitions of queue '" + this.queue + "' must be between 1 and 1024, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> builder.partitions(this.queue, 1025));
		assertThatIllegalArgumentException().isThrownBy(() -> builder.partitions("bad name", 2))
			.withMessageContaining("Queue name 'bad name' may only contain");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayMessage.builder("p").queue(this.queue).key("").build())
			.withMessage("Message key must not be null or empty");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayMessage.builder("p").queue(this.queue).key("a\u0000b").build())
			.withMessageContaining("Message key 'a");
		DelayQueueEngine broken = track(DelayQueueEngine.builder(this.connectionFactory)
			.partitions(this.queue, this.partitions)
			.partitioner((key, count) -> count)
			.build());
		assertThatIllegalStateException().isThrownBy(() -> broken.template().send(this.queue, "x", Duration.ZERO))
			.withMessageContaining("to partition " + this.partitions + ", outside 0 to " + (this.partitions - 1));
		assertThat(this.engine.admin().stats(this.queue).scheduled() + this.engine.admin().stats(this.queue).ready())
			.isZero();
	}

	@Test
	void anEngineThatDeclaresAnotherCountIsRefused() throws InterruptedException {
		this.engine.template().send(this.queue, "first", Duration.ofHours(1));
		AtomicInteger refused = new AtomicInteger();
		for (int other : new int[] { 1, this.partitions + 1 }) {
			DelayQueueEngine wrong = track(
					DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, other).build());
			assertThatIllegalStateException().isThrownBy(() -> wrong.template().send(this.queue, "x", Duration.ZERO))
				.withMessageContaining(
						"has " + this.partitions + " partition(s) in Redis, but " + other + " are declared here");
			refused.incrementAndGet();
		}
		assertThat(refused).hasValue(2);
		assertThat(this.engine.admin().stats(this.queue).scheduled()).isEqualTo(1);
		// a listener of an engine that declares another count reads nothing and creates
		// no
		// group: its readers refuse to start on the queue (and log why, retrying)
		DelayQueueEngine wrong = track(
				DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, this.partitions + 1).build());
		Set<String> received = ConcurrentHashMap.newKeySet();
		DelayQueueListenerContainer container = wrong
			.listenerContainer(this.queue, "g", String.class, (payload, context) -> received.add(payload))
			.build();
		container.start();
		track(container::stop);
		this.engine.template().send(this.queue, "now", Duration.ZERO);
		await().atMost(Duration.ofSeconds(3)).until(() -> !container.isHealthy());
		Thread.sleep(1000);
		assertThat(container.isHealthy()).isFalse();
		assertThat(received).isEmpty();
		assertThat(this.engine.admin().stats(this.queue).groups()).as("groups created by the refused listener")
			.isEmpty();
	}

}
