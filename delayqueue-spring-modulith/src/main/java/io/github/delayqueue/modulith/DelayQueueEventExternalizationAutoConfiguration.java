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
import io.github.delayqueue.autoconfigure.DelayQueueProperties;
import io.github.delayqueue.core.DelayQueueOperations;
import io.github.delayqueue.core.DelayQueueTemplate;

import java.time.Clock;
import java.time.Duration;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.expression.spel.support.StandardEvaluationContext;
import org.springframework.modulith.events.EventExternalizationConfiguration;
import org.springframework.modulith.events.IncompleteEventPublications;
import org.springframework.modulith.events.config.EventExternalizationAutoConfiguration;
import org.springframework.modulith.events.config.EventPublicationAutoConfiguration;
import org.springframework.modulith.events.core.EventPublicationRepository;
import org.springframework.modulith.events.support.DelegatingEventExternalizer;
import org.springframework.modulith.events.support.EventExternalizerModuleListener;

/**
 * Externalizes {@code @Externalized} Spring Modulith events to delayqueue, when both are
 * on the class path and configured: a module listener hands each event published in a
 * committed transaction to {@link DelayQueueEventExternalizationTransport}. Backs off
 * with {@code spring.modulith.events.externalization.enabled=false},
 * {@code delayqueue.modulith.enabled=false}, or a transport bean of the application's
 * own.
 */
@AutoConfiguration(after = { EventPublicationAutoConfiguration.class, EventExternalizationAutoConfiguration.class,
		DelayQueueAutoConfiguration.class })
@ConditionalOnClass({ EventExternalizationConfiguration.class, DelayQueueTemplate.class })
@ConditionalOnBean({ DelayQueueOperations.class, EventExternalizationConfiguration.class })
@ConditionalOnBooleanProperty(name = "spring.modulith.events.externalization.enabled", matchIfMissing = true)
@ConditionalOnBooleanProperty(name = "delayqueue.modulith.enabled", matchIfMissing = true)
public class DelayQueueEventExternalizationAutoConfiguration {

	static final String MODULE_LISTENER = "org.springframework.modulith.events.support.EventExternalizerModuleListener";

	@Bean
	@ConditionalOnMissingBean
	DelayQueueEventExternalizationTransport delayQueueEventExternalizationTransport(DelayQueueOperations operations,
			BeanFactory beanFactory) {
		StandardEvaluationContext context = new StandardEvaluationContext();
		context.setBeanResolver(new BeanFactoryResolver(beanFactory));
		return new DelayQueueEventExternalizationTransport(operations, context);
	}

	@Bean
	@ConditionalOnBean(IncompleteEventPublications.class)
	@ConditionalOnBooleanProperty(name = "delayqueue.modulith.resubmit.enabled", matchIfMissing = true)
	PublicationResubmitter delayQueuePublicationResubmitter(IncompleteEventPublications publications,
			EventExternalizationConfiguration configuration, DelayQueueProperties properties,
			ObjectProvider<EventPublicationRepository> repository) {
		DelayQueueProperties.Modulith.Resubmit resubmit = properties.getModulith().getResubmit();
		return new PublicationResubmitter(publications, configuration::supports, resubmit.getInterval(),
				resubmit.getStaleAfter(), Clock.systemUTC(), repository.getIfUnique());
	}

	/** Spring Modulith 2.1 (Spring Boot 4.1): its module listener, on the transport. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = MODULE_LISTENER)
	static class ModuleListenerExternalizer {

		@Bean
		EventExternalizerModuleListener delayQueueEventExternalizer(EventExternalizationConfiguration configuration,
				DelayQueueEventExternalizationTransport transport) {
			return new EventExternalizerModuleListener(configuration, transport::externalize);
		}

	}

	/**
	 * Spring Modulith 2.0 (Spring Boot 4.0), which has no module listener yet: its
	 * delegating externalizer, deprecated in 2.1, on the same transport.
	 */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass(MODULE_LISTENER)
	@SuppressWarnings("removal")
	static class DelegatingExternalizer {

		@Bean
		DelegatingEventExternalizer delayQueueEventExternalizer(EventExternalizationConfiguration configuration,
				DelayQueueEventExternalizationTransport transport) {
			return new DelegatingEventExternalizer(configuration,
					(target, payload) -> transport.externalize(payload, target));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(MeterRegistry.class)
	static class ResubmitterMeters {

		// the resubmitter is a bean of the enclosing class, defined after this one:
		// looked
		// up when the meters are bound
		@Bean
		MeterBinder delayQueuePublicationResubmitterMeters(ObjectProvider<PublicationResubmitter> resubmitters) {
			return (registry) -> {
				PublicationResubmitter resubmitter = resubmitters.getIfAvailable();
				if (resubmitter == null) {
					return;
				}
				String name = "delayqueue.modulith.publications.resubmitted";
				String description = "event publications resubmitted while the application runs";
				FunctionCounter.builder(name, resubmitter, PublicationResubmitter::failedResubmitted)
					.tag("reason", "failed")
					.description(description)
					.register(registry);
				FunctionCounter.builder(name, resubmitter, PublicationResubmitter::staleResubmitted)
					.tag("reason", "stale")
					.description(description)
					.register(registry);
			};
		}

	}

}
