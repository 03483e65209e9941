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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.ListenerSettings;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Exclusive and ordered consumption of a partitioned queue: each partition read by one
 * container of the group at a time, a fair share each, rebalanced as containers come and
 * go, a crashed owner's partitions and pending messages taken over once its lease
 * expired, and in ordered mode the messages of a key handled one at a time in due order,
 * a failed one holding the others back (or not). Written once, run on a single server
 * ({@link OwnedPartitionTests}) and on a cluster ({@link ClusterOwnedPartitionTests}).
 */
abstract class OwnershipContract extends PartitionedQueueFixture {

	/** Short leases: a period of 100 ms, a crashed member gone after 300 ms. */
	private static final Duration LEASE = Duration.ofMillis(300);

	OwnershipContract(RedisConnectionFactory connectionFactory, Function<String, RedisServer> serverFor,
			int partitions) {
		super(connectionFactory, serverFor, partitions);
	}

	private DelayQueueListenerContainer container(String name, DelayMessageHandler<String> handler,
			java.util.function.Consumer<DelayQueueListenerContainer.Builder<String>> settings) {
		DelayQueueListenerContainer.Builder<String> builder = this.engine
			.listenerContainer(this.queue, "g", String.class, handler)
			.consumerName(name)
			.visibilityTimeout(LEASE)
			.retryPolicy(RetryPolicy.fixed(3, Duration.ofMillis(100)));
		settings.accept(builder);
		DelayQueueListenerContainer container = builder.build();
		track(container::stop);
		return container;
	}

	private static Set<Integer> union(DelayQueueListenerContainer... containers) {
		Set<Integer> all = new HashSet<>();
		for (DelayQueueListenerContainer container : containers) {
			all.addAll(container.partitionsRead());
		}
		return all;
	}

	/** Whether the containers read disjoint fair shares covering every partition. */
	private boolean fairlyShared(DelayQueueListenerContainer... containers) {
		int total = 0;
		for (DelayQueueListenerContainer container : containers) {
			int read = container.partitionsRead().size();
			if (read < this.partitions / containers.length
					|| read > (this.partitions + containers.length - 1) / containers.length) {
				return false;
			}
			total += read;
		}
		return total == this.partitions && union(containers).size() == this.partitions;
	}

	private int partitionOf(String key) {
		return Partitioner.CRC32.partition(key, this.partitions);
	}

	@Test
	void eachPartitionIsReadByOneContainerAndTheContainersRebalanceAsTheyComeAndGo() {
		Map<String, Integer> received = new ConcurrentHashMap<>();
		DelayMessageHandler<String> handler = (payload, context) -> received.merge(context.id(), 1, Integer::sum);
		DelayQueueListenerContainer a = container("a", handler, (builder) -> builder.exclusive(true));
		DelayQueueListenerContainer b = container("b", handler, (builder) -> builder.exclusive(true));
		DelayQueueListenerContainer c = container("c", handler, (builder) -> builder.exclusive(true));
		a.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> a.partitionsRead().size() == this.partitions);
		AtomicInteger sent = new AtomicInteger();
		Runnable send = () -> {
			for (int i = 0; i < 50; i++) {
				int n = sent.getAndIncrement();
				this.engine.template().send(DelayMessage.builder("m").queue(this.queue).id("m-" + n).build());
			}
		};
		send.run();
		b.start();
		send.run();
		await().atMost(Duration.ofSeconds(10)).until(() -> fairlyShared(a, b));
		c.start();
		send.run();
		await().atMost(Duration.ofSeconds(10)).until(() -> fairlyShared(a, b, c));
		assertThat(a.groupMembers()).isEqualTo(3);
		b.stop();
		send.run();
		await().atMost(Duration.ofSeconds(10)).until(() -> fairlyShared(a, c));
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == sent.get());
		// clean hand-overs: nothing handled twice
		assertThat(received.values()).allMatch((times) -> times == 1);
		assertThat(this.engine.admin().stats(this.queue).inFlight()).isZero();
	}

	@Test
	void aSharedListenerIsRefusedWhileTheGroupHasOwners() throws InterruptedException {
		Map<String, String> handledBy = new ConcurrentHashMap<>();
		DelayQueueListenerContainer owner = container("owner",
				(payload, context) -> handledBy.put(context.id(), "owner"), (builder) -> builder.ordered(true));
		DelayQueueListenerContainer shared = container("shared",
				(payload, context) -> handledBy.put(context.id(), "shared"), (builder) -> {
				});
		owner.start();
		await().atMost(Duration.ofSeconds(10)).until(() -> owner.partitionsRead().size() == this.partitions);
		shared.start();
		for (int i = 0; i < 40; i++) {
			this.engine.template().send(DelayMessage.builder("m").queue(this.queue).id("before-" + i).build());
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> handledBy.size() == 40);
		assertThat(handledBy.values()).containsOnly("owner");
		assertThat(shared.isHealthy()).isFalse();
		// the owners gone, the shared listener reads
		owner.stop();
		await().atMost(Duration.ofSeconds(10)).until(shared::isHealthy);
		this.engine.template().send(DelayMessage.builder("m").queue(this.queue).id("after").build());
		await().atMost(Duration.ofSeconds(10)).until(() -> "shared".equals(handledBy.get("after")));
	}

	@Test
	void aSharedListenerStopsReadingOnceAnOwnerAppears() {
		Map<String, String> handledBy = new ConcurrentHashMap<>();
		DelayQueueListenerContainer shared = container("shared",
				(payload, context) -> handledBy.put(context.id(), "shared"), (builder) -> {
				});
		DelayQueueListenerContainer owner = container("owner",
				(payload, context) -> handledBy.put(context.id(), "owner"), (builder) -> builder.ordered(true));
		shared.start();
		await().atMost(Duration.ofSeconds(10)).until(shared::isHealthy);
		this.engine.template().send(DelayMessage.builder("m").queue(this.queue).id("before").build());
		await().atMost(Duration.ofSeconds(10)).until(() -> "shared".equals(handledBy.get("before")));
		// a rolling switch to ordered: the shared listener is still reading
		owner.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> !shared.isHealthy());
		await().atMost(Duration.ofSeconds(10)).until(() -> owner.partitionsRead().size() == this.partitions);
		for (int i = 0; i < 40; i++) {
			this.engine.template().send(DelayMessage.builder("m").queue(this.queue).id("after-" + i).build());
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> handledBy.size() == 41);
		handledBy.remove("before");
		assertThat(handledBy.values()).containsOnly("owner");
	}

	@Test
	void aCrashedOwnersPartitionAndPendingMessagesAreTakenOverOnceItsLeaseExpired() {
		String key = "crashed";
		int partition = partitionOf(key);
		QueueKeys keys = this.engine.partitionKeys(this.queue).get(partition);
		QueueKeys first = this.engine.partitionKeys(this.queue).get(0);
		// a member that took the partition, read two messages and died
		RedisServer owner = this.serverFor.apply(keys.stream());
		owner.execute("XGROUP", "CREATE", keys.stream(), "g", "0", "MKSTREAM");
		for (int i = 0; i < 5; i++) {
			owner.execute("XADD", keys.stream(), "*", "id", "pending-" + i);
		}
		long lease = 3000;
		owner.execute("SET", keys.owner("g"), "ghost", "PX", String.valueOf(lease));
		this.serverFor.apply(first.members("g"))
			.execute("ZADD", first.members("g"), String.valueOf(System.currentTimeMillis() + lease), "ghost");
		owner.execute("XREADGROUP", "GROUP", "g", "ghost", "COUNT", "2", "STREAMS", keys.stream(), ">");
		// the live member sends in order and reads in order
		List<String> handled = new CopyOnWriteArrayList<>();
		DelayQueueListenerContainer live = container("live", (payload, context) -> handled.add(payload),
				(builder) -> builder.ordered(true));
		live.start();
		Instant base = Instant.now().plusMillis(200);
		for (int i = 0; i < 5; i++) {
			this.engine.template()
				.send(DelayMessage.builder("later-" + i)
					.queue(this.queue)
					.key(key)
					.deliverAt(base.plusMillis(i))
					.build());
		}
		await().atMost(Duration.ofSeconds(1)).until(() -> live.partitionsRead().size() >= this.partitions / 2);
		assertThat(live.partitionsRead()).doesNotContain(partition);
		assertThat(handled).isEmpty();
		await().atMost(Duration.ofSeconds(10)).until(() -> live.partitionsRead().contains(partition));
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 5);
		assertThat(handled).containsExactly("later-0", "later-1", "later-2", "later-3", "later-4");
		assertThat(live.partitionsRead()).hasSize(this.partitions);
		// the ghost's two entries (raw, undecodable here) and the three it never read
		// were
		// taken over: nothing of the partition is pending with the ghost any more
		List<?> pending = (List<?>) owner.execute("XPENDING", keys.stream(), "g", "-", "+", "100", "ghost");
		assertThat(pending).isEmpty();
	}

	@Test
	void messagesOfAKeyAreHandledOneAtATimeInDueOrder() {
		Map<String, List<Integer>> order = new ConcurrentHashMap<>();
		Map<String, AtomicInteger> running = new ConcurrentHashMap<>();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger inFlight = new AtomicInteger();
		AtomicInteger mostInFlight = new AtomicInteger();
		DelayQueueListenerContainer container = container("ordered", (payload, context) -> {
			String key = payload.substring(0, payload.indexOf('/'));
			if (running.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet() > 1) {
				overlaps.incrementAndGet();
			}
			mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
			try {
				Thread.sleep(3);
			}
			finally {
				inFlight.decrementAndGet();
				running.get(key).decrementAndGet();
			}
			order.computeIfAbsent(key, (k) -> new CopyOnWriteArrayList<>())
				.add(Integer.parseInt(payload.substring(payload.indexOf('/') + 1)));
		}, (builder) -> builder.ordered(true).concurrency(4));
		container.start();
		List<String> keys = distinctPartitionKeys(3);
		// due after the send has surely ended: a message that arrives already due joins
		// its stream in arrival order, and these are sent in reverse (a loaded machine
		// took more than 300 ms to send them)
		Instant base = Instant.now().plusMillis(2_000);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 39; i >= 0; i--) {
			for (String key : keys) {
				// sent in reverse: due order is what counts
				messages.add(DelayMessage.builder(key + "/" + i)
					.queue(this.queue)
					.key(key)
					.deliverAt(base.plusMillis(i * 2L))
					.build());
			}
		}
		this.engine.template().sendAll(messages);
		await().atMost(Duration.ofSeconds(20))
			.until(() -> order.values().stream().mapToInt(List::size).sum() == 40 * keys.size());
		List<Integer> expected = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			expected.add(i);
		}
		for (String key : keys) {
			assertThat(order.get(key)).as("order of key " + key).isEqualTo(expected);
		}
		assertThat(overlaps.get()).isZero();
		// keys of different partitions ran side by side
		assertThat(mostInFlight.get()).isGreaterThan(1);
	}

	@Test
	void aMessageSentDueNowIsHandledAfterEarlierOnesTheSchedulerHasNotMovedYet() throws InterruptedException {
		// no container yet: no scheduler runs, so the first message stays in the schedule
		// past its due time
		this.engine.template()
			.send(DelayMessage.builder("first").queue(this.queue).key("k").delay(Duration.ofMillis(50)).build());
		Thread.sleep(200);
		SendResult second = this.engine.template()
			.send(DelayMessage.builder("second").queue(this.queue).key("k").build());
		// not straight to the stream, ahead of the first: behind it in the schedule
		assertThat(second.status()).isEqualTo(SendResult.Status.SCHEDULED);
		List<String> handled = new CopyOnWriteArrayList<>();
		container("late", (payload, context) -> handled.add(payload), (builder) -> builder.ordered(true)).start();
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 2);
		assertThat(handled).containsExactly("first", "second");
	}

	@Test
	void aFailedMessageHoldsBackTheMessagesOfItsKeyWhileItIsRetriedInPlace() {
		assertThat(retryOrder(true)).containsExactly("m1", "m2#1", "m2#2", "m2#3", "m3");
	}

	@Test
	void withoutBlockingRetriesTheMessagesOfItsKeyPassAFailedOne() {
		List<String> handled = retryOrder(false);
		assertThat(handled).containsSubsequence("m1", "m2#1", "m3", "m2#3");
		assertThat(handled).hasSize(5);
	}

	/** m2 fails on its first two attempts; returns what was handled, in order. */
	private List<String> retryOrder(boolean blocking) {
		List<String> handled = new CopyOnWriteArrayList<>();
		DelayQueueListenerContainer container = container("retrying", (payload, context) -> {
			handled.add(payload.equals("m2") ? "m2#" + context.attempt() : payload);
			if (payload.equals("m2") && context.attempt() < 3) {
				throw new IllegalStateException("not yet");
			}
		}, (builder) -> builder.ordered(true).blockingRetries(blocking).concurrency(4));
		container.start();
		Instant base = Instant.now().plusMillis(300);
		for (int i = 1; i <= 3; i++) {
			this.engine.template()
				.send(DelayMessage.builder("m" + i).queue(this.queue).key("k").deliverAt(base.plusMillis(i)).build());
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 5);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).inFlight() == 0);
		return handled;
	}

	@Test
	void aHungHandlerHoldsItsPartitionBackOnlyUntilTheWatchdogGivesItUp() {
		AtomicBoolean released = new AtomicBoolean();
		track(() -> released.set(true));
		List<String> handled = new CopyOnWriteArrayList<>();
		DelayQueueListenerContainer container = container("hung", (payload, context) -> {
			if (payload.equals("hangs") && context.attempt() == 1) {
				// deaf to interrupts: returns only when the test ends
				while (!released.get()) {
					try {
						Thread.sleep(50);
					}
					catch (InterruptedException ex) {
						// ignored
					}
				}
			}
			handled.add(payload + "#" + context.attempt());
		}, (builder) -> builder.ordered(true).leaseRenewalLimit(Duration.ofMillis(500)));
		container.start();
		Instant base = Instant.now().plusMillis(200);
		this.engine.template().send(DelayMessage.builder("hangs").queue(this.queue).key("k").deliverAt(base).build());
		this.engine.template()
			.send(DelayMessage.builder("next").queue(this.queue).key("k").deliverAt(base.plusMillis(1)).build());
		// the partition moves on once the hung handler is given up (and its message
		// retried through Redis), and the container keeps its workers
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.containsAll(List.of("next#1", "hangs#2")));
		assertThat(container.abandonedHandlers()).isEqualTo(1);
		await().atMost(Duration.ofSeconds(5)).until(container::isHealthy);
	}

	@Test
	void blockingRetriesWithoutOrderAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> ListenerSettings.builder().blockingRetries(false).build())
			.withMessageContaining("ordered");
	}

	private List<String> distinctPartitionKeys(int count) {
		List<String> keys = new ArrayList<>();
		Set<Integer> used = new HashSet<>();
		for (int i = 0; keys.size() < Math.min(count, this.partitions); i++) {
			if (used.add(partitionOf("key-" + i))) {
				keys.add("key-" + i);
			}
		}
		return keys;
	}

}
