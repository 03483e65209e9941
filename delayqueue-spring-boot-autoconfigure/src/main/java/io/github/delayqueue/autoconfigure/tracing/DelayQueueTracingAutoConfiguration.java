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

import io.github.delayqueue.core.observation.DelayQueueBatchTracingObservationHandler;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.annotation.Order;

/**
 * Registers, beside Micrometer Tracing's handlers, the handler that links a batch
 * listener's span to each message's creation context
 * ({@link DelayQueueBatchTracingObservationHandler}), ordered before Spring Boot's
 * receiver handler so that it takes the batches' observations.
 */
@AutoConfiguration(
		afterName = "org.springframework.boot.micrometer.tracing.autoconfigure.MicrometerTracingAutoConfiguration")
@ConditionalOnClass({ Tracer.class, Propagator.class, DelayQueueBatchTracingObservationHandler.class })
@ConditionalOnBean({ Tracer.class, Propagator.class })
public final class DelayQueueTracingAutoConfiguration {

	/**
	 * The order of the batch handler: before Spring Boot's receiver handler (1000).
	 */
	public static final int BATCH_TRACING_OBSERVATION_HANDLER_ORDER = 500;

	@Bean
	@ConditionalOnMissingBean
	@Order(BATCH_TRACING_OBSERVATION_HANDLER_ORDER)
	DelayQueueBatchTracingObservationHandler delayQueueBatchTracingObservationHandler(Tracer tracer,
			Propagator propagator) {
		return new DelayQueueBatchTracingObservationHandler(tracer, propagator);
	}

}
