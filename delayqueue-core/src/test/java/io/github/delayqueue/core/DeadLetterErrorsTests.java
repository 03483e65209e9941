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

import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Dead letters by error ({@link DeadLetterOperations#deadLetterErrors},
 * {@link DeadLetterOperations#replayDeadLetters},
 * {@link DeadLetterOperations#deleteDeadLetters}) on a partitioned queue: errors that
 * differ only in ids are one, a replay or delete of one error leaves the others.
 */
@RedisTest
class DeadLetterErrorsTests extends QueueTestFixture {

	DeadLetterErrorsTests(RedisServer redis, RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	@Test
	void errorsAreCountedByClassAndReasonAndOneErrorIsReplayedOrDeletedAlone() {
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, 2));
		start(engine.listenerContainer(this.queue, "billing", String.class, (payload, context) -> {
			if (payload.startsWith("card")) {
				throw new IllegalStateException("card declined for order " + payload.substring(5));
			}
			if (payload.startsWith("quote")) {
				throw new IllegalStateException("partner said \"busy\" for " + payload);
			}
			throw new UnsupportedOperationException("no such product: \u00e9t\u00e9 " + payload);
		}).maxAttempts(1).build());
		for (int i = 0; i < 12; i++) {
			engine.template().send(this.queue, "card-" + i, Duration.ZERO);
		}
		for (int i = 0; i < 5; i++) {
			engine.template().send(this.queue, "quote-" + i, Duration.ZERO);
		}
		engine.template().send(this.queue, "other", Duration.ZERO);
		await().atMost(Duration.ofSeconds(20)).until(() -> engine.admin().stats(this.queue).dead() == 18);
		stopListeners();

		List<DeadLetterError> errors = engine.admin().deadLetterErrors(this.queue, 1000);
		assertThat(errors)
			.extracting(DeadLetterError::errorClass, DeadLetterError::reasonPrefix, DeadLetterError::count)
			.containsExactly(
					org.assertj.core.groups.Tuple.tuple(IllegalStateException.class.getName(),
							"card declined for order ", 12L),
					org.assertj.core.groups.Tuple.tuple(IllegalStateException.class.getName(), "partner said ", 5L),
					org.assertj.core.groups.Tuple.tuple(UnsupportedOperationException.class.getName(),
							"no such product: \u00e9t\u00e9 other", 1L));
		// reading fewer counts fewer
		assertThat(engine.admin().deadLetterErrors(this.queue, 2).stream().mapToLong(DeadLetterError::count).sum())
			.isEqualTo(4);

		DeadLetterError cards = errors.get(0);
		assertThat(engine.admin().replayDeadLetters(this.queue, cards, 5)).isEqualTo(5);
		assertThat(engine.admin().stats(this.queue).dead()).isEqualTo(13);
		assertThat(engine.admin().deleteDeadLetters(this.queue, cards, 1000)).isEqualTo(7);
		assertThat(engine.admin().deadLetterErrors(this.queue, 1000)).extracting(DeadLetterError::reasonPrefix)
			.containsExactlyInAnyOrder("partner said ", "no such product: \u00e9t\u00e9 other");
		assertThat(engine.admin().stats(this.queue).groups().get(0).retryScheduled()
				+ engine.admin().stats(this.queue).groups().get(0).lag())
			.isGreaterThanOrEqualTo(0);
	}

	@Test
	void aReasonIsNeverCutInsideACharacter() {
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory));
		String reason = "\u00e9".repeat(60);
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			throw new IllegalStateException(reason);
		}).maxAttempts(1).build());
		engine.template().send(this.queue, "x", Duration.ZERO);
		await().atMost(Duration.ofSeconds(20)).until(() -> engine.admin().stats(this.queue).dead() == 1);
		DeadLetterError error = engine.admin().deadLetterErrors(this.queue, 10).get(0);
		assertThat(error.reasonPrefix()).isEqualTo("\u00e9".repeat(40));
		assertThat(engine.admin().deleteDeadLetters(this.queue, error, 1)).isEqualTo(1);
	}

	@Test
	void outOfRangeBoundsAreRefused() {
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory));
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().deadLetterErrors(this.queue, 0))
			.withMessageContaining("from 1 to 10000");
		DeadLetterError error = new DeadLetterError("x", "y", 1, java.time.Instant.now());
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().replayDeadLetters(this.queue, error, 1001))
			.withMessageContaining("from 1 to 1000");
	}

}
