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

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.PropertiesEndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.util.ClassUtils;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for the {@code delayqueue} actuator endpoint: its write operations
 * follow Spring Boot's endpoint access control (read-only by default).
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnClass(Endpoint.class)
@ConditionalOnBean(DelayQueueEngine.class)
@ConditionalOnAvailableEndpoint(DelayQueueEndpoint.class)
public final class DelayQueueEndpointAutoConfiguration {

	private static final Log logger = LogFactory.getLog(DelayQueueEndpointAutoConfiguration.class);

	private static final String SPRING_SECURITY = "org.springframework.security.config.annotation.web.builders.HttpSecurity";

	@Bean
	@ConditionalOnMissingBean
	DelayQueueEndpoint delayQueueEndpoint(DelayQueueEngine engine,
			ObjectProvider<DelayListenerEndpointRegistry> listeners, Environment environment,
			ResourceLoader resourceLoader) {
		// the application's class loader, as @ConditionalOnClass sees it
		String warning = openWrites(environment,
				ClassUtils.isPresent(SPRING_SECURITY, resourceLoader.getClassLoader()));
		if (warning != null) {
			logger.warn(warning);
		}
		return new DelayQueueEndpoint(engine, listeners);
	}

	@Bean
	@ConditionalOnBean(DelayQueueEndpoint.class)
	@ConditionalOnMissingBean
	DelayQueueEndpointWebExtension delayQueueEndpointWebExtension(DelayQueueEndpoint endpoint) {
		return new DelayQueueEndpointWebExtension(endpoint);
	}

	/**
	 * Returns a warning when the endpoint's write operations are on and Spring Security
	 * is not on the class path: anyone who reaches the actuator can replay, cancel, purge
	 * and repartition.
	 * @param environment the environment
	 * @param security whether Spring Security is on the class path
	 * @return the warning, or {@code null}
	 */
	static String openWrites(Environment environment, boolean security) {
		Access access = new PropertiesEndpointAccessResolver(environment).accessFor(EndpointId.of("delayqueue"),
				Access.READ_ONLY);
		if (access != Access.UNRESTRICTED || security) {
			return null;
		}
		return "The delayqueue endpoint's write operations are on (management.endpoint.delayqueue.access="
				+ "unrestricted, or delayqueue.admin.enabled=true) and Spring Security is not on the class path: "
				+ "anyone who reaches the actuator can replay, cancel and purge messages and change partitions. "
				+ "Secure it (docs/spring-boot.md#the-delayqueue-actuator-endpoint) or keep it read-only";
	}

}
