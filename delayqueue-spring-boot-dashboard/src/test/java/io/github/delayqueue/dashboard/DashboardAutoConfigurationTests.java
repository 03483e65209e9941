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

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the dashboard is served, and when it backs off: a servlet application with an
 * engine, unless turned off; the application's own queue filter wins.
 */
@RedisTest
class DashboardAutoConfigurationTests {

	private final WebApplicationContextRunner runner;

	private final RedisServer redis;

	DashboardAutoConfigurationTests(RedisServer redis) {
		this.redis = redis;
		this.runner = new WebApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DashboardAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
	}

	@Test
	void servesTheDashboardInAServletApplicationWithAnEngine() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(DashboardPage.class)
			.hasSingleBean(DashboardApi.class)
			.hasSingleBean(DashboardQueueFilter.class));
	}

	@Test
	void backsOffWhenTurnedOff() {
		this.runner.withPropertyValues("delayqueue.dashboard.enabled=false")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(DelayQueueEngine.class)
				.doesNotHaveBean(DashboardPage.class)
				.doesNotHaveBean(DashboardApi.class));
	}

	@Test
	void backsOffOutsideAServletApplication() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DashboardAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + this.redis.host(),
					"spring.data.redis.port=" + this.redis.port())
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(DelayQueueEngine.class)
				.doesNotHaveBean(DashboardPage.class));
	}

	@Test
	void backsOffWithoutAnEngine() {
		this.runner.withClassLoader(new FilteredClassLoader(DelayQueueEngine.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DashboardPage.class));
	}

	@Test
	void aTraceLinkMustBeHttpWithAPlaceForTheTraceId() {
		this.runner.withPropertyValues("delayqueue.dashboard.trace-link=http://localhost:16686/trace/{traceId}")
			.run((context) -> assertThat(context).hasNotFailed().hasSingleBean(DashboardApi.class));
		for (String bad : new String[] { "javascript:alert('{traceId}')", "http://localhost:16686/trace/",
				"ftp://traces/{traceId}" }) {
			this.runner.withPropertyValues("delayqueue.dashboard.trace-link=" + bad)
				.run((context) -> assertThat(context).getFailure()
					.rootCause()
					.hasMessageContaining("delayqueue.dashboard.trace-link must be an http or https URL")
					.hasMessageContaining(bad));
		}
	}

	@Test
	void theApplicationsQueueFilterWins() {
		DashboardQueueFilter own = (queue, request) -> queue.startsWith("orders");
		this.runner.withBean(DashboardQueueFilter.class, () -> own)
			.run((context) -> assertThat(context.getBean(DashboardQueueFilter.class)).isSameAs(own));
	}

}
