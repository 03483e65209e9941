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
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@code delayqueue} actuator endpoint: read-only by default,
 * with write operations when {@code delayqueue.admin.enabled=true}.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(DelayQueueEngine.class)
@ConditionalOnAvailableEndpoint(DelayQueueEndpoint.class)
public final class DelayQueueEndpointAutoConfiguration {

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(name = "delayqueue.admin.enabled", havingValue = "true")
	static class AdminEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean(DelayQueueEndpoint.class)
		DelayQueueAdminEndpoint delayQueueAdminEndpoint(DelayQueueEngine engine,
				ObjectProvider<DelayListenerEndpointRegistry> listeners) {
			return new DelayQueueAdminEndpoint(engine, listeners);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnProperty(name = "delayqueue.admin.enabled", havingValue = "false", matchIfMissing = true)
	static class ReadOnlyEndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean(DelayQueueEndpoint.class)
		DelayQueueEndpoint delayQueueEndpoint(DelayQueueEngine engine,
				ObjectProvider<DelayListenerEndpointRegistry> listeners) {
			return new DelayQueueEndpoint(engine, listeners);
		}

	}

}
