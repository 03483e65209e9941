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

package io.github.delayqueue.core.observation;

import java.util.Map;

import io.micrometer.observation.Observation;
import io.micrometer.tracing.Link;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;

/**
 * The tracing handler of a listener's process observations
 * ({@link DelayQueueObservation#PROCESS} and
 * {@link DelayQueueObservation#PROCESS_BATCH}), per the OpenTelemetry messaging
 * conventions: each process span links to the creation context of its message(s), read
 * from the message's headers ({@code traceparent}, W3C; or B3, single or multi header). A
 * message's span continues its trace (a child of the send span) and also carries that
 * link; a batch's span is a consumer span that continues no single message's trace, with
 * one link per message. A message without a trace context gets no link. Handles nothing
 * else: register it before Micrometer Tracing's receiver handler (the Spring Boot
 * auto-configuration does, with the tracer's own handlers).
 */
public class DelayQueueBatchTracingObservationHandler
		extends PropagatingReceiverTracingObservationHandler<DelayQueueProcessContext> {

	/** The most links one batch span gets (OpenTelemetry's default span link limit). */
	public static final int MAX_LINKS = 128;

	private final Tracer tracer;

	/**
	 * @param tracer the tracer
	 * @param propagator the propagator
	 */
	public DelayQueueBatchTracingObservationHandler(Tracer tracer, Propagator propagator) {
		super(tracer, propagator);
		this.tracer = tracer;
	}

	@Override
	public boolean supportsContext(Observation.Context context) {
		return context instanceof DelayQueueProcessContext;
	}

	@Override
	public Span.Builder customizeExtractedSpan(DelayQueueProcessContext context, Span.Builder builder) {
		if (!context.isBatch()) {
			TraceContext created = (context.getCarrier() != null) ? traceContext(context.getCarrier()) : null;
			if (created != null) {
				builder.addLink(new Link(created));
			}
			return builder;
		}
		int links = 0;
		for (Map<String, String> headers : context.getLinkedHeaders()) {
			TraceContext linked = traceContext(headers);
			if (linked != null && links++ < MAX_LINKS) {
				builder.addLink(new Link(linked));
			}
		}
		return builder;
	}

	/**
	 * Reads a message's creation context from its headers.
	 * @param headers the message's headers
	 * @return the context, {@code null} when the headers carry none (or an unreadable
	 * one)
	 */
	TraceContext traceContext(Map<String, String> headers) {
		String traceparent = headers.get("traceparent");
		if (traceparent != null) {
			// version-traceid-spanid-flags
			String[] parts = traceparent.trim().split("-");
			if (parts.length >= 4 && hex(parts[1], 32) && hex(parts[2], 16) && hex(parts[3], 2)) {
				return build(parts[1], parts[2], (Integer.parseInt(parts[3], 16) & 1) == 1);
			}
			return null;
		}
		String b3 = headers.get("b3");
		if (b3 != null) {
			// traceid-spanid[-sampled[-parentspanid]]
			String[] parts = b3.trim().split("-");
			if (parts.length >= 2 && (hex(parts[0], 32) || hex(parts[0], 16)) && hex(parts[1], 16)) {
				return build(parts[0], parts[1], parts.length < 3 || !"0".equals(parts[2]));
			}
			return null;
		}
		String traceId = headers.get("X-B3-TraceId");
		String spanId = headers.get("X-B3-SpanId");
		if (traceId != null && spanId != null && (hex(traceId, 32) || hex(traceId, 16)) && hex(spanId, 16)) {
			return build(traceId, spanId, !"0".equals(headers.get("X-B3-Sampled")));
		}
		return null;
	}

	private TraceContext build(String traceId, String spanId, boolean sampled) {
		return this.tracer.traceContextBuilder().traceId(traceId).spanId(spanId).sampled(sampled).build();
	}

	private static boolean hex(String value, int length) {
		if (value.length() != length) {
			return false;
		}
		for (int i = 0; i < length; i++) {
			if (Character.digit(value.charAt(i), 16) < 0) {
				return false;
			}
		}
		return true;
	}

}
