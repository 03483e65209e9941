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
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Queue size limits ({@link DelayQueueAdmin#limitSize}): run on a single server and on a
 * Redis Cluster.
 */
abstract class SizeLimitContract extends QueueTestFixture {

	private final List<SendResult> observed = new CopyOnWriteArrayList<>();

	SizeLimitContract(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private DelayQueueEngine engine(int partitions, Consumer<DelayQueueEngineBuilder> customizer) {
		DelayQueueEngineBuilder builder = DelayQueueEngine.builder(this.connectionFactory)
			.partitions(this.queue, partitions)
			.observer(new DelayQueueObserver() {
				@Override
				public void sent(SendResult result) {
					SizeLimitContract.this.observed.add(result);
				}
			});
		customizer.accept(builder);
		return build(builder);
	}

	private DelayQueueEngine engine(int partitions) {
		return engine(partitions, (builder) -> {
		});
	}

	private List<DelayMessage<?>> messages(String prefix, int count, Duration delay) {
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			messages.add(DelayMessage.builder(prefix + i).queue(this.queue).id(prefix + i).delay(delay).build());
		}
		return messages;
	}

	private static long count(List<SendResult> results, SendResult.Status status) {
		return results.stream().filter((result) -> result.status() == status).count();
	}

	@Test
	void aSendOverTheLimitIsRefusedNamingTheQueueAndTheLimitAndNothingIsWritten() {
		DelayQueueEngine engine = engine(1);
		engine.admin().limitSize(this.queue, 10);
		List<SendResult> results = engine.template().sendAll(messages("m", 14, Duration.ofMinutes(5)));
		assertThat(count(results, SendResult.Status.SCHEDULED)).isEqualTo(10);
		assertThat(results.subList(10, 14)).allSatisfy((result) -> {
			assertThat(result.status()).isEqualTo(SendResult.Status.REFUSED);
			assertThat(result.accepted()).isFalse();
			assertThat(result.dueTime()).isNull();
		});
		assertThatExceptionOfType(QueueFullException.class)
			.isThrownBy(() -> engine.template().send(this.queue, "one more", Duration.ofMinutes(5)))
			.withMessageContaining("Queue '" + this.queue + "' is full")
			.withMessageContaining("size limit is 10 waiting")
			.withMessageContaining("nothing was written")
			.satisfies((ex) -> assertThat(ex.getLimit()).isEqualTo(10));
		assertThat(engine.admin().stats(this.queue).scheduled()).isEqualTo(10);
		assertThat(engine.admin().sizeLimit(this.queue)).hasValue(10);
		// a duplicate or a replacement adds nothing: not refused
		assertThat(engine.template().send(messages("m", 1, Duration.ofMinutes(5)).get(0)).status())
			.isEqualTo(SendResult.Status.DUPLICATE);
		assertThat(engine.template()
			.send(DelayMessage.builder("new").queue(this.queue).id("m0").replaceExisting().build())
			.status()).isEqualTo(SendResult.Status.REPLACED);
		assertThat(this.observed).filteredOn((result) -> result.status() == SendResult.Status.REFUSED).hasSize(5);
		// the async send fails the same way
		assertThatExceptionOfType(CompletionException.class)
			.isThrownBy(() -> engine.template()
				.sendAsync(DelayMessage.builder("async").queue(this.queue).delay(Duration.ofMinutes(5)).build())
				.join())
			.withCauseInstanceOf(QueueFullException.class);
		engine.admin().removeSizeLimit(this.queue);
		assertThat(engine.admin().sizeLimit(this.queue)).isEmpty();
		assertThat(engine.template().send(this.queue, "after", Duration.ofMinutes(5)).accepted()).isTrue();
	}

	@Test
	void dueMessagesCountUntilTheSlowestGroupReadThem() {
		DelayQueueEngine engine = engine(1);
		engine.admin().limitSize(this.queue, 5);
		// due at once, nobody reads: they wait in the stream
		List<SendResult> first = engine.template().sendAll(messages("due", 7, Duration.ZERO));
		assertThat(count(first, SendResult.Status.READY)).isEqualTo(5);
		assertThat(count(first, SendResult.Status.REFUSED)).isEqualTo(2);
		List<String> handled = new CopyOnWriteArrayList<>();
		DelayQueueListenerContainer container = engine
			.listenerContainer(this.queue, "g", String.class, (payload, context) -> handled.add(payload))
			.build();
		start(container);
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 5);
		// read by every group: room again, though the entries are not trimmed yet
		List<SendResult> second = engine.template().sendAll(messages("again", 5, Duration.ZERO));
		assertThat(count(second, SendResult.Status.REFUSED)).isZero();
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 10);
	}

	@Test
	void eachPartitionTakesItsShareOfTheLimit() {
		DelayQueueEngine engine = engine(4);
		engine.admin().limitSize(this.queue, 10);
		// 10 over 4 partitions: 3 each, so at most 12 and at least 10 once every
		// partition is full
		List<SendResult> results = engine.template().sendAll(messages("p", 200, Duration.ofMinutes(5)));
		assertThat(count(results, SendResult.Status.SCHEDULED)).isEqualTo(12);
		assertThatExceptionOfType(QueueFullException.class)
			.isThrownBy(() -> engine.template().send(this.queue, "x", Duration.ofMinutes(5)))
			.withMessageContaining("3 in each of its 4 partitions");
	}

	@Test
	void aLimitDeclaredOnAnEngineIsWrittenWhenItFirstUsesTheQueueAndHoldsForOtherProducers() {
		DelayQueueEngine declaring = engine(1, (builder) -> builder.sizeLimit(this.queue, 3));
		DelayQueueEngine other = engine(1);
		assertThat(other.admin().sizeLimit(this.queue)).isEmpty();
		declaring.template().send(this.queue, "a", Duration.ofMinutes(5));
		assertThat(other.admin().sizeLimit(this.queue)).hasValue(3);
		List<SendResult> results = other.template().sendAll(messages("o", 4, Duration.ofMinutes(5)));
		assertThat(count(results, SendResult.Status.SCHEDULED)).isEqualTo(2);
		assertThat(count(results, SendResult.Status.REFUSED)).isEqualTo(2);
	}

	@Test
	void aChangeOfThePartitionCountKeepsTheLimit() {
		DelayQueueEngine before = engine(1);
		before.admin().limitSize(this.queue, 4);
		before.template().send(this.queue, "first", Duration.ofMinutes(5));
		before.admin().changePartitions(this.queue, 2);
		DelayQueueEngine after = engine(2);
		assertThat(after.admin().sizeLimit(this.queue)).hasValue(4);
		List<SendResult> results = after.template().sendAll(messages("n", 50, Duration.ofMinutes(5)));
		// 2 per partition in the new layout (the old partition's message drains apart)
		assertThat(count(results, SendResult.Status.SCHEDULED)).isLessThanOrEqualTo(4);
		assertThat(count(results, SendResult.Status.REFUSED)).isGreaterThanOrEqualTo(46);
	}

	@Test
	void badLimitsAreRefusedNamingTheInputAndNothingIsWritten() {
		DelayQueueEngine engine = engine(1);
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().limitSize(this.queue, 0))
			.withMessageContaining("Size limit of queue '" + this.queue + "' must be from 1")
			.withMessageContaining("but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().limitSize(this.queue, -5));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayQueueEngine.builder(this.connectionFactory).sizeLimit(this.queue, 0));
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().limitSize("bad{name}", 5));
		assertThat(engine.admin().sizeLimit(this.queue)).isEmpty();
	}

}
