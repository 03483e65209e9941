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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * What the dashboard reads beside the schedule: the in-flight messages of every group
 * ({@link DelayQueueAdmin#inFlight}) and the history every engine writes
 * ({@link DelayQueueAdmin#history}). Run on a single server and on a Redis Cluster, with
 * partitions.
 */
abstract class InFlightAndHistoryContract extends QueueTestFixture {

	InFlightAndHistoryContract(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private DelayQueueEngine engine() {
		return build(DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, 3));
	}

	@Test
	void inFlightMessagesOfEveryGroupAndPartitionAreListedWithTheirMessageIds() throws Exception {
		DelayQueueEngine engine = engine();
		CountDownLatch release = new CountDownLatch(1);
		for (String group : List.of("a", "b")) {
			start(engine.listenerContainer(this.queue, group, String.class, (payload, context) -> {
				if (!release.await(30, TimeUnit.SECONDS)) {
					throw new IllegalStateException("not released");
				}
			}).concurrency(4).build());
		}
		for (int i = 0; i < 3; i++) {
			engine.template()
				.send(DelayMessage.builder("p").queue(this.queue).id("m-" + i).delay(Duration.ZERO).build());
		}
		try {
			await().atMost(Duration.ofSeconds(10))
				.until(() -> engine.admin().inFlight(this.queue, InFlightMessage.Order.IDLE, 100).size() == 6);
			sleep(50);
			List<InFlightMessage> listed = engine.admin().inFlight(this.queue, InFlightMessage.Order.IDLE, 100);
			assertThat(listed).extracting(InFlightMessage::messageId)
				.containsExactlyInAnyOrder("m-0", "m-1", "m-2", "m-0", "m-1", "m-2");
			assertThat(listed).extracting(InFlightMessage::group).containsOnly("a", "b");
			assertThat(listed).extracting(InFlightMessage::deliveries).containsOnly(1L);
			assertThat(listed).allSatisfy((message) -> assertThat(message.consumer()).isNotBlank());
			assertThat(listed).extracting(InFlightMessage::idle)
				.isSortedAccordingTo(java.util.Comparator.reverseOrder());
			assertThat(listed).extracting(InFlightMessage::partition).containsOnly(1, 2);
			assertThat(engine.admin().inFlight(this.queue, InFlightMessage.Order.DELIVERIES, 2)).hasSize(2);
		}
		finally {
			release.countDown();
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> engine.admin().inFlight(this.queue, InFlightMessage.Order.IDLE, 100).isEmpty());
	}

	@Test
	void theHistoryCountsWhatEveryEngineDidPerMinuteAndAddsUpAcrossSpans() {
		DelayQueueEngine first = engine();
		DelayQueueEngine second = engine();
		int each = 5;
		for (DelayQueueEngine engine : List.of(first, second)) {
			DelayQueueListenerContainer container = engine
				.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
					if (payload.startsWith("fail")) {
						throw new IllegalStateException("down");
					}
				})
				.maxAttempts(2)
				.initialBackoff(Duration.ofMillis(10))
				.build();
			start(container);
		}
		for (int i = 0; i < each; i++) {
			first.template().send(this.queue, "ok-" + i, Duration.ZERO);
			second.template().send(this.queue, "ok-" + (each + i), Duration.ZERO);
		}
		first.template().send(this.queue, "fail-1", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> first.admin().stats(this.queue).dead() == 1);
		// closing writes what is left; a listener may still count its last ack on
		// either engine, so both are closed before reading
		stopListeners();
		first.close();
		second.close();
		DelayQueueEngine reader = engine();
		QueueHistory hour = reader.admin().history(this.queue, QueueHistory.Span.HOUR);
		assertThat(hour.points()).hasSize(60);
		assertThat(Duration.between(hour.points().get(0).start(), hour.points().get(1).start()))
			.isEqualTo(Duration.ofMinutes(1));
		QueueHistory.Point total = hour.total();
		assertThat(total.acked()).isEqualTo(2L * each);
		assertThat(total.delivered()).isEqualTo(2L * each + 2);
		assertThat(total.retried()).isEqualTo(1);
		assertThat(total.dead()).isEqualTo(1);
		assertThat(total.lateness().stream().mapToLong(Long::longValue).sum()).isEqualTo(total.delivered());
		assertThat(total.latenessPercentile(50)).isNotNull();
		for (QueueHistory.Span span : List.of(QueueHistory.Span.DAY, QueueHistory.Span.WEEK)) {
			QueueHistory longer = reader.admin().history(this.queue, span);
			assertThat(longer.points()).hasSize(span.points());
			assertThat(longer.total()).usingRecursiveComparison().ignoringFields("start").isEqualTo(total);
		}
		assertThat(reader.admin().history("another-" + this.queue, QueueHistory.Span.HOUR).total().delivered())
			.isZero();
		assertThatIllegalArgumentException().isThrownBy(() -> reader.admin().history(this.queue, null))
			.withMessageContaining("HOUR, DAY or WEEK");
	}

	@Test
	void anEngineBuiltWithoutHistoryWritesNone() {
		DelayQueueEngine engine = build(
				DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, 3).history(false));
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
		}).build());
		engine.template().send(this.queue, "x", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10))
			.until(() -> engine.admin().stats(this.queue).inFlight() == 0
					&& engine.admin().stats(this.queue).ready() == 0);
		stopListeners();
		engine.close();
		assertThat(engine().admin().history(this.queue, QueueHistory.Span.HOUR).total().delivered()).isZero();
	}

	@Test
	void badInFlightPagesAreRefused() {
		DelayQueueEngine engine = engine();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> engine.admin().inFlight(this.queue, InFlightMessage.Order.IDLE, 0))
			.withMessageContaining("from 1 to 1000");
		assertThat(engine.admin().inFlight(this.queue, null, 10)).isEmpty();
	}

}
