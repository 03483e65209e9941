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

package io.github.delayqueue.dashboard;

import java.util.List;
import java.util.regex.Pattern;

import io.github.delayqueue.core.internal.InputText;
import io.github.delayqueue.autoconfigure.DashboardProperties;
import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.autoconfigure.DelayQueueProperties;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;

/**
 * Serves the delayqueue dashboard in a Spring MVC application that has a
 * {@link DelayQueueEngine}: under {@code delayqueue.dashboard.path} (default
 * {@code /delayqueue}), read-only unless {@code delayqueue.dashboard.read-only=false}.
 */
@AutoConfiguration(after = DelayQueueAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBean(DelayQueueEngine.class)
@ConditionalOnBooleanProperty(name = "delayqueue.dashboard.enabled", matchIfMissing = true)
public final class DashboardAutoConfiguration {

	private static final Log logger = LogFactory.getLog(DashboardAutoConfiguration.class);

	@Bean
	@ConditionalOnMissingBean
	DashboardQueueFilter dashboardQueueFilter(DelayQueueProperties delayQueueProperties) {
		DashboardProperties properties = delayQueueProperties.getDashboard();
		List<Pattern> patterns = properties.getQueues()
			.stream()
			.map((glob) -> Pattern.compile(Pattern.quote(glob).replace("*", "\\E.*\\Q")))
			.toList();
		return (queue, request) -> patterns.isEmpty()
				|| patterns.stream().anyMatch((pattern) -> pattern.matcher(queue).matches());
	}

	/**
	 * A trace link that is not http or https, or has no place for the trace id: refused.
	 */
	private static void traceLink(DashboardProperties properties) {
		String link = properties.getTraceLink();
		if (link != null && !(link.matches("(?i)https?://[^\\s\"'<>]+") && link.contains("{traceId}"))) {
			throw new IllegalStateException("delayqueue.dashboard.trace-link must be an http or https URL with "
					+ "{traceId} where the trace id goes, but was " + InputText.quote(link));
		}
	}

	private static String path(DashboardProperties properties) {
		if (!properties.getPath().startsWith("/") || properties.getPath().endsWith("/")) {
			throw new IllegalStateException(
					"delayqueue.dashboard.path must start with '/' and not end with one, but was '"
							+ properties.getPath() + "'");
		}
		return properties.getPath();
	}

	@Bean
	FilterRegistrationBean<DashboardHeaders> delayQueueDashboardHeaders(DelayQueueProperties delayQueueProperties) {
		String path = path(delayQueueProperties.getDashboard());
		FilterRegistrationBean<DashboardHeaders> registration = new FilterRegistrationBean<>(new DashboardHeaders());
		registration.addUrlPatterns(path, path + "/*");
		// before Spring Security, so that its refusals and redirects carry the headers
		// too
		registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
		return registration;
	}

	@Bean
	DashboardPage delayQueueDashboardPage() {
		return new DashboardPage();
	}

	@Bean
	DashboardAccess delayQueueDashboardAccess(DelayQueueEngine engine,
			ObjectProvider<DelayListenerEndpointRegistry> listeners, DelayQueueProperties delayQueueProperties,
			DashboardQueueFilter filter) {
		DashboardProperties properties = delayQueueProperties.getDashboard();
		path(properties);
		traceLink(properties);
		logger.info("delayqueue dashboard at " + properties.getPath() + "/ ("
				+ (properties.isReadOnly() ? "read-only" : "writes for authority " + properties.getWriteAuthority())
				+ ")");
		return new DashboardAccess(engine, listeners, new DashboardWrites(properties), filter);
	}

	@Bean
	DashboardApi delayQueueDashboardApi(DelayQueueEngine engine,
			ObjectProvider<DelayListenerEndpointRegistry> listeners, DashboardAccess access) {
		return new DashboardApi(engine, listeners, access);
	}

	@Bean
	DashboardMessageApi delayQueueDashboardMessageApi(DelayQueueEngine engine, DashboardAccess access) {
		return new DashboardMessageApi(engine, access);
	}

	@Bean
	DashboardOutboxApi delayQueueDashboardOutboxApi(DelayQueueEngine engine) {
		return new DashboardOutboxApi(engine);
	}

	@Bean
	DashboardConcurrencyApi delayQueueDashboardConcurrencyApi(DelayQueueEngine engine, DashboardAccess access) {
		return new DashboardConcurrencyApi(engine, access);
	}

	@Bean
	DashboardBulkApi delayQueueDashboardBulkApi(DelayQueueEngine engine, DashboardAccess access) {
		return new DashboardBulkApi(engine, access);
	}

	@Bean
	DashboardErrors delayQueueDashboardErrors() {
		return new DashboardErrors();
	}

}
