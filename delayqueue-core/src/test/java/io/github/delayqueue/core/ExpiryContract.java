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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.ListenerSetters;
import io.github.delayqueue.core.listener.MessageExpiredException;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Message expiry ({@link DelayMessage.Builder#expireAfter}): run on a single server and
 * on a Redis Cluster, with partitions.
 */
abstract class ExpiryContract extends QueueTestFixture {

	/** What the observer saw expire: "group/dead-lettered" or "group/discarded". */
	private final List<String> expired = new CopyOnWriteArrayList<>();

	ExpiryContract(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private DelayQueueEngine engine(Consumer<DelayQueueEngineBuilder> customizer) {
		DelayQueueEngineBuilder builder = DelayQueueEngine.builder(this.connectionFactory)
			.partitions(this.queue, 3)
			.observer(new DelayQueueObserver() {
				@Override
				public void expired(String queue, String group, boolean deadLettered) {
					ExpiryContract.this.expired.add(group + "/" + (deadLettered ? "dead-lettered" : "discarded"));
				}
			});
		customizer.accept(builder);
		return build(builder);
	}

	private DelayQueueEngine engine() {
		return engine((builder) -> {
		});
	}

	/** Starts a listener whose handler fails for payloads starting with "fail". */
	private Map<String, List<Integer>> listen(DelayQueueEngine engine, String group,
			Consumer<ListenerSetters<?>> settings) {
		Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();
		DelayQueueListenerContainer container = engine
			.listenerContainer(this.queue, group, String.class, (payload, context) -> {
				attempts.computeIfAbsent(payload, (key) -> new CopyOnWriteArrayList<>()).add(context.attempt());
				if (payload.startsWith("fail")) {
					throw new IllegalStateException("downstream is down");
				}
			})
			.apply(settings)
			.build();
		start(container);
		return attempts;
	}

	/** Retries 300 ms apart, no jitter. */
	private static Consumer<ListenerSetters<?>> everyRetryAfter300Ms(int maxAttempts, boolean ordered) {
		return (settings) -> settings.ordered(ordered)
			.maxAttempts(maxAttempts)
			.initialBackoff(Duration.ofMillis(300))
			.backoffMultiplier(1.0)
			.jitter(0);
	}

	private void send(DelayQueueEngine engine, String payload, Duration delay, Duration expireAfter) {
		DelayMessage.Builder<String> message = DelayMessage.builder(payload).queue(this.queue).delay(delay);
		if (expireAfter != null) {
			message.expireAfter(expireAfter);
		}
		engine.template().send(message.build());
	}

	@Test
	void aMessageNotHandledBeforeItsExpiryReachesNoHandlerAndBecomesADeadLetterSaying() {
		DelayQueueEngine engine = engine();
		engine.admin().pause(this.queue);
		Map<String, List<Integer>> seen = listen(engine, "g", (settings) -> {
		});
		for (int i = 0; i < 6; i++) {
			send(engine, "short-" + i, Duration.ZERO, Duration.ofMillis(300));
			send(engine, "long-" + i, Duration.ZERO, Duration.ofMinutes(10));
			send(engine, "none-" + i, Duration.ZERO, null);
		}
		sleep(800);
		engine.admin().resume(this.queue);
		await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == 12 && this.expired.size() == 6);
		assertThat(seen.keySet()).allMatch((payload) -> !payload.startsWith("short"));
		List<DeadLetter> dead = engine.admin().deadLetters(this.queue, null, 100);
		assertThat(dead).hasSize(6).allMatch(DeadLetter::isExpired);
		assertThat(dead).extracting(DeadLetter::payloadAsString).allMatch((payload) -> payload.contains("short"));
		assertThat(dead.get(0).errorClass()).isEqualTo(MessageExpiredException.class.getName());
		assertThat(dead.get(0).errorMessage()).contains("Expired at", "300 ms after it was due");
		assertThat(dead.get(0).attempts()).as("no attempt was made").isZero();
		assertThat(this.expired).containsOnly("g/dead-lettered");
		sleep(300);
		assertThat(seen).hasSize(12);
	}

	@Test
	void expiryCountsFromTheDueTimeNotFromTheSend() {
		DelayQueueEngine engine = engine();
		Map<String, List<Integer>> seen = listen(engine, "g", (settings) -> {
		});
		send(engine, "later", Duration.ofMillis(1500), Duration.ofMillis(500));
		await().atMost(Duration.ofSeconds(10)).until(() -> seen.containsKey("later"));
		assertThat(this.expired).isEmpty();
	}

	@Test
	void retriesStopAtExpiry() {
		DelayQueueEngine engine = engine();
		Map<String, List<Integer>> seen = listen(engine, "g", everyRetryAfter300Ms(20, false));
		send(engine, "fail-1", Duration.ZERO, Duration.ofMillis(1150));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.expired.size() == 1);
		// attempts at about 0, 300, 600, 900 ms: the next would be due after the expiry
		// (at 1,200 ms at the earliest; the fourth may start up to 250 ms late: on a busy
		// machine it started after an expiry at 1,000 ms, 14 ms late)
		assertThat(seen.get("fail-1")).hasSizeBetween(2, 4);
		List<DeadLetter> dead = engine.admin().deadLetters(this.queue, null, 10);
		assertThat(dead).singleElement().satisfies((letter) -> {
			assertThat(letter.isExpired()).isTrue();
			assertThat(letter.errorMessage()).contains("before its next attempt was due",
					IllegalStateException.class.getName(), "downstream is down");
			assertThat(letter.stackTrace()).contains("downstream is down");
		});
		int attempts = seen.get("fail-1").size();
		sleep(700);
		assertThat(seen.get("fail-1")).hasSize(attempts);
	}

	@Test
	void aRetryThatExpiresBeforeItStartsKeepsTheFailureThatCausedIt() {
		DelayQueueEngine engine = engine();
		Map<String, List<Integer>> seen = listen(engine, "g", everyRetryAfter300Ms(5, false));
		send(engine, "fail-1", Duration.ZERO, Duration.ofMillis(1500));
		await().atMost(Duration.ofSeconds(10)).until(() -> seen.containsKey("fail-1"));
		// the retry comes due while the queue is paused, and the message expires waiting
		engine.admin().pause(this.queue);
		sleep(1700);
		engine.admin().resume(this.queue);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.expired.size() == 1);
		assertThat(seen.get("fail-1")).as("the handler ran once").hasSize(1);
		assertThat(engine.admin().deadLetters(this.queue, null, 10)).singleElement().satisfies((letter) -> {
			assertThat(letter.isExpired()).isTrue();
			assertThat(letter.errorClass()).isEqualTo(MessageExpiredException.class.getName());
			assertThat(letter.errorMessage()).contains("before attempt 2 started", "the last attempt failed with",
					IllegalStateException.class.getName(), "downstream is down");
			assertThat(letter.stackTrace()).startsWith(IllegalStateException.class.getName())
				.contains("downstream is down");
			assertThat(letter.attempts()).as("attempts made").isEqualTo(1);
		});
	}

	@Test
	void anOrderedListenerRetryingInPlaceStopsAtExpiry() {
		DelayQueueEngine engine = engine();
		Map<String, List<Integer>> seen = listen(engine, "g", everyRetryAfter300Ms(20, true));
		send(engine, "fail-1", Duration.ZERO, Duration.ofMillis(1000));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.expired.size() == 1);
		assertThat(seen.get("fail-1")).hasSizeBetween(2, 4);
		assertThat(engine.admin().deadLetters(this.queue, null, 10)).singleElement()
			.satisfies((letter) -> assertThat(letter.isExpired()).isTrue());
	}

	@Test
	void expiredMessagesAreDiscardedWhenTheListenerSaysSoAndEachGroupDecidesForItself() {
		DelayQueueEngine engine = engine();
		engine.admin().pause(this.queue);
		listen(engine, "discarding", (settings) -> settings.discardExpired(true));
		listen(engine, "keeping", (settings) -> {
		});
		send(engine, "short", Duration.ZERO, Duration.ofMillis(200));
		sleep(600);
		engine.admin().resume(this.queue);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.expired.size() == 2);
		assertThat(this.expired).containsExactlyInAnyOrder("discarding/discarded", "keeping/dead-lettered");
		assertThat(engine.admin().deadLetters(this.queue, null, 10)).singleElement()
			.satisfies((letter) -> assertThat(letter.group()).isEqualTo("keeping"));
	}

	@Test
	void aReplayedExpiredDeadLetterIsDelivered() {
		DelayQueueEngine engine = engine();
		engine.admin().pause(this.queue);
		Map<String, List<Integer>> seen = listen(engine, "g", (settings) -> {
		});
		send(engine, "short", Duration.ZERO, Duration.ofMillis(200));
		sleep(600);
		engine.admin().resume(this.queue);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.expired.size() == 1);
		DeadLetter dead = engine.admin().deadLetters(this.queue, null, 10).get(0);
		assertThat(engine.admin().replay(this.queue, dead.entryId())).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> seen.containsKey("short"));
		assertThat(this.expired).hasSize(1);
	}

	@Test
	void aRescheduleMovesTheExpiryWithTheDueTime() {
		DelayQueueEngine engine = engine();
		Map<String, List<Integer>> seen = listen(engine, "g", (settings) -> {
		});
		engine.template()
			.send(DelayMessage.builder("moved")
				.queue(this.queue)
				.id("m-1")
				.delay(Duration.ofMillis(300))
				.expireAfter(Duration.ofMillis(400))
				.build());
		assertThat(engine.template().reschedule(this.queue, "m-1", Duration.ofMillis(1500))).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> seen.containsKey("moved"));
		assertThat(this.expired).isEmpty();
	}

	@Test
	void aQueueDefaultDeclaredOnTheSendingEngineAppliesUnlessTheMessageSaysOtherwise() {
		DelayQueueEngine engine = engine((builder) -> builder.expireAfter(this.queue, Duration.ofMillis(200)));
		engine.admin().pause(this.queue);
		Map<String, List<Integer>> seen = listen(engine, "g", (settings) -> {
		});
		send(engine, "default", Duration.ZERO, null);
		send(engine, "own", Duration.ZERO, Duration.ofMinutes(5));
		sleep(600);
		engine.admin().resume(this.queue);
		await().atMost(Duration.ofSeconds(10)).until(() -> this.expired.size() == 1 && seen.containsKey("own"));
		assertThat(seen).doesNotContainKey("default");
	}

	@Test
	void theSameMessagesWithoutExpiryAreAllDelivered() {
		// the control of the tests above: with no expiry nothing expires however late
		DelayQueueEngine engine = engine();
		engine.admin().pause(this.queue);
		Map<String, List<Integer>> seen = listen(engine, "g", (settings) -> {
		});
		AtomicInteger sent = new AtomicInteger();
		for (int i = 0; i < 6; i++) {
			send(engine, "none-" + i, Duration.ZERO, null);
			sent.incrementAndGet();
		}
		sleep(600);
		engine.admin().resume(this.queue);
		await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == sent.get());
		assertThat(this.expired).isEmpty();
	}

	@Test
	void badExpiriesAreRefusedNamingTheInputAndNothingIsWritten() {
		DelayQueueEngine engine = engine();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayMessage.builder("x").queue(this.queue).expireAfter(Duration.ZERO))
			.withMessageContaining("Expire-after of a message must be from 1 ms to 3650 days")
			.withMessageContaining("PT0S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayMessage.builder("x").queue(this.queue).expireAfter(Duration.ofMillis(-5)));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayMessage.builder("x").queue(this.queue).expireAfter(Duration.ofDays(3651)));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayMessage.builder("x").queue(this.queue).expireAfter(null));
		assertThatIllegalArgumentException().isThrownBy(
				() -> DelayQueueEngine.builder(this.connectionFactory).expireAfter(this.queue, Duration.ofNanos(10)))
			.withMessageContaining("Expire-after of queue '" + this.queue + "'");
		assertThat(engine.admin().stats(this.queue).scheduled()).isZero();
	}

}
