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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.listener.DelayBatchHandler;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Concurrency limits held in Redis for every instance: at most n handlers of a group (or
 * of one key) at once, counted at the handlers of several engines in one JVM. Run on a
 * single server and on a Redis Cluster, with a queue of 3 partitions.
 */
abstract class ConcurrencyLimitContract extends QueueTestFixture {

	ConcurrencyLimitContract(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private DelayQueueEngine engine() {
		return build(DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, 3));
	}

	private DelayQueueListenerContainer listen(DelayQueueEngine engine, String group, int concurrency,
			DelayMessageHandler<String> handler) {
		return start(
				engine.listenerContainer(this.queue, group, String.class, handler).concurrency(concurrency).build());
	}

	private void send(DelayQueueEngine engine, String prefix, int count, String key) {
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			DelayMessage.Builder<String> message = DelayMessage.builder(prefix + i).queue(this.queue);
			messages.add(((key != null) ? message.key(key) : message).build());
		}
		engine.template().sendAll(messages);
	}

	/** Counts the handlers running at once, their most, and their busy time. */
	static final class Running {

		final AtomicInteger now = new AtomicInteger();

		final AtomicInteger most = new AtomicInteger();

		final AtomicInteger done = new AtomicInteger();

		final AtomicLong busyNanos = new AtomicLong();

		volatile long firstNanos;

		volatile long lastNanos;

		void run(long millis) {
			long start = System.nanoTime();
			if (this.firstNanos == 0) {
				this.firstNanos = start;
			}
			this.most.accumulateAndGet(this.now.incrementAndGet(), Math::max);
			try {
				Thread.sleep(millis);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.now.decrementAndGet();
				long end = System.nanoTime();
				this.busyNanos.addAndGet(end - start);
				this.lastNanos = end;
				this.done.incrementAndGet();
			}
		}

		/** The busy share of {@code slots} over the run, from 0 to 1. */
		double utilisation(int slots) {
			return (double) this.busyNanos.get() / ((this.lastNanos - this.firstNanos) * (double) slots);
		}

	}

	@Test
	void threeInstancesTogetherRunNoMoreThanTheLimitAndUseIt() {
		Running running = new Running();
		DelayMessageHandler<String> handler = (payload, context) -> running
			.run(ThreadLocalRandom.current().nextLong(5, 51));
		DelayQueueEngine a = engine();
		a.admin().limitConcurrency(this.queue, 10);
		listen(a, "g", 16, handler);
		listen(engine(), "g", 16, handler);
		listen(engine(), "g", 16, handler);
		int n = 1500;
		send(a, "m-", n, null);
		await().atMost(Duration.ofSeconds(60)).until(() -> running.done.get() == n);
		double utilisation = running.utilisation(10);
		System.out.printf("concurrency limit 10, 3 instances x 16: most running %d, utilisation %.3f%n",
				running.most.get(), utilisation);
		assertThat(running.most.get()).isLessThanOrEqualTo(10);
		// measured by the benchmark (at least 0.9); here only that the slots are used
		assertThat(utilisation).isGreaterThan(0.6);
		await().atMost(Duration.ofSeconds(5)).until(() -> a.admin().concurrencySlotsTaken(this.queue, "g") == 0);
	}

	@Test
	void aLimitPerKeyHoldsEachKeyWithoutHoldingTheOthersBack() {
		Map<String, Running> byKey = new ConcurrentHashMap<>();
		AtomicInteger attemptsAboveOne = new AtomicInteger();
		DelayMessageHandler<String> handler = (payload, context) -> {
			if (context.attempt() > 1) {
				attemptsAboveOne.incrementAndGet();
			}
			String key = payload.substring(0, payload.indexOf('-'));
			byKey.computeIfAbsent(key, (k) -> new Running()).run(key.startsWith("busy") ? 40 : 1);
		};
		DelayQueueEngine a = engine();
		a.admin().limitConcurrency(this.queue, ConcurrencyLimit.parse("2/key"));
		listen(a, "g", 16, handler);
		listen(engine(), "g", 16, handler);
		for (int k = 0; k < 5; k++) {
			send(a, "busy" + k + "-", 12, "busy" + k);
		}
		long sent = System.nanoTime();
		List<DelayMessage<?>> others = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			others.add(DelayMessage.builder("other" + i + "-x").queue(this.queue).build());
		}
		a.template().sendAll(others);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> byKey.size() == 35 && byKey.entrySet()
				.stream()
				.filter((e) -> e.getKey().startsWith("other"))
				.allMatch((e) -> e.getValue().done.get() == 1));
		long othersDone = byKey.entrySet()
			.stream()
			.filter((e) -> e.getKey().startsWith("other"))
			.mapToLong((e) -> e.getValue().lastNanos)
			.max()
			.orElseThrow();
		// the other keys went by the busy keys' messages, which wait in Redis
		assertThat(TimeUnit.NANOSECONDS.toMillis(othersDone - sent)).isLessThan(1500);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> byKey.entrySet()
				.stream()
				.filter((e) -> e.getKey().startsWith("busy"))
				.allMatch((e) -> e.getValue().done.get() == 12));
		for (int k = 0; k < 5; k++) {
			assertThat(byKey.get("busy" + k).most.get()).as("most running of key busy" + k).isLessThanOrEqualTo(2);
		}
		assertThat(byKey.get("busy0").most.get()).isEqualTo(2);
		assertThat(attemptsAboveOne.get()).as("a message sent back for its key costs no attempt").isZero();
	}

	@Test
	void raisingAndLoweringUnderLoadIsFollowedByEveryInstance() {
		Running running = new Running();
		DelayMessageHandler<String> handler = (payload, context) -> running.run(20);
		DelayQueueEngine a = engine();
		DelayQueueEngine b = engine();
		a.admin().limitConcurrency(this.queue, 2);
		listen(a, "g", 8, handler);
		listen(b, "g", 8, handler);
		long sent = System.nanoTime();
		send(a, "m-", 3000, null);
		// 50 take 0.5 s at 2 at a time; a full build's fork has taken over 10 s now and
		// then
		// (not seen alone): how long the first handler took to start says which part
		// waited
		awaitOrExplain(a, "g", Duration.ofSeconds(30), () -> running.done.get() >= 50,
				() -> running.done.get() + " handled, the first started " + ((running.firstNanos == 0) ? "never"
						: TimeUnit.NANOSECONDS.toMillis(running.firstNanos - sent) + " ms after the send"));
		long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sent);
		if (tookMillis > 10_000) {
			System.out.println("SLOW: 50 handled " + tookMillis + " ms after the send, the first started "
					+ TimeUnit.NANOSECONDS.toMillis(running.firstNanos - sent) + " ms after it; "
					+ a.admin().stats(this.queue));
		}
		assertThat(running.most.get()).isLessThanOrEqualTo(2);
		// raised from the other instance: both follow at once
		b.admin().limitConcurrency(this.queue, 12);
		await().atMost(Duration.ofSeconds(3)).until(() -> running.now.get() > 8);
		// lowered: the running ones finish, and no more than 3 run once they did
		a.admin().limitConcurrency(this.queue, "g", 3);
		sleep(300);
		running.most.set(running.now.get());
		sleep(1000);
		assertThat(running.most.get()).isLessThanOrEqualTo(3);
		b.admin().removeConcurrencyLimit(this.queue, "g");
		b.admin().removeConcurrencyLimit(this.queue);
		await().atMost(Duration.ofSeconds(3)).until(() -> running.now.get() > 8);
		await().atMost(Duration.ofSeconds(60)).until(() -> running.done.get() == 3000);
	}

	@Test
	void aWorkerWaitingForASlotUsesOneAReadTookAheadForADeliveryNoWorkerStarted() {
		// a read takes slots ahead for its deliveries while the workers take others (of
		// other partitions, of a higher priority) without one: with every worker waiting
		// for a slot that such deliveries hold, nothing ran until those slots lapsed,
		// and they never did (the lease keeper renews them): seen as 2 handled of 3,000
		// in raisingAndLoweringUnderLoad... under load. And entries read beyond the
		// room, given back, waited for the next slow sweep when the room filled up
		// before their partition's turn in the recovery pass
		AtomicInteger done = new AtomicInteger();
		DelayMessageHandler<String> handler = (payload, context) -> done.incrementAndGet();
		DelayQueueEngine a = build(DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, 8));
		a.admin().limitConcurrency(this.queue, 1);
		listen(a, "g", 4, handler);
		int sent = 0;
		for (int round = 0; round < 30; round++) {
			List<DelayMessage<?>> messages = new ArrayList<>();
			for (int i = 0; i < 40; i++) {
				messages.add(DelayMessage.builder("r" + round + "-" + i).queue(this.queue).priority(i % 3).build());
			}
			a.template().sendAll(messages);
			sent += messages.size();
			int expected = sent;
			int r = round;
			awaitOrExplain(a, "g", Duration.ofSeconds(10), () -> done.get() == expected,
					() -> done.get() + " of " + expected + " handled in round " + r);
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> a.admin().concurrencySlotsTaken(this.queue, "g") == 0);
	}

	/** Handlers that run until released, counting those running and started. */
	static final class Held {

		final CountDownLatch release = new CountDownLatch(1);

		final AtomicInteger now = new AtomicInteger();

		final AtomicInteger started = new AtomicInteger();

		final AtomicInteger done = new AtomicInteger();

		final Map<String, AtomicInteger> startedByKey = new ConcurrentHashMap<>();

		DelayMessageHandler<String> handler() {
			return (payload, context) -> {
				this.startedByKey
					.computeIfAbsent(payload.substring(0, payload.indexOf('-')), (k) -> new AtomicInteger())
					.incrementAndGet();
				this.started.incrementAndGet();
				this.now.incrementAndGet();
				try {
					this.release.await(30, TimeUnit.SECONDS);
				}
				finally {
					this.now.decrementAndGet();
					this.done.incrementAndGet();
				}
			};
		}

	}

	@Test
	void aChangeOfKindCountsTheHandlersAlreadyRunning() {
		Held held = new Held();
		DelayQueueEngine a = engine();
		DelayQueueEngine b = engine();
		a.admin().limitConcurrency(this.queue, ConcurrencyLimit.parse("2/key"));
		listen(a, "g", 16, held.handler());
		listen(b, "g", 16, held.handler());
		for (int k = 0; k < 4; k++) {
			send(a, "k" + k + "-", 3, "k" + k);
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> held.started.get() == 8);
		// the group's own limit of the whole group replaces the queue's per key: the 8
		// running count, so nothing starts
		a.admin().limitConcurrency(this.queue, "g", 4);
		// every instance follows within the notification's latency (a change is not a
		// barrier across instances, see PauseContract)
		sleep(300);
		send(b, "new-", 5, null);
		await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> held.started.get() == 8);
		// back to the queue's per key: the keys' running handlers count, the new keys go
		a.admin().removeConcurrencyLimit(this.queue, "g");
		await().atMost(Duration.ofSeconds(5)).until(() -> held.started.get() == 13);
		await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> held.started.get() == 13);
		for (int k = 0; k < 4; k++) {
			assertThat(held.startedByKey.get("k" + k)).as("started of key k" + k).hasValue(2);
		}
		held.release.countDown();
		await().atMost(Duration.ofSeconds(30)).until(() -> held.done.get() == 17);
		await().atMost(Duration.ofSeconds(5)).until(() -> a.admin().concurrencySlotsTaken(this.queue, "g") == 0);
	}

	@Test
	void aLimitPerKeyCountsTheHandlersOfAKeyRunningUnderALimitOfTheGroup() {
		Held held = new Held();
		DelayQueueEngine a = engine();
		a.admin().limitConcurrency(this.queue, 4);
		listen(a, "g", 8, held.handler());
		listen(engine(), "g", 8, held.handler());
		send(a, "hot-", 4, "hot");
		await().atMost(Duration.ofSeconds(10)).until(() -> held.started.get() == 4);
		a.admin().limitConcurrency(this.queue, ConcurrencyLimit.parse("1/key"));
		sleep(300);
		send(a, "hot-late", 1, "hot");
		send(a, "cold-", 1, "cold");
		// the other key goes; the busy one waits for its 4 running
		await().atMost(Duration.ofSeconds(5)).until(() -> held.started.get() == 5);
		await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> held.started.get() == 5);
		assertThat(held.startedByKey.get("hot")).hasValue(4);
		held.release.countDown();
		await().atMost(Duration.ofSeconds(30)).until(() -> held.done.get() == 6);
		assertThat(held.startedByKey.get("hot")).hasValue(5);
	}

	@Test
	void anOrderedListenerKeepsEachKeysOrderUnderTheLimit() {
		Running running = new Running();
		Map<String, List<Integer>> seen = new ConcurrentHashMap<>();
		DelayMessageHandler<String> handler = (payload, context) -> {
			String[] parts = payload.split("-");
			seen.computeIfAbsent(parts[0], (k) -> new java.util.concurrent.CopyOnWriteArrayList<>())
				.add(Integer.parseInt(parts[1]));
			running.run(5);
		};
		DelayQueueEngine a = engine();
		a.admin().limitConcurrency(this.queue, 2);
		for (DelayQueueEngine engine : List.of(a, engine())) {
			start(engine.listenerContainer(this.queue, "g", String.class, handler)
				.ordered(true)
				.concurrency(3)
				.build());
		}
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			for (String key : List.of("a", "b", "c", "d")) {
				messages.add(DelayMessage.builder(key + "-" + i).queue(this.queue).key(key).build());
			}
		}
		a.template().sendAll(messages);
		await().atMost(Duration.ofSeconds(30)).until(() -> running.done.get() == 160);
		assertThat(running.most.get()).isLessThanOrEqualTo(2);
		seen.forEach((key, order) -> assertThat(order).as("order of key " + key).isSorted().hasSize(40));
	}

	@Test
	void theSlotsTakenAreCountedAndFreedWhateverTheOutcome() throws Exception {
		CountDownLatch release = new CountDownLatch(1);
		AtomicInteger calls = new AtomicInteger();
		DelayMessageHandler<String> handler = (payload, context) -> {
			calls.incrementAndGet();
			if (payload.startsWith("fail") && context.attempt() == 1) {
				throw new IllegalStateException("fails once");
			}
			release.await();
		};
		DelayQueueEngine engine = engine();
		listen(engine, "g", 8, handler);
		engine.admin().limitConcurrency(this.queue, "g", 4);
		QueueControlState controls = engine.admin().controls(this.queue);
		assertThat(controls.concurrencyLimit("g")).isEqualTo(ConcurrencyLimit.of(4));
		assertThat(controls.groupConcurrencyLimits()).containsEntry("g", ConcurrencyLimit.of(4));
		assertThat(controls.concurrencyLimit("other")).isNull();
		send(engine, "fail-", 2, null);
		send(engine, "m-", 6, null);
		await().atMost(Duration.ofSeconds(10)).until(() -> engine.admin().concurrencySlotsTaken(this.queue, "g") == 4);
		sleep(500);
		// the failed attempts freed theirs: 4 wait in the handler, no more run
		assertThat(engine.admin().concurrencySlotsTaken(this.queue, "g")).isEqualTo(4);
		int before = calls.get();
		sleep(300);
		assertThat(calls.get()).isEqualTo(before);
		release.countDown();
		// the two failed ones come back for their second attempt
		await().atMost(Duration.ofSeconds(30)).until(() -> calls.get() == 10);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> engine.admin().concurrencySlotsTaken(this.queue, "g") == 0
					&& engine.admin().stats(this.queue).groups().stream().allMatch((g) -> g.pending() == 0));
	}

	@Test
	void aBatchTakesASlotForEachOfItsMessages() {
		Running running = new Running();
		AtomicInteger largest = new AtomicInteger();
		DelayBatchHandler<String> handler = (payloads, contexts) -> {
			largest.accumulateAndGet(payloads.size(), Math::max);
			for (int i = 0; i < payloads.size(); i++) {
				running.now.incrementAndGet();
			}
			running.most.accumulateAndGet(running.now.get(), Math::max);
			sleep(20);
			running.now.addAndGet(-payloads.size());
			running.done.addAndGet(payloads.size());
		};
		DelayQueueEngine a = engine();
		a.admin().limitConcurrency(this.queue, 5);
		for (DelayQueueEngine engine : List.of(a, engine())) {
			start(engine.batchListenerContainer(this.queue, "g", String.class, handler)
				.batchSize(8)
				.batchWait(Duration.ofMillis(20))
				.concurrency(3)
				.build());
		}
		send(a, "m-", 400, null);
		await().atMost(Duration.ofSeconds(60)).until(() -> running.done.get() == 400);
		assertThat(running.most.get()).isLessThanOrEqualTo(5);
		assertThat(largest.get()).isGreaterThan(1);
	}

	@Test
	void badConcurrencyLimitsAreRefusedNamingTheInputAndNothingIsWritten() {
		DelayQueueEngine engine = engine();
		listen(engine, "g", 1, (payload, context) -> {
		});
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().limitConcurrency(this.queue, 0))
			.withMessageContaining("Concurrency limit must be from 1 to 10000, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().limitConcurrency(this.queue, -3));
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().limitConcurrency(this.queue, 10_001));
		assertThatIllegalArgumentException().isThrownBy(() -> ConcurrencyLimit.parse("many"))
			.withMessageContaining("Concurrency limit 'many' is not max[/key]");
		assertThatIllegalArgumentException().isThrownBy(() -> ConcurrencyLimit.parse("99999999999"))
			.withMessageContaining("from 1 to 10000");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> engine.admin().limitConcurrency(this.queue, "no-such-group", 3))
			.withMessageContaining("has no consumer group 'no-such-group'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> engine.admin().limitConcurrency(this.queue, "bad group", 3));
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().limitConcurrency("bad queue!", 3));
		assertThat(ConcurrencyLimit.parse(" 7 / key ")).isEqualTo(ConcurrencyLimit.of(7).eachKey());
		assertThat(ConcurrencyLimit.parse(ConcurrencyLimit.of(7).eachKey().toString()))
			.isEqualTo(new ConcurrencyLimit(7, true));
		QueueControlState controls = engine.admin().controls(this.queue);
		assertThat(controls.concurrencyLimit()).isNull();
		assertThat(controls.groupConcurrencyLimits()).isEmpty();
	}

}
