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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.listener.MessageExpiredException;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.core.listener.SnoozeException;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * A handler snoozing its message ({@link SnoozeException}): run on a single server and on
 * a Redis Cluster, with partitions.
 */
abstract class SnoozeContract extends QueueTestFixture {

	/** What the observer saw snoozed: "group/delay ms". */
	private final List<String> snoozed = new CopyOnWriteArrayList<>();

	SnoozeContract(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private DelayQueueEngine engine() {
		return build(DelayQueueEngine.builder(this.connectionFactory)
			.partitions(this.queue, 3)
			.observer(new DelayQueueObserver() {
				@Override
				public void snoozed(String queue, String group, Duration delay) {
					SnoozeContract.this.snoozed.add(group + "/" + delay.toMillis());
				}
			}));
	}

	/** One delivery as the handler saw it: attempt, snoozes so far, when (epoch ms). */
	record Seen(String payload, int attempt, int snoozes, long at) {
	}

	@Test
	void aSnoozedMessageComesBackAfterItsSnoozeAtTheSameAttemptCountedInItsHeader() {
		DelayQueueEngine engine = engine();
		List<Seen> seen = new CopyOnWriteArrayList<>();
		start(engine.listenerContainer(this.queue, "payments", String.class, (payload, context) -> {
			seen.add(new Seen(payload, context.attempt(), context.snoozes(), System.currentTimeMillis()));
			if (context.snoozes() < 2) {
				throw new SnoozeException(Duration.ofMillis(600), "payment still pending");
			}
		}).maxAttempts(1).build());
		engine.template().send(this.queue, "order-1", Duration.ZERO);
		await().atMost(Duration.ofSeconds(15)).until(() -> seen.size() == 3);
		sleep(300);
		assertThat(seen).extracting(Seen::attempt).containsExactly(1, 1, 1);
		assertThat(seen).extracting(Seen::snoozes).containsExactly(0, 1, 2);
		// never early: each comes back at least the snooze after the one before
		assertThat(seen.get(1).at() - seen.get(0).at()).isGreaterThanOrEqualTo(600);
		assertThat(seen.get(2).at() - seen.get(1).at()).isGreaterThanOrEqualTo(600);
		// maxAttempts 1 and no dead letter: a snooze used no attempt
		QueueStats stats = engine.admin().stats(this.queue);
		assertThat(stats.dead()).isZero();
		assertThat(stats.inFlight()).isZero();
		assertThat(stats.groups().get(0).retryScheduled()).isZero();
		assertThat(this.snoozed).containsExactly("payments/600", "payments/600");
	}

	@Test
	void aSnoozePastMaxSnoozesMakesADeadLetterThatSaysSo() {
		DelayQueueEngine engine = engine();
		List<Integer> snoozes = new CopyOnWriteArrayList<>();
		start(engine.listenerContainer(this.queue, "payments", String.class, (payload, context) -> {
			snoozes.add(context.snoozes());
			throw new SnoozeException(Duration.ofMillis(100), "still pending");
		}).maxSnoozes(2).build());
		engine.template().send(this.queue, "order-2", Duration.ZERO);
		await().atMost(Duration.ofSeconds(15)).until(() -> engine.admin().stats(this.queue).dead() == 1);
		assertThat(snoozes).containsExactly(0, 1, 2);
		DeadLetter dead = engine.admin().deadLetters(this.queue, null, 10).get(0);
		assertThat(dead.errorClass()).isEqualTo(SnoozeException.class.getName());
		assertThat(dead.errorMessage())
			.isEqualTo("Snoozed 2 times, the most max-snoozes allows (2); the last snooze said: still pending");
		assertThat(dead.headers()).containsEntry(SnoozeException.SNOOZES_HEADER, "2");
	}

	@Test
	void aSnoozeCountAtItsLargestInAProducersHeaderIsPastMaxSnoozes() {
		DelayQueueEngine engine = engine();
		List<Integer> snoozes = new CopyOnWriteArrayList<>();
		start(engine.listenerContainer(this.queue, "payments", String.class, (payload, context) -> {
			snoozes.add(context.snoozes());
			throw new SnoozeException(Duration.ofMillis(100), "still pending");
		}).maxSnoozes(2).build());
		engine.template()
			.send(DelayMessage.builder("order-4")
				.queue(this.queue)
				.delay(Duration.ZERO)
				.header(SnoozeException.SNOOZES_HEADER, Integer.toString(Integer.MAX_VALUE))
				.build());
		await().atMost(Duration.ofSeconds(15)).until(() -> engine.admin().stats(this.queue).dead() == 1);
		// not wrapped round to a negative count, which read as 0 snoozed it twice more
		assertThat(snoozes).containsExactly(Integer.MAX_VALUE);
		assertThat(engine.admin().deadLetters(this.queue, null, 10).get(0).errorMessage()).isEqualTo(
				"Snoozed 2147483647 times, the most max-snoozes allows (2); the last snooze said: still pending");
	}

	@Test
	void aSnoozePastTheMessagesExpiryExpiresIt() {
		DelayQueueEngine engine = engine();
		List<Integer> snoozes = new CopyOnWriteArrayList<>();
		start(engine.listenerContainer(this.queue, "payments", String.class, (payload, context) -> {
			snoozes.add(context.snoozes());
			throw new SnoozeException(Duration.ofMillis(1200));
		}).build());
		engine.template()
			.send(DelayMessage.builder("order-3")
				.queue(this.queue)
				.delay(Duration.ZERO)
				.expireAfter(Duration.ofSeconds(2))
				.build());
		await().atMost(Duration.ofSeconds(15)).until(() -> engine.admin().stats(this.queue).dead() == 1);
		// snoozed once (due at about 1.3 s, before the expiry at 2 s), then a snooze to
		// about 2.5 s expires it
		assertThat(snoozes).containsExactly(0, 1);
		DeadLetter dead = engine.admin().deadLetters(this.queue, null, 10).get(0);
		assertThat(dead.errorClass()).isEqualTo(MessageExpiredException.class.getName());
		assertThat(dead.errorMessage()).contains("before its next attempt was due");
		// ran twice, both snoozed: no attempt used
		assertThat(dead.attempts()).isZero();
		assertThat(dead.snoozes()).isEqualTo(2);
	}

	@Test
	void aDeadLetterCountsTheAttemptsUsedAndTheSnoozesApart() {
		DelayQueueEngine engine = engine();
		List<Integer> runs = new CopyOnWriteArrayList<>();
		start(engine.listenerContainer(this.queue, "payments", String.class, (payload, context) -> {
			runs.add(context.attempt());
			if (context.snoozes() < 3) {
				throw new SnoozeException(Duration.ofMillis(100), "still pending");
			}
			throw new IllegalStateException("declined");
		}).retryPolicy(RetryPolicy.fixed(2, Duration.ofMillis(100))).build());
		engine.template().send(this.queue, "order-5", Duration.ZERO);
		await().atMost(Duration.ofSeconds(15)).until(() -> engine.admin().stats(this.queue).dead() == 1);
		// 5 runs: 3 snoozed at attempt 1, then attempt 1 and attempt 2 failed
		assertThat(runs).containsExactly(1, 1, 1, 1, 2);
		DeadLetter dead = engine.admin().deadLetters(this.queue, null, 10).get(0);
		assertThat(dead.attempts()).isEqualTo(2);
		assertThat(dead.snoozes()).isEqualTo(3);
		assertThat(dead.attempts() + dead.snoozes()).isEqualTo(runs.size());
	}

	@Test
	void aSnoozedMessageOfAnOrderedListenerDoesNotHoldItsKeysLaterMessages() {
		DelayQueueEngine engine = engine();
		List<String> seen = new CopyOnWriteArrayList<>();
		start(engine.listenerContainer(this.queue, "payments", String.class, (payload, context) -> {
			seen.add(payload + "/" + context.snoozes());
			if (payload.equals("first") && context.snoozes() == 0) {
				throw new SnoozeException(Duration.ofSeconds(1));
			}
		}).ordered(true).build());
		engine.template()
			.send(DelayMessage.builder("first").queue(this.queue).key("customer-1").delay(Duration.ZERO).build());
		engine.template()
			.send(DelayMessage.builder("second")
				.queue(this.queue)
				.key("customer-1")
				.delay(Duration.ofMillis(100))
				.build());
		await().atMost(Duration.ofSeconds(15)).until(() -> seen.size() == 3);
		assertThat(seen).containsExactly("first/0", "second/0", "first/1");
	}

	@Test
	void aSnoozeOutOfRangeIsRefusedNamingIt() {
		assertThatIllegalArgumentException().isThrownBy(() -> new SnoozeException(Duration.ZERO))
			.withMessage("A snooze must be from 1 ms to 365 days, but was PT0S");
		assertThatIllegalArgumentException().isThrownBy(() -> new SnoozeException(Duration.ofDays(366)));
		assertThatIllegalArgumentException().isThrownBy(() -> new SnoozeException(null));
		DelayQueueEngine engine = engine();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			}).maxSnoozes(0))
			.withMessage("Max snoozes must be at least 1, but was 0");
	}

}
