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

package io.github.delayqueue.autoconfigure.metrics;

import io.github.delayqueue.autoconfigure.DelayQueueProperties;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for delayqueue's Micrometer meters, when Micrometer and a
 * {@link MeterRegistry} are present. See {@link MicrometerDelayQueueObserver} for the
 * meters. Percentile histograms of the timers are switched on the Spring Boot way, e.g.
 * {@code management.metrics.distribution.percentiles-histogram.delayqueue.lateness=true}.
 */
@AutoConfiguration(afterName = {
		"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
		"org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration" })
@ConditionalOnClass({ MeterRegistry.class, DelayQueueEngine.class })
@ConditionalOnBean(MeterRegistry.class)
@EnableConfigurationProperties(DelayQueueProperties.class)
public final class DelayQueueMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerDelayQueueObserver micrometerDelayQueueObserver(MeterRegistry registry,
			ObjectProvider<DelayQueueEngine> engine, ObjectProvider<DelayListenerEndpointRegistry> listeners,
			DelayQueueProperties properties) {
		return new MicrometerDelayQueueObserver(registry, engine, listeners, properties.getMetrics().getStatsRefresh());
	}

	@Bean
	@ConditionalOnMissingBean(OutboxMeters.class)
	OutboxMeters delayQueueOutboxMeters(MeterRegistry registry, ObjectProvider<DelayQueueEngine> engine) {
		OutboxMeters meters = new OutboxMeters(engine);
		meters.bindTo(registry);
		return meters;
	}

}
