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
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerExtension;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A randomized run checked by {@link HistoryChecker}: thousands of messages with random
 * delays, sent singly and in batches, handlers that fail at random, two consumer
 * instances (two engines on two connection factories) in one group. The seed is printed;
 * set {@code -Dhistory.seed=N} to replay a run.
 */
class RandomizedHistoryTests {

	private static final int MESSAGES = 3000;

	private static final int MAX_ATTEMPTS = 3;

	@Test
	void everyMessageEndsAckedOrDeadAndNoneIsEarlyLostOrDuplicated() {
		long seed = Long.getLong("history.seed", System.nanoTime());
		System.out.println("RandomizedHistoryTests seed: " + seed);
		Random random = new Random(seed);
		// whether attempt a of message i fails is decided up front, so the checker knows
		// the outcome
		double failureRate = 0.3;
		long failureSalt = random.nextLong();
		HistoryChecker history = new HistoryChecker();
		try (RedisServer redis = RedisServer.start()) {
			LettuceConnectionFactory firstFactory = RedisServerExtension.connectionFactory(redis);
			LettuceConnectionFactory secondFactory = RedisServerExtension.connectionFactory(redis);
			List<DelayQueueListenerContainer> containers = new ArrayList<>();
			try (DelayQueueEngine first = DelayQueueEngine.builder(firstFactory).build();
					DelayQueueEngine second = DelayQueueEngine.builder(secondFactory).build()) {
				int consumer = 0;
				for (DelayQueueEngine engine : List.of(first, second)) {
					int consumerNumber = ++consumer;
					DelayQueueListenerContainer container = engine
						.listenerContainer("history", "g", String.class, (payload, context) -> {
							long received = redisMillis(redis);
							boolean fails = new Random(failureSalt ^ (payload.hashCode() * 31L + context.attempt()))
								.nextDouble() < failureRate;
							history.record(new HistoryChecker.Event(context.id(), context.attempt(), consumerNumber,
									context.dueTime().toEpochMilli(), received, !fails));
							if (fails) {
								throw new IllegalStateException("random failure of " + payload);
							}
						})
						.retryPolicy(RetryPolicy.fixed(MAX_ATTEMPTS, Duration.ofMillis(100)))
						.visibilityTimeout(Duration.ofSeconds(10))
						.concurrency(8)
						.build();
					container.start();
					containers.add(container);
				}
				List<String> sent = send(first, second, random);
				await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
					QueueStats stats = first.admin().stats("history");
					return stats.scheduled() == 0 && stats.inFlight() == 0 && stats.ready() == 0
							&& stats.groups().stream().allMatch((group) -> group.retryScheduled() == 0);
				});
				containers.forEach(DelayQueueListenerContainer::stop);
				Set<String> dead = new HashSet<>();
				String after = null;
				List<DeadLetter> page;
				while (!(page = first.admin().deadLetters("history", after, 500)).isEmpty()) {
					page.forEach((letter) -> {
						dead.add(letter.messageId());
						assertThat(letter.attempts()).isEqualTo(MAX_ATTEMPTS);
					});
					after = page.get(page.size() - 1).entryId();
				}
				assertThat(history.violations(sent, dead, MAX_ATTEMPTS, false)).as("violations (seed %d)", seed)
					.isEmpty();
				assertThat(dead).as("some messages exhausted their attempts").isNotEmpty();
			}
			finally {
				containers.forEach(DelayQueueListenerContainer::stop);
				firstFactory.destroy();
				secondFactory.destroy();
			}
		}
	}

	private static List<String> send(DelayQueueEngine first, DelayQueueEngine second, Random random) {
		List<String> sent = new ArrayList<>();
		List<DelayMessage<?>> batch = new ArrayList<>();
		for (int i = 0; i < MESSAGES; i++) {
			DelayMessage<String> message = DelayMessage.builder("payload-" + i)
				.queue("history")
				.delay(Duration.ofMillis(random.nextInt(3000) - 200))
				.build();
			if (random.nextBoolean()) {
				sent.add(((i % 2 == 0) ? first : second).template().send(message).id());
			}
			else {
				batch.add(message);
			}
			if (batch.size() == 100 || (i == MESSAGES - 1 && !batch.isEmpty())) {
				first.template().sendAll(batch).stream().map(SendResult::id).forEach(sent::add);
				batch.clear();
			}
		}
		return sent;
	}

	private static long redisMillis(RedisServer redis) {
		List<?> time = (List<?>) redis.execute("TIME");
		return Instant.ofEpochSecond(Long.parseLong((String) time.get(0)), Long.parseLong((String) time.get(1)) * 1000)
			.toEpochMilli();
	}

}
