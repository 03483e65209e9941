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
import io.github.delayqueue.core.DelayQueueOperations;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.expression.EvaluationContext;
import org.springframework.modulith.events.RoutingTarget;
import org.springframework.modulith.events.support.BrokerRouting;

/**
 * Externalizes Spring Modulith events to delayqueue: the routing target of
 * {@code @Externalized("queue::#{key}")} names the queue, its key expression the
 * message's key (ordering and partition), and the delay comes from the event
 * ({@link DelayedEvent}) or its type ({@link ExternalizedDelay}); without either the
 * event is delivered at once. The future completes once Redis holds the message, so the
 * publication is marked completed only then; a failed send leaves it incomplete, for
 * Modulith's resubmission.
 */
public class DelayQueueEventExternalizationTransport {

	private final DelayQueueOperations operations;

	private final EvaluationContext context;

	/**
	 * Creates the transport.
	 * @param operations the template the messages are sent with
	 * @param context where the routing key expressions are evaluated
	 */
	public DelayQueueEventExternalizationTransport(DelayQueueOperations operations, EvaluationContext context) {
		this.operations = operations;
		this.context = context;
	}

	/**
	 * Sends an event as a message.
	 * @param payload the event, as the externalization configuration mapped it
	 * @param target its routing target
	 * @return the send, failed when the routing or the delay is unusable
	 */
	public CompletableFuture<?> externalize(Object payload, RoutingTarget target) {
		DelayMessage<Object> message;
		try {
			message = message(payload, target);
		}
		catch (RuntimeException ex) {
			return CompletableFuture.failedFuture(ex);
		}
		return this.operations.sendAsync(message);
	}

	/**
	 * The message an event becomes.
	 * @param payload the event, as the externalization configuration mapped it
	 * @param target its routing target
	 * @return the message
	 * @throws IllegalArgumentException when the routing or the delay is unusable
	 */
	DelayMessage<Object> message(Object payload, RoutingTarget target) {
		BrokerRouting routing = BrokerRouting.of(target, this.context);
		String queue = routing.getTarget(payload);
		DelayMessage.Builder<Object> builder = DelayMessage.builder(payload).queue(queue);
		String key = routing.getKey(payload);
		if (key != null) {
			builder.key(key);
		}
		if (payload instanceof DelayedEvent delayed) {
			Instant at = delayed.deliverAt();
			if (at != null) {
				builder.deliverAt(at);
			}
			else {
				builder.delay(delayed.delay());
			}
			if (delayed.messageId() != null) {
				builder.id(delayed.messageId());
			}
		}
		else {
			builder.delay(fixedDelay(payload.getClass()));
		}
		return builder.build();
	}

	private static Duration fixedDelay(Class<?> type) {
		ExternalizedDelay delay = AnnotatedElementUtils.findMergedAnnotation(type, ExternalizedDelay.class);
		if (delay == null) {
			return Duration.ZERO;
		}
		try {
			return DurationStyle.detectAndParse(delay.value());
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("@ExternalizedDelay(\"" + delay.value() + "\") on " + type.getName()
					+ " is not a duration: use e.g. 30m, 2h or PT30M", ex);
		}
	}

}
