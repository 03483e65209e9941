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

import brave.Tracing;
import brave.context.slf4j.MDCScopeDecorator;
import brave.propagation.ThreadLocalCurrentTraceContext;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.delayqueue.core.listener.DeadLetterConsumer;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisTest;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.brave.bridge.BraveBaggageManager;
import io.micrometer.tracing.brave.bridge.BraveCurrentTraceContext;
import io.micrometer.tracing.brave.bridge.BravePropagator;
import io.micrometer.tracing.brave.bridge.BraveTracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * With tracing on (Brave through Micrometer Tracing, its MDC scope decorator as Spring
 * Boot sets it up), the library's own log lines about a message carry the trace id of the
 * send in MDC, as the handler's lines do: the retry WARN, the dead-letter ERROR, and the
 * dead-letter ERROR of a payload that cannot be decoded. And the header the trace adds
 * ({@code b3} here, {@code traceparent} with W3C) does not count against the caller's
 * headers limit.
 */
@RedisTest
class TraceInLogLinesTests {

	private final Tracing tracing = Tracing.newBuilder()
		.currentTraceContext(
				ThreadLocalCurrentTraceContext.newBuilder().addScopeDecorator(MDCScopeDecorator.get()).build())
		.build();

	private final Tracer tracer = new BraveTracer(this.tracing.tracer(),
			new BraveCurrentTraceContext(this.tracing.currentTraceContext()), new BraveBaggageManager());

	private final ObservationRegistry registry = ObservationRegistry.create();

	private final DelayQueueEngine engine;

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private final List<Logger> loggers = List.of(
			(Logger) LoggerFactory.getLogger("io.github.delayqueue.core.internal.delivery.Processor"),
			(Logger) LoggerFactory.getLogger(DeadLetterConsumer.class));

	private DeadLetterConsumer deadLetters;

	private final Map<String, String> traceSeenByHandler = new ConcurrentHashMap<>();

	private DelayQueueListenerContainer container;

	TraceInLogLinesTests(RedisConnectionFactory connectionFactory) {
		BravePropagator propagator = new BravePropagator(this.tracing);
		this.registry.observationConfig()
			.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
					new PropagatingSenderTracingObservationHandler<>(this.tracer, propagator),
					new PropagatingReceiverTracingObservationHandler<>(this.tracer, propagator),
					new DefaultTracingObservationHandler(this.tracer)));
		this.engine = DelayQueueEngine.builder(connectionFactory)
			.observationRegistry(this.registry)
			.maxHeadersSize(100)
			.build();
		this.appender.start();
		this.loggers.forEach((logger) -> logger.addAppender(this.appender));
	}

	@AfterEach
	void stop() {
		this.loggers.forEach((logger) -> logger.detachAppender(this.appender));
		if (this.deadLetters != null) {
			this.deadLetters.stop();
		}
		if (this.container != null) {
			this.container.stop();
		}
		this.engine.close();
		this.tracing.close();
	}

	/** Sends in a span of its own; returns that span's trace id. */
	private String sendTraced(DelayMessage<?> message) {
		Span request = this.tracer.nextSpan().name("request").start();
		try (Tracer.SpanInScope scope = this.tracer.withSpan(request)) {
			this.engine.template().send(message);
			return request.context().traceId();
		}
		finally {
			request.end();
		}
	}

	private ILoggingEvent line(String text) {
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.appender.list.stream().anyMatch((event) -> event.getFormattedMessage().contains(text)));
		return this.appender.list.stream()
			.filter((event) -> event.getFormattedMessage().contains(text))
			.findFirst()
			.orElseThrow();
	}

	@Test
	void theRetryWarnAndTheDeadLetterErrorCarryTheTraceOfTheSend() {
		this.container = this.engine.listenerContainer("traced-logs", "g", String.class, (payload, context) -> {
			Span current = this.tracer.currentSpan();
			this.traceSeenByHandler.put(payload + "#" + context.attempt(),
					(current != null) ? current.context().traceId() : "none");
			throw new IllegalStateException("refused " + payload);
		}).retryPolicy(RetryPolicy.fixed(2, Duration.ofMillis(50))).build();
		this.container.start();
		String traceId = sendTraced(DelayMessage.builder("poison").queue("traced-logs").id("m-1").build());

		ILoggingEvent retry = line("Attempt 1 of 2 of message 'm-1'");
		ILoggingEvent dead = line("Dead-lettered message 'm-1'");
		assertThat(this.traceSeenByHandler).containsEntry("poison#1", traceId).containsEntry("poison#2", traceId);
		assertThat(retry.getMDCPropertyMap()).containsEntry("traceId", traceId).containsKey("spanId");
		assertThat(dead.getMDCPropertyMap()).containsEntry("traceId", traceId).containsKey("spanId");
	}

	@Test
	void aDeadLetterHandlerRunsInTheTraceOfTheSendAndItsFailureLineCarriesIt() {
		this.container = this.engine.listenerContainer("traced-dead", "g", String.class, (payload, context) -> {
			throw new IllegalStateException("refused " + payload);
		}).retryPolicy(RetryPolicy.fixed(1, Duration.ofMillis(50))).build();
		this.container.start();
		this.deadLetters = this.engine.deadLetterConsumer("traced-dead", "g", "alerts", String.class,
				(payload, letter) -> {
					Span current = this.tracer.currentSpan();
					this.traceSeenByHandler.put("dead:" + payload,
							(current != null) ? current.context().traceId() : "none");
					throw new IllegalStateException("alerting failed");
				});
		this.deadLetters.start();
		String traceId = sendTraced(DelayMessage.builder("poison").queue("traced-dead").id("m-3").build());

		ILoggingEvent failed = line("failed on dead letter");
		assertThat(this.traceSeenByHandler).containsEntry("dead:poison", traceId);
		assertThat(failed.getMDCPropertyMap()).containsEntry("traceId", traceId);
	}

	@Test
	void theDeadLetterOfAnUndecodablePayloadCarriesTheTraceOfTheSend() {
		this.container = this.engine.listenerContainer("traced-undecodable", "g", Integer.class, (payload, context) -> {
		}).build();
		this.container.start();
		String traceId = sendTraced(DelayMessage.builder("not a number").queue("traced-undecodable").id("m-2").build());

		ILoggingEvent dead = line("Dead-lettered message 'm-2'");
		assertThat(dead.getMDCPropertyMap()).containsEntry("traceId", traceId);
	}

	@Test
	void theHeadersLimitCountsOnlyTheCallersHeadersNotTheTraceContext() {
		// name + value + 2 bytes per header: exactly the limit of 100
		String value = "v".repeat(100 - "tenant".length() - 2);
		SendResult sent = this.engine.template()
			.send(DelayMessage.builder("p")
				.queue("traced-headers")
				.header("tenant", value)
				.delay(Duration.ofMinutes(5))
				.build());
		assertThat(sent.status()).isEqualTo(SendResult.Status.SCHEDULED);
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.engine.template()
				.send(DelayMessage.builder("p").queue("traced-headers").header("tenant", value + "v").build()))
			.withMessageContaining("are 101 bytes, over the limit of 100 bytes");
	}

}
