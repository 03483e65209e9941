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

package io.github.delayqueue.autoconfigure.tracing;

import java.util.List;

import io.github.delayqueue.core.observation.DelayQueueBatchTracingObservationHandler;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DelayQueueTracingAutoConfiguration}: the batch links handler is registered where
 * Micrometer Tracing's tracer and propagator are, ordered before Spring Boot's receiver
 * handler.
 */
class DelayQueueTracingAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DelayQueueTracingAutoConfiguration.class));

	@Test
	void registersTheBatchLinksHandlerBesideATracer() {
		this.runner.withUserConfiguration(BootsReceiverHandler.class).run((context) -> {
			assertThat(context).hasSingleBean(DelayQueueBatchTracingObservationHandler.class);
			// before Spring Boot's receiver handler (order 1000), which would take the
			// batch's observation otherwise: Spring Boot groups the tracing handlers in
			// this order, the first that supports a context handles it
			List<Object> ordered = context.getBeanProvider(ObservationHandler.class)
				.orderedStream()
				.map(Object.class::cast)
				.toList();
			assertThat(ordered).hasSize(2);
			assertThat(ordered.get(0)).isInstanceOf(DelayQueueBatchTracingObservationHandler.class);
		});
	}

	@Configuration(proxyBeanMethods = false)
	static class BootsReceiverHandler {

		@Bean
		Tracer tracer() {
			return Tracer.NOOP;
		}

		@Bean
		Propagator propagator() {
			return Propagator.NOOP;
		}

		@Bean
		@Order(1000)
		PropagatingReceiverTracingObservationHandler<?> receiver(Tracer tracer, Propagator propagator) {
			return new PropagatingReceiverTracingObservationHandler<>(tracer, propagator);
		}

	}

	@Test
	void registersNothingWithoutATracerOrItsClasses() {
		this.runner
			.run((context) -> assertThat(context).doesNotHaveBean(DelayQueueBatchTracingObservationHandler.class));
		this.runner.withBean(Tracer.class, () -> Tracer.NOOP)
			.withBean(Propagator.class, () -> Propagator.NOOP)
			.withClassLoader(new FilteredClassLoader(Tracer.class))
			.run((context) -> assertThat(context).doesNotHaveBean(DelayQueueBatchTracingObservationHandler.class));
	}

	@Test
	void theApplicationsOwnHandlerWins() {
		this.runner.withBean(Tracer.class, () -> Tracer.NOOP)
			.withBean(Propagator.class, () -> Propagator.NOOP)
			.withBean("mine", DelayQueueBatchTracingObservationHandler.class,
					() -> new DelayQueueBatchTracingObservationHandler(Tracer.NOOP, Propagator.NOOP))
			.run((context) -> assertThat(context).getBeans(DelayQueueBatchTracingObservationHandler.class)
				.containsOnlyKeys("mine"));
	}

}
