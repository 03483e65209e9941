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

package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.autoconfigure.actuate.DelayQueueEndpoint;
import io.github.delayqueue.autoconfigure.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.autoconfigure.metrics.MicrometerDelayQueueObserver;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.codec.RawMessageCodec;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.resource.ClientResources;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each auto-configuration of the starter, under each of its conditions: its class
 * missing, its property off, and a bean of the application's own in place of its bean.
 */
@RedisTest
class AutoConfigurationConditionsTests {

	private final RedisServer redis;

	private final ApplicationContextRunner runner;

	AutoConfigurationConditionsTests(RedisServer redis) {
		this.redis = redis;
		this.runner = AllAutoConfigurations.runner(redis).withBean(MeterRegistry.class, SimpleMeterRegistry::new);
	}

	@Test
	void everyAutoConfigurationAppliesByDefault() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.hasSingleBean(DelayQueueEngine.class)
			.hasSingleBean(DelayQueueTemplate.class)
			.hasSingleBean(DelayQueueAdmin.class)
			.hasSingleBean(MicrometerDelayQueueObserver.class)
			.hasSingleBean(DelayQueueEndpoint.class)
			.hasSingleBean(DelayQueueHealthIndicator.class)
			.hasBean("delayQueueServerCheck")
			.hasBean("delayQueueFastFailoverClientOptions")
			.hasBean("delayQueueReconnectDelay"));
	}

	@Test
	void theEngineNeedsItsClassesAndOneConnectionFactory() {
		this.runner.withClassLoader(new FilteredClassLoader(DelayQueueEngine.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(DelayQueueTemplate.class)
				.doesNotHaveBean(MicrometerDelayQueueObserver.class)
				.doesNotHaveBean(DelayQueueEndpoint.class)
				.doesNotHaveBean(DelayQueueHealthIndicator.class));
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(RedisConnectionFactory.class)
				.doesNotHaveBean(DelayQueueEngine.class));
	}

	@Test
	void theApplicationsOwnBeansWin() {
		this.runner.withBean("myCodec", MessageCodec.class, RawMessageCodec::new).run((context) -> {
			assertThat(context).hasSingleBean(MessageCodec.class);
			assertThat(context.getBean(DelayQueueEngine.class).codec()).isSameAs(context.getBean("myCodec"));
		});
		this.runner.withBean("myEndpoint", DelayQueueEndpoint.class, () -> new DelayQueueEndpoint(null, null))
			.run((context) -> assertThat(context).getBeans(DelayQueueEndpoint.class).containsOnlyKeys("myEndpoint"));
		this.runner
			.withBean("delayqueueHealthIndicator", HealthIndicator.class,
					() -> () -> org.springframework.boot.health.contributor.Health.up().build())
			.run((context) -> assertThat(context).doesNotHaveBean(DelayQueueHealthIndicator.class));
	}

	@Test
	void propertiesTurnEachOff() {
		this.runner
			.withPropertyValues("delayqueue.server-check.enabled=false", "delayqueue.cluster.fast-failover=false",
					"delayqueue.reconnect.enabled=false", "management.health.delayqueue.enabled=false",
					"management.endpoint.delayqueue.access=NONE")
			.run((context) -> assertThat(context).hasNotFailed()
				.hasSingleBean(DelayQueueEngine.class)
				.doesNotHaveBean("delayQueueServerCheck")
				.doesNotHaveBean("delayQueueFastFailoverClientOptions")
				.doesNotHaveBean("delayQueueReconnectDelay")
				.doesNotHaveBean(DelayQueueHealthIndicator.class)
				.doesNotHaveBean(DelayQueueEndpoint.class));
	}

	@Test
	void missingLibrariesTurnTheirPartsOff() {
		this.runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(MicrometerDelayQueueObserver.class));
		this.runner.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayQueueEndpoint.class));
		this.runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayQueueHealthIndicator.class));
		this.runner.withClassLoader(new FilteredClassLoader(ClusterClientOptions.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean("delayQueueFastFailoverClientOptions"));
		this.runner.withClassLoader(new FilteredClassLoader(ClientResources.class))
			.run((context) -> assertThat(context).doesNotHaveBean("delayQueueReconnectDelay"));
		this.runner.withClassLoader(new FilteredClassLoader("tools.jackson.databind", "com.fasterxml.jackson.databind"))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(MessageCodec.class));
	}

	@Test
	void withoutAMeterRegistryBeanThereAreNoMeters() {
		AllAutoConfigurations.runner(this.redis)
			.run((context) -> assertThat(context).doesNotHaveBean(MicrometerDelayQueueObserver.class));
	}

}
