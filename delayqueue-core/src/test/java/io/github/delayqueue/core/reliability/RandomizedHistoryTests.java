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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A randomized run checked by {@link HistoryChecker}: 3,000 messages with random delays
 * of 0 to 3 s, sent singly and in batches of random size from two engines, handlers that
 * fail at random (20% of attempts) with 3 attempts and a fixed 100 ms backoff. Group
 * {@code g} runs two consumer instances (two engines, each on its own connection
 * factory); group {@code audit} runs one more, with failures of its own. Every delivery
 * is recorded with its Redis-clock receive time. Both engines keep messages due 1 s or
 * more ahead in the far tier (about two thirds of them), moved into the schedule half a
 * second before their slot starts.
 * <p>
 * Whether attempt {@code n} of a message fails is a function of the seed, the group, the
 * message id and {@code n}, so the dead letters each group must end with are known up
 * front. The seed is fixed and printed; run with {@code -Dhistory.seed=N} to try another.
 */
@Tag("faults")
class RandomizedHistoryTests {

	private static final long DEFAULT_SEED = 20261122L;

	private static final String QUEUE = "history";

	private static final int MESSAGES = 3000;

	private static final int MAX_ATTEMPTS = 3;

	private static final Duration BACKOFF = Duration.ofMillis(100);

	private static final double FAILURE_RATE = 0.2;

	@Test
	void everyMessageEndsAckedOrDeadAndNoneIsEarlyLostOrDuplicated() {
		long seed = Long.getLong("history.seed", DEFAULT_SEED);
		System.out.println("RandomizedHistoryTests seed: " + seed + " (replay with -Dhistory.seed=" + seed + ")");
		Random random = new Random(seed);
		Map<String, Long> salts = Map.of("g", random.nextLong(), "audit", random.nextLong());
		Map<String, HistoryChecker> histories = Map.of("g", new HistoryChecker(), "audit", new HistoryChecker());
		long started = System.nanoTime();
		try (RedisServer redis = RedisServer.start()) {
			LettuceConnectionFactory firstFactory = RedisServerExtension.connectionFactory(redis);
			LettuceConnectionFactory secondFactory = RedisServerExtension.connectionFactory(redis);
			List<DelayQueueListenerContainer> containers = new ArrayList<>();
			// messages due 1 s or more ahead go through the far tier
			try (DelayQueueEngine first = DelayQueueEngine.builder(firstFactory)
				.compactAfter(Duration.ofSeconds(1))
				.compactMinimum(1)
				.build();
					DelayQueueEngine second = DelayQueueEngine.builder(secondFactory)
						.compactAfter(Duration.ofSeconds(1))
						.compactMinimum(1)
						.build()) {
				containers.add(listen(first, "g", 1, salts.get("g"), histories.get("g"), redis));
				containers.add(listen(second, "g", 2, salts.get("g"), histories.get("g"), redis));
				containers.add(listen(second, "audit", 3, salts.get("audit"), histories.get("audit"), redis));
				List<String> sent = send(List.of(first, second), random);
				assertThat(sent).hasSize(MESSAGES).doesNotHaveDuplicates();

				await("every message acknowledged or failed on its last attempt in both groups (seed " + seed + ")")
					.atMost(Duration.ofSeconds(60))
					.pollInterval(Duration.ofMillis(200))
					.until(() -> histories.values()
						.stream()
						.allMatch((history) -> history.allFinished(sent, MAX_ATTEMPTS)));
				// the last acks and nacks reach Redis; before Redis 7.0 (no group lag)
				// the
				// ready count is -1
				long noneReady = redis.versionAtLeast("7.0") ? 0 : -1;
				await("nothing scheduled, ready, in flight or waiting for a retry").atMost(Duration.ofSeconds(10))
					.pollInterval(Duration.ofMillis(100))
					.until(() -> isQuiet(first.admin().stats(QUEUE), noneReady));
				containers.forEach(DelayQueueListenerContainer::stop);

				QueueStats stats = first.admin().stats(QUEUE);
				assertThat(stats.scheduled()).as("scheduled").isZero();
				assertThat(stats.ready()).as("ready").isEqualTo(noneReady);
				assertThat(stats.inFlight()).as("in flight").isZero();
				assertThat(stats.groups()).extracting(QueueStats.GroupStats::group)
					.containsExactlyInAnyOrder("g", "audit");
				assertThat(stats.groups()).allSatisfy((group) -> {
					assertThat(group.pending()).as("pending of %s", group.group()).isZero();
					assertThat(group.retryScheduled()).as("retries of %s", group.group()).isZero();
				});

				List<DeadLetter> deadLetters = deadLetters(first);
				assertThat(deadLetters).as("dead letters").allSatisfy((letter) -> {
					assertThat(letter.attempts()).as("attempts of dead letter %s", letter.messageId())
						.isEqualTo(MAX_ATTEMPTS);
					assertThat(letter.errorMessage()).startsWith("random failure of ");
				});
				assertThat(stats.dead()).isEqualTo(deadLetters.size());
				for (String group : List.of("g", "audit")) {
					List<String> dead = deadLetters.stream()
						.filter((letter) -> letter.group().equals(group))
						.map(DeadLetter::messageId)
						.toList();
					assertThat(histories.get(group).violations(sent, dead, MAX_ATTEMPTS, BACKOFF.toMillis(), false))
						.as("violations in group %s (seed %d)", group, seed)
						.isEmpty();
					// dead exactly those whose every attempt was decided to fail
					Set<String> expectedDead = sent.stream()
						.filter((id) -> failsEveryAttempt(salts.get(group), id))
						.collect(Collectors.toCollection(TreeSet::new));
					assertThat(new TreeSet<>(dead)).as("dead letters of group %s (seed %d)", group, seed)
						.isEqualTo(expectedDead);
					assertThat(expectedDead).as("a run where some messages of group %s die", group).isNotEmpty();
				}
				Map<Integer, Long> byConsumer = histories.get("g")
					.events()
					.stream()
					.collect(Collectors.groupingBy(HistoryChecker.Event::consumer, Collectors.counting()));
				assertThat(byConsumer.keySet()).as("both consumer instances of group g received deliveries")
					.containsExactlyInAnyOrder(1, 2);
				System.out.printf("RandomizedHistoryTests: %d messages, deliveries g=%d %s, audit=%d, dead=%d, %d ms%n",
						sent.size(), histories.get("g").size(), byConsumer, histories.get("audit").size(),
						deadLetters.size(), Duration.ofNanos(System.nanoTime() - started).toMillis());
			}
			finally {
				containers.forEach(DelayQueueListenerContainer::stop);
				firstFactory.destroy();
				secondFactory.destroy();
			}
		}
	}

	private static DelayQueueListenerContainer listen(DelayQueueEngine engine, String group, int consumer, long salt,
			HistoryChecker history, RedisServer redis) {
		DelayQueueListenerContainer container = engine
			.listenerContainer(QUEUE, group, String.class, (payload, context) -> {
				long received = ReliabilitySupport.redisMillis(redis);
				boolean fails = fails(salt, context.id(), context.attempt());
				history.record(new HistoryChecker.Event(context.id(), context.attempt(), consumer,
						context.dueTime().toEpochMilli(), received, !fails));
				if (fails) {
					throw new IllegalStateException("random failure of " + payload + " attempt " + context.attempt());
				}
			})
			.retryPolicy(RetryPolicy.fixed(MAX_ATTEMPTS, BACKOFF))
			.visibilityTimeout(Duration.ofSeconds(10))
			.concurrency(8)
			.build();
		container.start();
		return container;
	}

	private static boolean isQuiet(QueueStats stats, long noneReady) {
		return stats.scheduled() == 0 && stats.ready() == noneReady && stats.inFlight() == 0
				&& stats.groups().stream().allMatch((group) -> group.retryScheduled() == 0 && group.pending() == 0);
	}

	/** Whether attempt {@code attempt} of message {@code id} fails in a group. */
	private static boolean fails(long salt, String id, int attempt) {
		return new Random(salt * 31 + id.hashCode() * 1_000_003L + attempt).nextDouble() < FAILURE_RATE;
	}

	private static boolean failsEveryAttempt(long salt, String id) {
		for (int attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
			if (!fails(salt, id, attempt)) {
				return false;
			}
		}
		return true;
	}

	/**
	 * Sends MESSAGES messages, each with a random delay of 0 to 3 s (some not positive:
	 * due at once), in a random mix of single sends and batches of 1 to 200, each from a
	 * random engine; returns the ids of the sends that returned.
	 */
	private static List<String> send(List<DelayQueueEngine> engines, Random random) {
		List<String> sent = new ArrayList<>();
		int i = 0;
		while (i < MESSAGES) {
			DelayQueueEngine engine = engines.get(random.nextInt(engines.size()));
			int size = random.nextBoolean() ? 1 : Math.min(MESSAGES - i, 1 + random.nextInt(200));
			List<DelayMessage<?>> batch = new ArrayList<>(size);
			for (int k = 0; k < size; k++, i++) {
				batch.add(DelayMessage.builder("payload-" + i)
					.queue(QUEUE)
					.id("m-" + i)
					.delay(Duration.ofMillis(random.nextInt(3200) - 200))
					.build());
			}
			List<SendResult> results = (size == 1) ? List.of(engine.template().send(batch.get(0)))
					: engine.template().sendAll(batch);
			for (SendResult result : results) {
				assertThat(result.status()).isIn(SendResult.Status.SCHEDULED, SendResult.Status.READY);
				sent.add(result.id());
			}
		}
		return sent;
	}

	private static List<DeadLetter> deadLetters(DelayQueueEngine engine) {
		List<DeadLetter> all = new ArrayList<>();
		String after = null;
		List<DeadLetter> page;
		while (!(page = engine.admin().deadLetters(QUEUE, after, 500)).isEmpty()) {
			all.addAll(page);
			after = page.get(page.size() - 1).entryId();
		}
		return all;
	}

}
