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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.listener.BatchFailedException;
import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.core.listener.SnoozeException;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Batch listeners ({@link io.github.delayqueue.core.listener.DelayBatchHandler}): run on
 * a single server and on a Redis Cluster, with partitions.
 */
abstract class BatchContract extends QueueTestFixture {

	BatchContract(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private DelayQueueEngine engine() {
		return build(DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, 3));
	}

	private void sendNow(DelayQueueEngine engine, int count) {
		List<DelayMessage<String>> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			messages.add(DelayMessage.builder("m" + i).queue(this.queue).id("id-" + i).delay(Duration.ZERO).build());
		}
		engine.template().sendAll(messages);
	}

	@Test
	void aBatchHandlerTakesUpToBatchSizeMessagesPerCallEachOnceAndAcknowledged() {
		DelayQueueEngine engine = engine();
		// sent before the listener starts: a backlog, read in batches
		sendNow(engine, 300);
		List<Integer> sizes = new CopyOnWriteArrayList<>();
		Map<String, Integer> seen = new ConcurrentHashMap<>();
		start(engine.batchListenerContainer(this.queue, "bulk", String.class, (payloads, contexts) -> {
			sizes.add(payloads.size());
			assertThat(contexts).hasSameSizeAs(payloads);
			for (int i = 0; i < payloads.size(); i++) {
				// each context is its payload's delivery
				assertThat(contexts.get(i).id()).isEqualTo("id-" + payloads.get(i).substring(1));
				seen.merge(payloads.get(i), 1, Integer::sum);
			}
		}).concurrency(2).batchSize(50).batchWait(Duration.ofMillis(200)).build());
		await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() == 300);
		await().atMost(Duration.ofSeconds(5)).until(() -> engine.admin().stats(this.queue).inFlight() == 0);
		assertThat(seen.values()).containsOnly(1);
		assertThat(sizes).allMatch((size) -> size <= 50);
		// batches, not single messages: 300 in far fewer than 300 calls
		assertThat(sizes.size()).isLessThanOrEqualTo(30);
		QueueStats stats = engine.admin().stats(this.queue);
		assertThat(stats.dead()).isZero();
		assertThat(stats.scheduled()).isZero();
	}

	@Test
	void aBatchLargerThanOneReadIsFilledBySeveralReads() {
		DelayQueueEngine engine = engine();
		sendNow(engine, 5000);
		List<Integer> sizes = new CopyOnWriteArrayList<>();
		Set<String> seen = ConcurrentHashMap.newKeySet();
		start(engine.batchListenerContainer(this.queue, "bulk", String.class, (payloads, contexts) -> {
			sizes.add(payloads.size());
			seen.addAll(payloads);
		}).concurrency(1).batchSize(2500).batchWait(Duration.ofSeconds(1)).build());
		await().atMost(Duration.ofSeconds(30)).until(() -> seen.size() == 5000);
		// a read takes at most 1,000 entries: the first batch gathered several reads
		assertThat(sizes).allMatch((size) -> size <= 2500);
		assertThat(sizes.stream().mapToInt(Integer::intValue).max().getAsInt()).isGreaterThan(1000);
		assertThat(sizes.stream().mapToInt(Integer::intValue).sum()).isEqualTo(5000);
	}

	@Test
	void theMessagesABatchFailedExceptionNamesAreRetriedOnTheirOwnAndTheOthersAcknowledged() {
		DelayQueueEngine engine = engine();
		sendNow(engine, 10);
		Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();
		List<Integer> sizes = new CopyOnWriteArrayList<>();
		start(engine.batchListenerContainer(this.queue, "bulk", String.class, (payloads, contexts) -> {
			sizes.add(payloads.size());
			Map<Integer, Throwable> failed = new HashMap<>();
			for (int i = 0; i < payloads.size(); i++) {
				String payload = payloads.get(i);
				attempts.computeIfAbsent(payload, (key) -> new CopyOnWriteArrayList<>()).add(contexts.get(i).attempt());
				if (payload.equals("m9")) {
					failed.put(i, new IllegalArgumentException("m9 is refused for good"));
				}
				else if ((payload.equals("m3") || payload.equals("m7")) && contexts.get(i).attempt() == 1) {
					failed.put(i, new IllegalStateException("partner busy for " + payload));
				}
			}
			if (!failed.isEmpty()) {
				throw new BatchFailedException(failed);
			}
		})
			.batchSize(20)
			.batchWait(Duration.ofMillis(300))
			.retryPolicy(RetryPolicy.fixed(2, Duration.ofMillis(200)))
			.build());
		await().atMost(Duration.ofSeconds(15)).until(() -> engine.admin().stats(this.queue).dead() == 1);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> attempts.size() == 10 && attempts.get("m3").size() == 2 && attempts.get("m7").size() == 2);
		sleep(500);
		for (int i = 0; i < 10; i++) {
			String payload = "m" + i;
			List<Integer> expected = switch (payload) {
				case "m3", "m7", "m9" -> List.of(1, 2);
				default -> List.of(1);
			};
			assertThat(attempts.get(payload)).as(payload).isEqualTo(expected);
		}
		DeadLetter dead = engine.admin().deadLetters(this.queue, null, 10).get(0);
		assertThat(dead.messageId()).isEqualTo("id-9");
		assertThat(dead.errorClass()).isEqualTo(IllegalArgumentException.class.getName());
		assertThat(dead.errorMessage()).isEqualTo("m9 is refused for good");
		assertThat(engine.admin().stats(this.queue).inFlight()).isZero();
	}

	@Test
	void anyOtherExceptionFailsTheWholeBatchAndAnIndexOutsideTheBatchToo() {
		DelayQueueEngine engine = engine();
		sendNow(engine, 6);
		Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();
		AtomicInteger calls = new AtomicInteger();
		start(engine.batchListenerContainer(this.queue, "bulk", String.class, (payloads, contexts) -> {
			int call = calls.incrementAndGet();
			for (int i = 0; i < payloads.size(); i++) {
				attempts.computeIfAbsent(payloads.get(i), (key) -> new CopyOnWriteArrayList<>())
					.add(contexts.get(i).attempt());
			}
			if (contexts.get(0).attempt() == 1) {
				// the first batches fail: as a whole, or naming a message outside them
				if (call % 2 == 1) {
					throw new IllegalStateException("database down");
				}
				throw new BatchFailedException(new IllegalStateException("row locked"), payloads.size() + 5);
			}
		})
			.batchSize(100)
			.batchWait(Duration.ofMillis(300))
			.retryPolicy(RetryPolicy.fixed(3, Duration.ofMillis(200)))
			.build());
		await().atMost(Duration.ofSeconds(15))
			.until(() -> attempts.size() == 6 && attempts.values().stream().allMatch((seen) -> seen.size() >= 2));
		sleep(500);
		assertThat(attempts.values()).allSatisfy((seen) -> assertThat(seen).startsWith(1, 2));
		QueueStats stats = engine.admin().stats(this.queue);
		assertThat(stats.dead()).isZero();
		assertThat(stats.inFlight()).isZero();
	}

	@Test
	void aBatchSnoozesTheMessagesItNamesWithASnoozeAndAcknowledgesTheOthers() {
		DelayQueueEngine engine = engine();
		sendNow(engine, 4);
		Map<String, List<Integer>> snoozes = new ConcurrentHashMap<>();
		start(engine.batchListenerContainer(this.queue, "bulk", String.class, (payloads, contexts) -> {
			Map<Integer, Throwable> later = new HashMap<>();
			for (int i = 0; i < payloads.size(); i++) {
				DelayMessageContext context = contexts.get(i);
				snoozes.computeIfAbsent(payloads.get(i), (key) -> new CopyOnWriteArrayList<>()).add(context.snoozes());
				if (payloads.get(i).equals("m1") && context.snoozes() == 0) {
					later.put(i, new SnoozeException(Duration.ofMillis(500), "settlement pending"));
				}
			}
			if (!later.isEmpty()) {
				throw new BatchFailedException(later);
			}
		}).batchSize(10).batchWait(Duration.ofMillis(300)).maxAttempts(1).build());
		await().atMost(Duration.ofSeconds(15)).until(() -> snoozes.size() == 4 && snoozes.get("m1").size() == 2);
		sleep(300);
		assertThat(snoozes.get("m1")).containsExactly(0, 1);
		assertThat(snoozes.get("m0")).containsExactly(0);
		QueueStats stats = engine.admin().stats(this.queue);
		assertThat(stats.dead()).isZero();
		assertThat(stats.inFlight()).isZero();
	}

	@Test
	void anOrderedBatchNeverHoldsTwoMessagesOfOnePartitionAndKeepsEachKeysOrder() {
		DelayQueueEngine engine = engine();
		List<DelayMessage<String>> messages = new ArrayList<>();
		for (int seq = 0; seq < 20; seq++) {
			for (int key = 0; key < 6; key++) {
				messages.add(DelayMessage.builder("k" + key + ":" + seq)
					.queue(this.queue)
					.key("k" + key)
					.delay(Duration.ofMillis(seq))
					.build());
			}
		}
		engine.template().sendAll(messages);
		List<List<String>> batches = new CopyOnWriteArrayList<>();
		Set<String> handled = ConcurrentHashMap.newKeySet();
		AtomicInteger failedOnce = new AtomicInteger();
		start(engine.batchListenerContainer(this.queue, "ordered", String.class, (payloads, contexts) -> {
			batches.add(List.copyOf(payloads));
			// the first message of k2 fails once: retried in place, its key's later
			// messages wait behind it
			for (int i = 0; i < payloads.size(); i++) {
				if (payloads.get(i).equals("k2:0") && failedOnce.getAndIncrement() == 0) {
					// the others of the batch are acknowledged
					payloads.stream().filter((payload) -> !payload.equals("k2:0")).forEach(handled::add);
					throw new BatchFailedException(new IllegalStateException("k2 busy"), i);
				}
			}
			handled.addAll(payloads);
		})
			.ordered(true)
			.concurrency(3)
			.batchSize(50)
			.batchWait(Duration.ofMillis(50))
			.retryPolicy(RetryPolicy.fixed(3, Duration.ofMillis(100)))
			.build());
		await().atMost(Duration.ofSeconds(30))
			.until(() -> engine.admin().stats(this.queue).inFlight() == 0
					&& engine.admin().stats(this.queue).scheduled() == 0 && handled.size() == 120);
		Map<String, List<Integer>> order = new HashMap<>();
		Set<String> seen = new HashSet<>();
		for (List<String> batch : batches) {
			Set<String> keys = new HashSet<>();
			for (String payload : batch) {
				String key = payload.substring(0, payload.indexOf(':'));
				assertThat(keys.add(key)).as("two messages of %s in one batch: %s", key, batch).isTrue();
				int seq = Integer.parseInt(payload.substring(payload.indexOf(':') + 1));
				List<Integer> sequence = order.computeIfAbsent(key, (k) -> new ArrayList<>());
				if (seen.add(payload)) {
					sequence.add(seq);
				}
			}
			// one delivery per partition at a time: never more than the 3 partitions
			assertThat(batch.size()).isLessThanOrEqualTo(3);
		}
		for (int key = 0; key < 6; key++) {
			List<Integer> sequence = order.get("k" + key);
			assertThat(sequence).as("k" + key).isSorted().hasSize(20);
		}
		assertThat(engine.admin().stats(this.queue).dead()).isZero();
	}

	@Test
	void aBatchTakesOneRatePermitPerMessageAndAPausedGroupGetsNone() {
		DelayQueueEngine engine = engine();
		List<Long> handledAt = new CopyOnWriteArrayList<>();
		start(engine.batchListenerContainer(this.queue, "bulk", String.class, (payloads, contexts) -> {
			for (String payload : payloads) {
				handledAt.add(System.currentTimeMillis());
			}
		}).batchSize(100).build());
		pauseWhenTheGroupExists(engine);
		engine.admin().limitRate(this.queue, "bulk", new RateLimit(10, Duration.ofSeconds(1), 1));
		sendNow(engine, 25);
		sleep(1500);
		assertThat(handledAt).isEmpty();
		long resumed = System.currentTimeMillis();
		engine.admin().resume(this.queue, "bulk");
		await().atMost(Duration.ofSeconds(20)).until(() -> handledAt.size() == 25);
		// 10 a second with a burst of 1: 25 messages take at least 2.4 s, in batches or
		// not (a batch starts once it holds a permit for each of its messages)
		long last = handledAt.stream().mapToLong(Long::longValue).max().getAsLong();
		assertThat(last - resumed).isGreaterThanOrEqualTo(2200);
	}

	@Test
	void higherPrioritiesComeFirstInABatch() throws Exception {
		DelayQueueEngine engine = engine();
		List<List<Integer>> batches = new CopyOnWriteArrayList<>();
		CountDownLatch gate = new CountDownLatch(1);
		start(engine.batchListenerContainer(this.queue, "bulk", String.class, (payloads, contexts) -> {
			if (payloads.contains("gate")) {
				// holds the only worker while the others are read
				gate.await();
				return;
			}
			List<Integer> priorities = new ArrayList<>();
			for (DelayMessageContext context : contexts) {
				priorities.add(Integer.parseInt(context.headers().get("p")));
			}
			batches.add(priorities);
		}).concurrency(1).batchSize(100).build());
		engine.template().send(this.queue, "gate", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> engine.admin().stats(this.queue).inFlight() == 1);
		List<DelayMessage<String>> messages = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			messages
				.add(DelayMessage.builder("low" + i).queue(this.queue).header("p", "0").delay(Duration.ZERO).build());
		}
		for (int i = 0; i < 5; i++) {
			messages.add(DelayMessage.builder("high" + i)
				.queue(this.queue)
				.header("p", "9")
				.priority(9)
				.delay(Duration.ZERO)
				.build());
		}
		engine.template().sendAll(messages);
		// all read, and waiting for the worker
		await().atMost(Duration.ofSeconds(10)).until(() -> engine.admin().stats(this.queue).inFlight() == 26);
		// the in-flight view (the dashboard's) shows each message the container holds
		List<InFlightMessage> inFlight = engine.admin().inFlight(this.queue, InFlightMessage.Order.IDLE, 100);
		assertThat(inFlight).hasSize(26).allMatch((message) -> message.group().equals("bulk"));
		gate.countDown();
		await().atMost(Duration.ofSeconds(10)).until(() -> batches.stream().mapToInt(List::size).sum() == 25);
		for (List<Integer> batch : batches) {
			assertThat(batch).isSortedAccordingTo((a, b) -> Integer.compare(b, a));
		}
		assertThat(batches.get(0)).startsWith(9, 9, 9, 9, 9);
	}

	/** Pauses the group "bulk" once its listener created it. */
	private void pauseWhenTheGroupExists(DelayQueueEngine engine) {
		await().atMost(Duration.ofSeconds(10))
			.ignoreExceptions()
			.until(() -> engine.admin().pause(this.queue, "bulk").pausedGroups().contains("bulk"));
	}

	@Test
	void onAFairShareQueueOneKeysBacklogDoesNotHoldBackTheOtherKeysBatches() {
		DelayQueueEngine engine = build(
				DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, 1).fairShare(this.queue));
		List<String> started = new CopyOnWriteArrayList<>();
		start(engine.batchListenerContainer(this.queue, "g", String.class, (payloads, contexts) -> {
			started.addAll(payloads);
		}).concurrency(2).batchSize(20).build());
		java.time.Instant due = java.time.Instant.now().plusSeconds(3);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			String id = String.format("a-%05d", i);
			messages.add(DelayMessage.builder(id).queue(this.queue).id(id).key("a").deliverAt(due).build());
		}
		List<String> others = List.of("b", "c", "d", "e", "f", "g", "h", "i", "j", "k");
		for (String key : others) {
			messages
				.add(DelayMessage.builder("z-" + key).queue(this.queue).id("z-" + key).key(key).deliverAt(due).build());
		}
		engine.template().sendAll(messages);
		assertThat(java.time.Instant.now()).as("sent before due").isBefore(due);
		await().atMost(Duration.ofSeconds(60)).until(() -> started.size() == messages.size());
		// by due order alone (ids), b-k would start after a's 2,000; fair share hands
		// them
		// out within the first batches: 2 x 20 running, 100 held at most
		for (String key : others) {
			assertThat(started.indexOf("z-" + key)).as(key).isBetween(0, 200);
		}
	}

	@Test
	void aStopDuringALongBatchWaitEndsPromptlyAndHandlesWhatWasGathered() {
		DelayQueueEngine engine = engine();
		List<String> handled = new CopyOnWriteArrayList<>();
		DelayQueueListenerContainer container = start(
				engine.batchListenerContainer(this.queue, "bulk", String.class, (payloads, contexts) -> {
					handled.addAll(payloads);
				}).batchSize(100).batchWait(Duration.ofMinutes(1)).build());
		sendNow(engine, 1);
		// taken by a worker, which waits for more
		await().atMost(Duration.ofSeconds(10)).until(() -> container.heldMessages() == 1);
		sleep(300);
		assertThat(handled).isEmpty();
		long stopping = System.nanoTime();
		container.stop();
		assertThat(Duration.ofNanos(System.nanoTime() - stopping)).isLessThan(Duration.ofSeconds(5));
		assertThat(handled).containsExactly("m0");
		await().atMost(Duration.ofSeconds(5)).until(() -> engine.admin().stats(this.queue).inFlight() == 0);
	}

	@Test
	void aHungBatchHandlerIsGivenUpMessageByMessageAndItsWorkerReplaced() {
		DelayQueueEngine engine = engine();
		sendNow(engine, 5);
		Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();
		DelayQueueListenerContainer container = start(
				engine.batchListenerContainer(this.queue, "bulk", String.class, (payloads, contexts) -> {
					for (int i = 0; i < payloads.size(); i++) {
						attempts.computeIfAbsent(payloads.get(i), (key) -> new CopyOnWriteArrayList<>())
							.add(contexts.get(i).attempt());
					}
					if (contexts.get(0).attempt() == 1) {
						// hangs past the lease renewal limit
						Thread.sleep(60_000);
					}
				})
					.concurrency(1)
					.batchSize(10)
					.batchWait(Duration.ofMillis(300))
					.visibilityTimeout(Duration.ofSeconds(1))
					.leaseRenewalLimit(Duration.ofSeconds(2))
					.retryPolicy(RetryPolicy.fixed(3, Duration.ofMillis(100)))
					.build());
		// each message given up (HandlerTimeoutException, its attempt used), retried by a
		// replacement worker, and acknowledged
		await().atMost(Duration.ofSeconds(20))
			.until(() -> attempts.size() == 5 && attempts.values().stream().allMatch((seen) -> seen.contains(2)));
		await().atMost(Duration.ofSeconds(5)).until(() -> engine.admin().stats(this.queue).inFlight() == 0);
		assertThat(container.abandonedHandlers()).isPositive();
		assertThat(engine.admin().stats(this.queue).dead()).isZero();
		assertThat(container.isHealthy()).isTrue();
	}

	@Test
	void badBatchSettingsAreRefused() {
		DelayQueueEngine engine = engine();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> engine.batchListenerContainer(this.queue, "g", String.class, (p, c) -> {
			}).batchSize(0))
			.withMessage("Batch size must be from 1 to 10000, but was 0");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> engine.batchListenerContainer(this.queue, "g", String.class, (p, c) -> {
			}).batchWait(Duration.ofMillis(-1)))
			.withMessage("Batch wait must be from 0 to 1 minute, but was PT-0.001S");
		assertThatIllegalArgumentException().isThrownBy(() -> new BatchFailedException(new IllegalStateException("x")))
			.withMessage("Name at least one failed message of the batch");
		assertThatIllegalArgumentException().isThrownBy(() -> new BatchFailedException(Map.of()))
			.withMessage("Name at least one failed message of the batch");
	}

}
