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
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisTest;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Observations with a real tracer (OpenTelemetry's SDK through Micrometer Tracing's
 * bridge, W3C propagation): a send records a producer span, child of the caller's span,
 * and writes {@code traceparent} into the message's headers; each attempt records a
 * consumer span, child of the send's, current while the handler runs. Without a registry
 * nothing is added.
 */
@RedisTest
class ObservationTests {

	private final RedisConnectionFactory connectionFactory;

	private final InMemorySpanExporter spans = InMemorySpanExporter.create();

	private final SdkTracerProvider provider = SdkTracerProvider.builder()
		.addSpanProcessor(SimpleSpanProcessor.create(this.spans))
		.build();

	private final Tracer tracer;

	private final ObservationRegistry registry = ObservationRegistry.create();

	private final Map<String, String> traceSeenByHandler = new ConcurrentHashMap<>();

	private final Map<String, Map<String, String>> headersSeen = new ConcurrentHashMap<>();

	private DelayQueueEngine engine;

	private DelayQueueListenerContainer container;

	ObservationTests(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		io.opentelemetry.api.trace.Tracer otel = this.provider.get("test");
		OtelCurrentTraceContext current = new OtelCurrentTraceContext();
		this.tracer = new OtelTracer(otel, current, (event) -> {
		}, new OtelBaggageManager(current, List.of(), List.of()));
		OtelPropagator propagator = new OtelPropagator(
				ContextPropagators.create(W3CTraceContextPropagator.getInstance()), otel);
		this.registry.observationConfig()
			.observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
					new PropagatingSenderTracingObservationHandler<>(this.tracer, propagator),
					new PropagatingReceiverTracingObservationHandler<>(this.tracer, propagator),
					new DefaultTracingObservationHandler(this.tracer)));
	}

	private void start(ObservationRegistry observations, String queue) {
		this.engine = DelayQueueEngine.builder(this.connectionFactory).observationRegistry(observations).build();
		this.container = this.engine.listenerContainer(queue, "g", String.class, (payload, context) -> {
			this.headersSeen.put(payload + "#" + context.attempt(), context.headers());
			Span current = this.tracer.currentSpan();
			this.traceSeenByHandler.put(payload + "#" + context.attempt(),
					(current != null) ? current.context().traceId() : "none");
			if (payload.startsWith("fail")) {
				throw new IllegalStateException("refused " + payload);
			}
		}).retryPolicy(RetryPolicy.fixed(2, Duration.ofMillis(50))).build();
		this.container.start();
	}

	@AfterEach
	void stop() {
		this.container.stop();
		this.engine.close();
		this.provider.close();
	}

	private Optional<SpanData> span(String name) {
		return this.spans.getFinishedSpanItems().stream().filter((span) -> span.getName().equals(name)).findFirst();
	}

	@Test
	void theTraceContinuesFromTheSenderToTheHandlerAcrossTheDelay() {
		start(this.registry, "traced");
		Span request = this.tracer.nextSpan().name("request").start();
		try (Tracer.SpanInScope scope = this.tracer.withSpan(request)) {
			this.engine.template()
				.send(DelayMessage.builder("hello").queue("traced").id("m-1").delay(Duration.ofMillis(200)).build());
		}
		finally {
			request.end();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> span("traced process").isPresent());
		SpanData send = span("traced send").orElseThrow();
		SpanData process = span("traced process").orElseThrow();
		assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
		assertThat(send.getTraceId()).isEqualTo(request.context().traceId());
		assertThat(send.getParentSpanId()).isEqualTo(request.context().spanId());
		assertThat(send.getAttributes().get(AttributeKey.stringKey("delayqueue.queue"))).isEqualTo("traced");
		assertThat(send.getAttributes().get(AttributeKey.stringKey("delayqueue.message.id"))).isEqualTo("m-1");
		assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
		assertThat(process.getTraceId()).isEqualTo(request.context().traceId());
		assertThat(process.getParentSpanId()).isEqualTo(send.getSpanId());
		assertThat(process.getAttributes().get(AttributeKey.stringKey("delayqueue.group"))).isEqualTo("g");
		assertThat(process.getAttributes().get(AttributeKey.stringKey("delayqueue.outcome"))).isEqualTo("success");
		// the handler runs in the trace, and the trace context travelled in the headers
		assertThat(this.traceSeenByHandler).containsEntry("hello#1", request.context().traceId());
		assertThat(this.headersSeen.get("hello#1")).containsKey("traceparent");
		assertThat(this.headersSeen.get("hello#1").get("traceparent")).contains(request.context().traceId());
	}

	@Test
	void eachAttemptIsObservedAndAFailureMarked() {
		start(this.registry, "failing");
		this.engine.template().send(DelayMessage.builder("fail-1").queue("failing").build());
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.spans.getFinishedSpanItems()
				.stream()
				.filter((span) -> span.getName().equals("failing process"))
				.count() == 2);
		List<SpanData> attempts = this.spans.getFinishedSpanItems()
			.stream()
			.filter((span) -> span.getName().equals("failing process"))
			.toList();
		assertThat(attempts).allSatisfy((span) -> {
			assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
			assertThat(span.getAttributes().get(AttributeKey.stringKey("delayqueue.outcome"))).isEqualTo("failure");
		});
		assertThat(attempts)
			.extracting((span) -> span.getAttributes().get(AttributeKey.stringKey("delayqueue.attempt")))
			.containsExactlyInAnyOrder("1", "2");
		SpanData send = span("failing send").orElseThrow();
		assertThat(attempts).allSatisfy((span) -> assertThat(span.getTraceId()).isEqualTo(send.getTraceId()));
	}

	@Test
	void withoutARegistryNothingIsAddedToTheMessage() {
		start(ObservationRegistry.NOOP, "plain");
		this.engine.template().send(DelayMessage.builder("plain").queue("plain").build());
		await().atMost(Duration.ofSeconds(10)).until(() -> this.headersSeen.containsKey("plain#1"));
		assertThat(this.headersSeen.get("plain#1")).isEmpty();
		assertThat(this.spans.getFinishedSpanItems()).isEmpty();
	}

}
