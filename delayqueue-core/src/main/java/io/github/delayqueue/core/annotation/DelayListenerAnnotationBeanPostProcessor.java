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

package io.github.delayqueue.core.annotation;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelaySchedule;
import io.github.delayqueue.core.listener.DeadLetterConsumer;
import io.github.delayqueue.core.config.DelayListenerContainerFactory;
import io.github.delayqueue.core.config.DelayListenerEndpoint;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import io.github.delayqueue.core.listener.ListenerSetters;
import io.github.delayqueue.core.listener.ListenerSettings;
import io.github.delayqueue.core.internal.redis.QueueNames;

import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;

/**
 * Finds {@link DelayListener} methods on beans, turns each into a
 * {@link DelayListenerEndpoint} and registers it with the
 * {@link DelayListenerEndpointRegistry} through its container factory. Attributes are
 * resolved ({@code ${…}}, {@code #{…}}) and validated when the bean is initialized;
 * containers are built once all singletons exist. Every error names the method.
 */
public class DelayListenerAnnotationBeanPostProcessor
		implements BeanPostProcessor, SmartInitializingSingleton, BeanFactoryAware {

	private final Set<Class<?>> nonAnnotatedClasses = Collections.newSetFromMap(new ConcurrentHashMap<>());

	private final List<Pending> pending = new ArrayList<>();

	/** Registrations of dead-letter consumers, run once the engine can be looked up. */
	private final List<Runnable> pendingDeadLetterConsumers = new ArrayList<>();

	private final Map<DelayQueueEngine, DelayListenerContainerFactory> defaultFactories = new ConcurrentHashMap<>();

	private ConfigurableBeanFactory beanFactory;

	private ListenerAttributes attributes;

	private volatile boolean singletonsInstantiated;

	private InterceptorBeans interceptors;

	@Override
	public void setBeanFactory(BeanFactory beanFactory) {
		if (!(beanFactory instanceof ConfigurableBeanFactory configurable)) {
			throw new IllegalStateException("@DelayListener needs a ConfigurableBeanFactory");
		}
		this.beanFactory = configurable;
		if (beanFactory instanceof ListableBeanFactory listable) {
			this.interceptors = new InterceptorBeans(listable);
		}
		this.attributes = new ListenerAttributes(configurable);
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof AopInfrastructureBean || bean instanceof DelayListenerEndpointRegistry
				|| bean instanceof DelayListenerContainerFactory) {
			return bean;
		}
		Class<?> targetClass = AopUtils.getTargetClass(bean);
		if (this.nonAnnotatedClasses.contains(targetClass)) {
			return bean;
		}
		Map<Method, DelayListener> methods = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<DelayListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, DelayListener.class));
		Map<Method, DeadLetterListener> deadLetterMethods = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<DeadLetterListener>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, DeadLetterListener.class));
		if (methods.isEmpty() && deadLetterMethods.isEmpty()) {
			this.nonAnnotatedClasses.add(targetClass);
			return bean;
		}
		deadLetterMethods.forEach((method, annotation) -> {
			Runnable registration = deadLetterConsumer(bean, beanName, targetClass, method, annotation);
			if (this.singletonsInstantiated) {
				registration.run();
			}
			else {
				synchronized (this.pending) {
					this.pendingDeadLetterConsumers.add(registration);
				}
			}
		});
		for (Map.Entry<Method, DelayListener> entry : methods.entrySet()) {
			Pending listener = endpoint(bean, beanName, targetClass, entry.getKey(), entry.getValue());
			if (this.singletonsInstantiated) {
				register(listener);
			}
			else {
				synchronized (this.pending) {
					this.pending.add(listener);
				}
			}
		}
		return bean;
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<Pending> listeners;
		List<Runnable> deadLetterConsumers;
		synchronized (this.pending) {
			listeners = new ArrayList<>(this.pending);
			this.pending.clear();
			deadLetterConsumers = new ArrayList<>(this.pendingDeadLetterConsumers);
			this.pendingDeadLetterConsumers.clear();
		}
		listeners.forEach(this::register);
		deadLetterConsumers.forEach(Runnable::run);
		this.singletonsInstantiated = true;
	}

	private Pending endpoint(Object bean, String beanName, Class<?> targetClass, Method method,
			DelayListener annotation) {
		String description = "@DelayListener method " + ClassUtils.getQualifiedMethodName(method, targetClass) + "("
				+ StringUtils.arrayToDelimitedString(
						Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).toArray(), ", ")
				+ ")";
		try {
			Method invocable = AopUtils.selectInvocableMethod(method, bean.getClass());
			Boolean batch = this.attributes.read(annotation.batch(), "batch", ListenerAttributes::bool);
			Integer batchSize = this.attributes.read(annotation.batchSize(), "batchSize", Integer::valueOf);
			Duration batchWait = this.attributes.read(annotation.batchWait(), "batchWait",
					ListenerAttributes::duration);
			if (!Boolean.TRUE.equals(batch) && (batchSize != null || batchWait != null)) {
				throw new IllegalStateException(
						"batchSize and batchWait apply to batch listeners: set batch = \"true\" "
								+ "(the method then takes a List of payloads)");
			}
			String queue = QueueNames.queue(this.attributes.resolve(annotation.queue()));
			String group = this.attributes.resolve(annotation.group());
			if (!StringUtils.hasText(group)) {
				group = this.attributes.resolve("${spring.application.name:default}");
			}
			try {
				QueueNames.group(group);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(ex.getMessage() + (StringUtils.hasText(annotation.group()) ? ""
						: " (the group defaults to spring.application.name; set group on the annotation)"));
			}
			String id = this.attributes.resolve(annotation.id());
			String endpointId = StringUtils.hasText(id) ? id : beanName + "." + method.getName();
			DelayListenerEndpoint endpoint;
			if (Boolean.TRUE.equals(batch)) {
				MethodDelayBatchHandler handler = MethodDelayBatchHandler.of(bean, invocable, targetClass, description);
				endpoint = DelayListenerEndpoint.batch(endpointId, queue, group, handler.payloadType(), handler,
						description);
			}
			else {
				MethodDelayMessageHandler handler = MethodDelayMessageHandler.of(bean, invocable, targetClass,
						description);
				endpoint = new DelayListenerEndpoint(endpointId, queue, group, handler.payloadType(), handler,
						description);
			}
			Integer concurrency = this.attributes.read(annotation.concurrency(), "concurrency", Integer::valueOf);
			Integer maxAttempts = this.attributes.read(annotation.maxAttempts(), "maxAttempts", Integer::valueOf);
			Duration initialBackoff = this.attributes.read(annotation.initialBackoff(), "initialBackoff",
					ListenerAttributes::duration);
			Double multiplier = this.attributes.read(annotation.backoffMultiplier(), "backoffMultiplier",
					Double::valueOf);
			Duration maxBackoff = this.attributes.read(annotation.maxBackoff(), "maxBackoff",
					ListenerAttributes::duration);
			Duration visibilityTimeout = this.attributes.read(annotation.visibilityTimeout(), "visibilityTimeout",
					ListenerAttributes::duration);
			Boolean autoStartup = this.attributes.read(annotation.autoStartup(), "autoStartup",
					ListenerAttributes::bool);
			Boolean ordered = this.attributes.read(annotation.ordered(), "ordered", ListenerAttributes::bool);
			endpoint.settings((settings) -> {
				ifSet(concurrency, settings::concurrency);
				ifSet(maxAttempts, settings::maxAttempts);
				ifSet(initialBackoff, settings::initialBackoff);
				ifSet(multiplier, settings::backoffMultiplier);
				ifSet(maxBackoff, settings::maxBackoff);
				ifSet(visibilityTimeout, settings::visibilityTimeout);
				ifSet(autoStartup, settings::autoStartup);
				ifSet(ordered, settings::ordered);
				ifSet(batchSize, settings::batchSize);
				ifSet(batchWait, settings::batchWait);
				if (annotation.nonRetryable().length > 0) {
					settings.nonRetryable(List.of(annotation.nonRetryable()));
				}
			});
			// invalid values fail now, naming the method
			ListenerSettings.builder().apply(endpoint.getSettings()).build();
			String[] interceptorNames = resolve(annotation.interceptors());
			return new Pending(endpoint, this.attributes.resolve(annotation.containerFactory()),
					RecurringDeclarations.of(method, queue, this.attributes::resolve), interceptorNames);
		}
		catch (RuntimeException ex) {
			throw new BeanInitializationException(description + " is invalid: " + ex.getMessage(), ex);
		}
	}

	/**
	 * Checks a {@link DeadLetterListener} method now (naming it when it is misdeclared),
	 * and returns what registers its consumer as a lifecycle bean once the engine can be
	 * looked up.
	 */
	private Runnable deadLetterConsumer(Object bean, String beanName, Class<?> targetClass, Method method,
			DeadLetterListener annotation) {
		String description = "@DeadLetterListener method " + ClassUtils.getQualifiedMethodName(method, targetClass);
		try {
			DeadLetterMethod handler = DeadLetterMethod.of(bean,
					AopUtils.selectInvocableMethod(method, bean.getClass()));
			String queue = QueueNames.queue(this.attributes.resolve(annotation.queue()));
			String group = this.attributes.resolve(annotation.group());
			if (!StringUtils.hasText(group)) {
				group = this.attributes.resolve("${spring.application.name:default}");
			}
			QueueNames.group(group);
			String checkedGroup = group;
			String[] interceptorNames = resolve(annotation.interceptors());
			return () -> {
				DelayQueueEngine engine = this.beanFactory.getBean(DelayQueueEngine.class);
				// the same handler in every instance of the application: its id
				String handlerId = targetClass.getSimpleName() + "." + method.getName();
				DeadLetterConsumer consumer = engine.deadLetterConsumer(queue, checkedGroup, handlerId,
						handler.payloadType(), handler);
				if (this.interceptors != null) {
					try {
						this.interceptors.apply(consumer, interceptorNames);
					}
					catch (RuntimeException ex) {
						throw new BeanInitializationException(description + " is invalid: " + ex.getMessage(), ex);
					}
				}
				String name = "deadLetterConsumer#" + beanName + "." + method.getName();
				this.beanFactory.registerSingleton(name, consumer);
				if (this.singletonsInstantiated) {
					// registered after the context started: start it here
					consumer.start();
				}
			};
		}
		catch (RuntimeException ex) {
			throw new BeanInitializationException(description + " is invalid: " + ex.getMessage(), ex);
		}
	}

	private static <T> void ifSet(T value, Consumer<T> setter) {
		if (value != null) {
			setter.accept(value);
		}
	}

	private void register(Pending listener) {
		DelayListenerEndpoint endpoint = listener.endpoint();
		try {
			DelayListenerEndpointRegistry registry = this.beanFactory.getBean(
					DelayListenerBeanDefinitionRegistrar.ENDPOINT_REGISTRY_BEAN_NAME,
					DelayListenerEndpointRegistry.class);
			DelayListenerContainerFactory factory = containerFactory(listener);
			if (this.interceptors != null) {
				this.interceptors.apply(endpoint, listener.interceptors());
			}
			registry.registerListenerContainer(endpoint, factory);
			listener.schedules().forEach(factory.getEngine().admin().schedules()::declare);
		}
		catch (RuntimeException ex) {
			throw new BeanInitializationException(endpoint.getDescription() + " is invalid: " + ex.getMessage(), ex);
		}
	}

	private DelayListenerContainerFactory containerFactory(Pending listener) {
		String name = listener.containerFactory();
		if (StringUtils.hasText(name)) {
			try {
				return this.beanFactory.getBean(name, DelayListenerContainerFactory.class);
			}
			catch (NoSuchBeanDefinitionException ex) {
				throw new IllegalStateException("it names containerFactory '" + name
						+ "', but there is no DelayListenerContainerFactory bean of that name", ex);
			}
		}
		String defaultName = DelayListenerBeanDefinitionRegistrar.DEFAULT_CONTAINER_FACTORY_BEAN_NAME;
		if (this.beanFactory.containsBean(defaultName)) {
			return this.beanFactory.getBean(defaultName, DelayListenerContainerFactory.class);
		}
		if (this.beanFactory instanceof ListableBeanFactory listable) {
			String[] engines = listable.getBeanNamesForType(DelayQueueEngine.class);
			if (engines.length == 1) {
				return defaultFactory(listable.getBean(engines[0], DelayQueueEngine.class));
			}
		}
		throw new IllegalStateException("there is no DelayListenerContainerFactory bean named '" + defaultName
				+ "' and no single DelayQueueEngine bean to make one from; define one of them");
	}

	private DelayListenerContainerFactory defaultFactory(DelayQueueEngine engine) {
		return this.defaultFactories.computeIfAbsent(engine, DelayListenerContainerFactory::new);
	}

	private record Pending(DelayListenerEndpoint endpoint, String containerFactory, List<DelaySchedule> schedules,
			String[] interceptors) {
	}

	/** Resolves each name, and notes them as named by a listener (not shared). */
	private String[] resolve(String[] names) {
		String[] resolved = Arrays.stream(names)
			.map(this.attributes::resolve)
			.filter(StringUtils::hasText)
			.toArray(String[]::new);
		if (this.interceptors != null) {
			this.interceptors.name(resolved);
		}
		return resolved;
	}

}
