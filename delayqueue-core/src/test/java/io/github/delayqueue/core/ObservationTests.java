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

import io.github.delayqueue.core.listener.DeadLetterConsumer;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.core.observation.DefaultDelayQueueProcessObservationConvention;
import io.github.delayqueue.core.observation.DelayQueueBatchTracingObservationHandler;
import io.github.delayqueue.core.observation.DefaultDelayQueueSendObservationConvention;
import io.github.delayqueue.core.observation.DelayQueueObservations;
import io.github.delayqueue.core.observation.DelayQueueProcessObservationConvention;
import io.github.delayqueue.core.observation.DelayQueueSendContext;
import io.github.delayqueue.core.observation.DelayQueueSendObservationConvention;
import io.github.delayqueue.test.RedisTest;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
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
					new DelayQueueBatchTracingObservationHandler(this.tracer, propagator),
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

	private static String attribute(SpanData span, String key) {
		return span.getAttributes().get(AttributeKey.stringKey(key));
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
		await().atMost(Duration.ofSeconds(10)).until(() -> span("process traced").isPresent());
		SpanData send = span("send traced").orElseThrow();
		SpanData process = span("process traced").orElseThrow();
		assertThat(send.getKind()).isEqualTo(SpanKind.PRODUCER);
		assertThat(send.getTraceId()).isEqualTo(request.context().traceId());
		assertThat(send.getParentSpanId()).isEqualTo(request.context().spanId());
		assertThat(attribute(send, "messaging.system")).isEqualTo("delayqueue");
		assertThat(attribute(send, "messaging.destination.name")).isEqualTo("traced");
		assertThat(attribute(send, "messaging.operation.type")).isEqualTo("send");
		assertThat(attribute(send, "messaging.operation.name")).isEqualTo("send");
		assertThat(attribute(send, "messaging.message.id")).isEqualTo("m-1");
		assertThat(attribute(send, "error.type")).isEqualTo("none");
		// the key names of earlier releases, kept by default for one release
		assertThat(send.getAttributes().get(AttributeKey.stringKey("delayqueue.queue"))).isEqualTo("traced");
		assertThat(send.getAttributes().get(AttributeKey.stringKey("delayqueue.message.id"))).isEqualTo("m-1");
		assertThat(process.getKind()).isEqualTo(SpanKind.CONSUMER);
		assertThat(process.getTraceId()).isEqualTo(request.context().traceId());
		assertThat(process.getParentSpanId()).isEqualTo(send.getSpanId());
		// and a link to the message's creation context, as the messaging conventions ask
		assertThat(process.getLinks()).singleElement()
			.satisfies((link) -> assertThat(link.getSpanContext().getSpanId()).isEqualTo(send.getSpanId()));
		assertThat(attribute(process, "messaging.system")).isEqualTo("delayqueue");
		assertThat(attribute(process, "messaging.destination.name")).isEqualTo("traced");
		assertThat(attribute(process, "messaging.operation.type")).isEqualTo("process");
		assertThat(attribute(process, "messaging.operation.name")).isEqualTo("process");
		assertThat(attribute(process, "messaging.consumer.group.name")).isEqualTo("g");
		assertThat(attribute(process, "messaging.message.id")).isEqualTo("m-1");
		assertThat(attribute(process, "messaging.delayqueue.attempt")).isEqualTo("1");
		assertThat(process.getAttributes().get(AttributeKey.stringKey("delayqueue.group"))).isEqualTo("g");
		assertThat(process.getAttributes().get(AttributeKey.stringKey("delayqueue.outcome"))).isEqualTo("success");
		// the handler runs in the trace, and the trace context travelled in the headers
		assertThat(this.traceSeenByHandler).containsEntry("hello#1", request.context().traceId());
		assertThat(this.headersSeen.get("hello#1")).containsKey("traceparent");
		assertThat(this.headersSeen.get("hello#1").get("traceparent")).contains(request.context().traceId());
	}

	@Test
	void aBatchSpanIsAConsumerSpanLinkedToEachMessagesCreationContext() {
		this.engine = DelayQueueEngine.builder(this.connectionFactory).observationRegistry(this.registry).build();
		List<String> handlerTraces = new java.util.concurrent.CopyOnWriteArrayList<>();
		List<Integer> sizes = new java.util.concurrent.CopyOnWriteArrayList<>();
		this.container = this.engine.batchListenerContainer("batched", "g", String.class, (payloads, contexts) -> {
			Span current = this.tracer.currentSpan();
			handlerTraces.add((current != null) ? current.context().traceId() : "none");
			sizes.add(payloads.size());
		}).batchSize(10).batchWait(Duration.ofMillis(500)).build();
		this.container.start();
		List<Span> requests = new java.util.ArrayList<>();
		for (int i = 0; i < 3; i++) {
			// three requests, three traces
			Span request = this.tracer.nextSpan().name("request-" + i).start();
			try (Tracer.SpanInScope scope = this.tracer.withSpan(request)) {
				this.engine.template()
					.send(DelayMessage.builder("b" + i)
						.queue("batched")
						.id("b-" + i)
						.delay(Duration.ofMillis(300))
						.build());
			}
			finally {
				request.end();
			}
			requests.add(request);
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> sizes.stream().mapToInt(Integer::intValue).sum() == 3);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> this.spans.getFinishedSpanItems()
				.stream()
				.filter((span) -> span.getName().equals("process batched"))
				.mapToLong((span) -> Long.parseLong(attribute(span, "messaging.batch.message_count")))
				.sum() == 3);
		List<SpanData> batches = this.spans.getFinishedSpanItems()
			.stream()
			.filter((span) -> span.getName().equals("process batched"))
			.toList();
		List<String> sendSpans = this.spans.getFinishedSpanItems()
			.stream()
			.filter((span) -> span.getName().equals("send batched"))
			.map(SpanData::getSpanId)
			.toList();
		assertThat(sendSpans).hasSize(3);
		List<String> linked = new java.util.ArrayList<>();
		for (SpanData batch : batches) {
			assertThat(batch.getKind()).isEqualTo(SpanKind.CONSUMER);
			assertThat(attribute(batch, "messaging.operation.type")).isEqualTo("process");
			assertThat(attribute(batch, "messaging.consumer.group.name")).isEqualTo("g");
			assertThat(attribute(batch, "messaging.message.id")).isNull();
			// a trace of its own, not any message's
			assertThat(requests).noneMatch((request) -> request.context().traceId().equals(batch.getTraceId()));
			assertThat(handlerTraces).contains(batch.getTraceId());
			batch.getLinks().forEach((link) -> linked.add(link.getSpanContext().getSpanId()));
			assertThat(batch.getLinks()).hasSize(Integer.parseInt(attribute(batch, "messaging.batch.message_count")));
		}
		// one link to each message's creation context: its send span
		assertThat(linked).containsExactlyInAnyOrderElementsOf(sendSpans);
	}

	@Test
	void eachAttemptIsObservedAndAFailureMarked() {
		start(this.registry, "failing");
		this.engine.template().send(DelayMessage.builder("fail-1").queue("failing").build());
		await().atMost(Duration.ofSeconds(10))
			.until(() -> this.spans.getFinishedSpanItems()
				.stream()
				.filter((span) -> span.getName().equals("process failing"))
				.count() == 2);
		List<SpanData> attempts = this.spans.getFinishedSpanItems()
			.stream()
			.filter((span) -> span.getName().equals("process failing"))
			.toList();
		assertThat(attempts).allSatisfy((span) -> {
			assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
			assertThat(span.getAttributes().get(AttributeKey.stringKey("delayqueue.outcome"))).isEqualTo("failure");
			assertThat(attribute(span, "error.type")).isEqualTo(IllegalStateException.class.getName());
		});
		assertThat(attempts)
			.extracting((span) -> span.getAttributes().get(AttributeKey.stringKey("delayqueue.attempt")))
			.containsExactlyInAnyOrder("1", "2");
		assertThat(attempts).extracting((span) -> attribute(span, "messaging.delayqueue.attempt"))
			.containsExactlyInAnyOrder("1", "2");
		SpanData send = span("send failing").orElseThrow();
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

	@Test
	void aBatchSendIsOneSendSpanWithACreateSpanPerMessageAndEachHandlerContinuesItsMessagesCreate() {
		start(this.registry, "batched");
		this.engine.template()
			.sendAll(List.of(DelayMessage.builder("b-1").queue("batched").id("b-1").build(),
					DelayMessage.builder("b-2").queue("batched").id("b-2").build(),
					DelayMessage.builder("b-3").queue("batched").id("b-3").build()));
		await().atMost(Duration.ofSeconds(10)).until(() -> spans("process batched").size() == 3);
		List<SpanData> sends = spans("send batched");
		assertThat(sends).hasSize(1);
		SpanData batch = sends.get(0);
		assertThat(batch.getKind()).isEqualTo(SpanKind.PRODUCER);
		assertThat(attribute(batch, "messaging.batch.message_count")).isEqualTo("3");
		assertThat(attribute(batch, "messaging.destination.name")).isEqualTo("batched");
		assertThat(attribute(batch, "messaging.message.id")).isNull();
		List<SpanData> creates = spans("create batched");
		assertThat(creates).hasSize(3).allSatisfy((create) -> {
			assertThat(create.getParentSpanId()).isEqualTo(batch.getSpanId());
			assertThat(attribute(create, "messaging.operation.type")).isEqualTo("create");
		});
		assertThat(creates).extracting((create) -> attribute(create, "messaging.message.id"))
			.containsExactlyInAnyOrder("b-1", "b-2", "b-3");
		// each handler's span is a child of its own message's create span
		for (SpanData process : spans("process batched")) {
			SpanData create = creates.stream()
				.filter((candidate) -> candidate.getSpanId().equals(process.getParentSpanId()))
				.findFirst()
				.orElseThrow();
			assertThat(attribute(process, "messaging.message.id")).isEqualTo(attribute(create, "messaging.message.id"));
		}
	}

	@Test
	void aBatchToSeveralQueuesNamesNoOneDestination() {
		start(this.registry, "mixed-a");
		this.engine.template()
			.sendAll(List.of(DelayMessage.builder("x").queue("mixed-a").build(),
					DelayMessage.builder("y").queue("mixed-b").build()));
		SpanData batch = spans("send").get(0);
		// one set of keys for the timers: a batch to several queues names no one queue
		assertThat(attribute(batch, "messaging.destination.name")).isEqualTo("several");
		assertThat(attribute(batch, "messaging.batch.message_count")).isEqualTo("2");
		assertThat(spans("create mixed-a")).hasSize(1);
		assertThat(spans("create mixed-b")).hasSize(1);
	}

	@Test
	void aDeadLetterHandlerRunsInASpanOfTheMessagesTrace() {
		start(this.registry, "dead-traced");
		DeadLetterConsumer consumer = this.engine.deadLetterConsumer("dead-traced", "g", "alerts", String.class,
				(payload, letter) -> {
				});
		consumer.start();
		try {
			this.engine.template().send(DelayMessage.builder("fail-dead").queue("dead-traced").build());
			await().atMost(Duration.ofSeconds(10)).until(() -> !spans("dead_letter dead-traced").isEmpty());
		}
		finally {
			consumer.stop();
		}
		SpanData send = span("send dead-traced").orElseThrow();
		SpanData dead = spans("dead_letter dead-traced").get(0);
		assertThat(dead.getKind()).isEqualTo(SpanKind.CONSUMER);
		assertThat(dead.getTraceId()).isEqualTo(send.getTraceId());
		assertThat(dead.getParentSpanId()).isEqualTo(send.getSpanId());
		assertThat(attribute(dead, "messaging.operation.type")).isEqualTo("process");
		assertThat(attribute(dead, "messaging.operation.name")).isEqualTo("dead_letter");
		assertThat(attribute(dead, "messaging.consumer.group.name")).isEqualTo("g");
	}

	@Test
	void conventionsOfTheApplicationReplaceTheDefaultOnesAndLegacyKeysCanBeLeftOut() {
		DelayQueueSendObservationConvention send = new DefaultDelayQueueSendObservationConvention(false) {

			@Override
			public String getContextualName(DelayQueueSendContext context) {
				return "enqueue " + context.getQueue();
			}

		};
		DelayQueueProcessObservationConvention process = new DefaultDelayQueueProcessObservationConvention(false) {

			@Override
			public String getName() {
				return "orders.handled";
			}

		};
		TestObservationRegistry observations = TestObservationRegistry.create();
		this.engine = DelayQueueEngine.builder(this.connectionFactory)
			.observations(new DelayQueueObservations(observations, send, process, false))
			.build();
		this.container = this.engine
			.listenerContainer("custom", "g", String.class,
					(payload, context) -> this.headersSeen.put(payload, Map.of()))
			.build();
		this.container.start();
		this.engine.template().send(DelayMessage.builder("c").queue("custom").id("c-1").build());
		await().atMost(Duration.ofSeconds(10)).until(() -> this.headersSeen.containsKey("c"));
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> TestObservationRegistryAssert.assertThat(observations)
				.hasObservationWithNameEqualTo("orders.handled")
				.that()
				.hasBeenStopped());
		TestObservationRegistryAssert.assertThat(observations)
			.hasObservationWithNameEqualTo("delayqueue.send")
			.that()
			.hasContextualNameEqualTo("enqueue custom")
			.hasLowCardinalityKeyValue("messaging.destination.name", "custom")
			.hasHighCardinalityKeyValue("messaging.message.id", "c-1")
			.doesNotHaveLowCardinalityKeyValueWithKey("messaging.message.id")
			.doesNotHaveLowCardinalityKeyValueWithKey("delayqueue.queue")
			.doesNotHaveHighCardinalityKeyValueWithKey("delayqueue.message.id");
		TestObservationRegistryAssert.assertThat(observations)
			.hasObservationWithNameEqualTo("orders.handled")
			.that()
			.hasContextualNameEqualTo("process custom")
			.hasLowCardinalityKeyValue("messaging.consumer.group.name", "g")
			.hasLowCardinalityKeyValue("messaging.delayqueue.attempt", "1")
			.doesNotHaveLowCardinalityKeyValueWithKey("delayqueue.group");
	}

	@Test
	void theMessageIdIsHighCardinalityOnlyUnderTheDefaultConventions() {
		TestObservationRegistry observations = TestObservationRegistry.create();
		this.engine = DelayQueueEngine.builder(this.connectionFactory).observationRegistry(observations).build();
		this.container = this.engine
			.listenerContainer("keys", "g", String.class, (payload, context) -> this.headersSeen.put(payload, Map.of()))
			.build();
		this.container.start();
		this.engine.template().send(DelayMessage.builder("k").queue("keys").id("k-1").build());
		await().atMost(Duration.ofSeconds(10)).until(() -> this.headersSeen.containsKey("k"));
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> TestObservationRegistryAssert.assertThat(observations)
				.hasObservationWithNameEqualTo("delayqueue.process")
				.that()
				.hasBeenStopped());
		TestObservationRegistryAssert.assertThat(observations)
			.hasObservationWithNameEqualTo("delayqueue.send")
			.that()
			.hasContextualNameEqualTo("send keys")
			.hasLowCardinalityKeyValue("messaging.system", "delayqueue")
			.hasLowCardinalityKeyValue("messaging.operation.type", "send")
			.hasLowCardinalityKeyValue("delayqueue.queue", "keys")
			.hasHighCardinalityKeyValue("messaging.message.id", "k-1")
			.doesNotHaveLowCardinalityKeyValueWithKey("messaging.message.id")
			.doesNotHaveLowCardinalityKeyValueWithKey("delayqueue.message.id");
		TestObservationRegistryAssert.assertThat(observations)
			.hasObservationWithNameEqualTo("delayqueue.process")
			.that()
			.hasHighCardinalityKeyValue("messaging.message.id", "k-1")
			.doesNotHaveLowCardinalityKeyValueWithKey("messaging.message.id");
	}

	private List<SpanData> spans(String name) {
		return this.spans.getFinishedSpanItems().stream().filter((span) -> span.getName().equals(name)).toList();
	}

}
