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

package io.github.delayqueue.autoconfigure.actuate;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@code delayqueue} health indicator
 * ({@code management.health.delayqueue.enabled}).
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(DelayQueueEngine.class)
@ConditionalOnEnabledHealthIndicator("delayqueue")
public final class DelayQueueHealthContributorAutoConfiguration {

	/**
	 * The indicator; its bean name gives the contributor id {@code delayqueue}
	 * ({@code /actuator/health/delayqueue}).
	 * @param engine the engine
	 * @param listeners the listener containers
	 * @return the indicator
	 */
	@Bean
	@ConditionalOnMissingBean(name = "delayqueueHealthIndicator")
	DelayQueueHealthIndicator delayqueueHealthIndicator(DelayQueueEngine engine,
			ObjectProvider<DelayListenerEndpointRegistry> listeners) {
		return new DelayQueueHealthIndicator(engine, listeners);
	}

}
