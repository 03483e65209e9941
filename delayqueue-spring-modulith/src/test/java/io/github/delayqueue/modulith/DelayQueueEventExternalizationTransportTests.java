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

package io.github.delayqueue.modulith;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.modulith.app.OrderPlaced;
import org.junit.jupiter.api.Test;

import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.modulith.events.RoutingTarget;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * How an event becomes a message: the routing target's queue and key, the delay of the
 * event or of its type, and a bad delay refused with a clear message.
 */
class DelayQueueEventExternalizationTransportTests {

	private final DelayQueueEventExternalizationTransport transport = new DelayQueueEventExternalizationTransport(null,
			new StandardEvaluationContext());

	@Test
	void theTargetNamesTheQueueAndItsKeyExpressionTheMessagesKey() {
		DelayMessage<Object> message = this.transport.message(new OrderPlaced("o-1"),
				RoutingTarget.forTarget("order-checks").andKey("#{orderId()}"));
		assertThat(message.queue()).isEqualTo("order-checks");
		assertThat(message.key()).isEqualTo("o-1");
		assertThat(message.delay()).isEqualTo(OrderPlaced.CHECK_AFTER);
		assertThat(message.id()).isNull();
	}

	@Test
	void anEventCanGiveAnInstantAndAnId() {
		Instant at = Instant.parse("2030-01-01T00:00:00Z");
		DelayMessage<Object> message = this.transport.message(new Deadline(at),
				RoutingTarget.forTarget("deadlines").withoutKey());
		assertThat(message.deliverAt()).isEqualTo(at);
		assertThat(message.id()).isEqualTo("deadline-" + at.toEpochMilli());
		assertThat(message.key()).isNull();
	}

	@Test
	void aTypeCanGiveAFixedDelayAndWithoutOneTheEventIsDueAtOnce() {
		assertThat(this.transport.message(new Reminder(), RoutingTarget.forTarget("reminders").withoutKey()).delay())
			.isEqualTo(Duration.ofMinutes(30));
		assertThat(this.transport.message("plain", RoutingTarget.forTarget("plain").withoutKey()).delay())
			.isEqualTo(Duration.ZERO);
	}

	@Test
	void aBadDelayFailsTheExternalizationNamingTheType() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.transport.message(new Broken(), RoutingTarget.forTarget("broken").withoutKey()))
			.withMessageContaining("@ExternalizedDelay(\"soon\")")
			.withMessageContaining(Broken.class.getName());
		CompletableFuture<?> result = this.transport.externalize(new Broken(),
				RoutingTarget.forTarget("broken").withoutKey());
		assertThat(result).isCompletedExceptionally();
	}

	@Test
	void aBadQueueNameFailsTheExternalization() {
		assertThat(this.transport.externalize("x", RoutingTarget.forTarget("no spaces").withoutKey()))
			.isCompletedExceptionally();
	}

	record Deadline(Instant at) implements DelayedEvent {

		@Override
		public Duration delay() {
			return Duration.ZERO;
		}

		@Override
		public Instant deliverAt() {
			return this.at;
		}

		@Override
		public String messageId() {
			return "deadline-" + this.at.toEpochMilli();
		}

	}

	@ExternalizedDelay("30m")
	record Reminder() {
	}

	@ExternalizedDelay("soon")
	record Broken() {
	}

}
