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

package io.github.delayqueue.modulith;

import io.github.delayqueue.autoconfigure.DelayQueueAutoConfiguration;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import java.time.Duration;
import java.util.function.Predicate;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.modulith.events.EventPublication;
import org.springframework.modulith.events.IncompleteEventPublications;
import org.springframework.modulith.events.ResubmissionOptions;
import org.springframework.modulith.events.config.EventExternalizationAutoConfiguration;
import org.springframework.modulith.events.EventExternalizationConfiguration;
import org.springframework.modulith.events.core.ConditionalEventListener;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the externalization to delayqueue is set up, and when it backs off.
 */
@RedisTest
class DelayQueueEventExternalizationAutoConfigurationTests {

	private static final String MODULE_LISTENER = "org.springframework.modulith.events.support.EventExternalizerModuleListener";

	private final ApplicationContextRunner runner;

	DelayQueueEventExternalizationAutoConfigurationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, EventExternalizationAutoConfiguration.class,
					DelayQueueEventExternalizationAutoConfiguration.class))
			.withUserConfiguration(Application.class)
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
	}

	@Test
	void externalizesToDelayQueueByDefault() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(DelayQueueEventExternalizationTransport.class)
			.hasBean("delayQueueEventExternalizer")
			.getBean("delayQueueEventExternalizer")
			.isInstanceOf(ConditionalEventListener.class)
			// Spring Modulith 2.1 (Boot 4.1) has the module listener; 2.0 (Boot 4.0) the
			// delegating externalizer (the compatibility build runs this on 2.0)
			.extracting((externalizer) -> externalizer.getClass().getSimpleName())
			.isEqualTo(ClassUtils.isPresent(MODULE_LISTENER, null) ? "EventExternalizerModuleListener"
					: "DelegatingEventExternalizer"));
	}

	@Test
	void backsOffWhenModulithExternalizationIsOff() {
		this.runner.withPropertyValues("spring.modulith.events.externalization.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(DelayQueueEventExternalizationTransport.class)
				.doesNotHaveBean("delayQueueEventExternalizer"));
	}

	@Test
	void backsOffWhenDelayQueuesExternalizationIsOff() {
		this.runner.withPropertyValues("delayqueue.modulith.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(DelayQueueEventExternalizationTransport.class)
				.doesNotHaveBean("delayQueueEventExternalizer"));
	}

	@Test
	void usesTheApplicationsTransport() {
		DelayQueueEventExternalizationTransport own = new DelayQueueEventExternalizationTransport(null,
				new StandardEvaluationContext());
		this.runner.withBean(DelayQueueEventExternalizationTransport.class, () -> own)
			.run((context) -> assertThat(context.getBean(DelayQueueEventExternalizationTransport.class)).isSameAs(own));
	}

	@Test
	void backsOffWithoutModulithOnTheClassPath() {
		this.runner.withClassLoader(new FilteredClassLoader(EventExternalizationConfiguration.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(DelayQueueEventExternalizationTransport.class));
	}

	@Test
	void backsOffWithoutDelayQueue() {
		this.runner.withClassLoader(new FilteredClassLoader(DelayQueueEngine.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(DelayQueueEventExternalizationTransport.class));
	}

	/** Incomplete publications that are never there: enough to wire the resubmitter. */
	private static final IncompleteEventPublications NONE = new IncompleteEventPublications() {

		@Override
		public void resubmitIncompletePublications(Predicate<EventPublication> filter) {
		}

		@Override
		public void resubmitIncompletePublicationsOlderThan(Duration duration) {
		}

		@Override
		public void resubmitIncompletePublications(ResubmissionOptions options) {
		}

	};

	@Test
	void resubmitsIncompletePublicationsWithItsSettingsAndCountsThem() {
		this.runner.withBean(IncompleteEventPublications.class, () -> NONE)
			.withBean(SimpleMeterRegistry.class)
			.withPropertyValues("delayqueue.modulith.resubmit.interval=2s")
			.run((context) -> {
				assertThat(context).hasSingleBean(PublicationResubmitter.class);
				assertThat(context.getBean(PublicationResubmitter.class).isRunning()).isTrue();
				MeterRegistry registry = context.getBean(MeterRegistry.class);
				context.getBeansOfType(io.micrometer.core.instrument.binder.MeterBinder.class)
					.values()
					.forEach((binder) -> binder.bindTo(registry));
				assertThat(registry.find("delayqueue.modulith.publications.resubmitted")
					.tag("reason", "failed")
					.functionCounter()).isNotNull();
			});
		this.runner.withBean(IncompleteEventPublications.class, () -> NONE)
			.withPropertyValues("delayqueue.modulith.resubmit.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(PublicationResubmitter.class));
	}

	@Test
	void aResubmitIntervalOrStalenessTooShortFailsTheStartUpNamingIt() {
		this.runner.withBean(IncompleteEventPublications.class, () -> NONE)
			.withPropertyValues("delayqueue.modulith.resubmit.interval=10ms")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessage("delayqueue.modulith.resubmit.interval must be at least 100ms, but was PT0.01S"));
		this.runner.withBean(IncompleteEventPublications.class, () -> NONE)
			.withPropertyValues("delayqueue.modulith.resubmit.stale-after=0s")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessage("delayqueue.modulith.resubmit.stale-after must be at least 1s, but was PT0S"));
	}

	@Configuration(proxyBeanMethods = false)
	@AutoConfigurationPackage
	static class Application {

	}

}
