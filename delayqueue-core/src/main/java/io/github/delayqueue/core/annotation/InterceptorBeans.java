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

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.config.DelayListenerEndpoint;
import io.github.delayqueue.core.listener.DeadLetterConsumer;
import io.github.delayqueue.core.listener.DelayBatchInterceptor;
import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.core.listener.DelayMessageInterceptor;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.annotation.OrderUtils;

/**
 * Finds the interceptors of annotated listeners among the beans: every bean of an
 * interceptor type applies to every listener of its kind
 * ({@link DelayMessageInterceptor}: listeners of one message at a time and dead-letter
 * listeners; {@link DelayBatchInterceptor}: batch listeners), in the beans' order, except
 * the beans a listener names in its {@code interceptors} attribute: those are its own,
 * and apply only to the listeners that name them, among the shared ones by their order
 * (at equal order after them). A bean's order is that of its class ({@code @Order},
 * {@link Ordered}) or, failing that, the {@code @Order} of its {@code @Bean} method, for
 * shared and own ones alike.
 */
final class InterceptorBeans {

	private final ListableBeanFactory beans;

	/** The beans some listener names: not shared. */
	private final Set<String> named = ConcurrentHashMap.newKeySet();

	InterceptorBeans(ListableBeanFactory beans) {
		this.beans = beans;
	}

	/**
	 * Notes the interceptors a listener names, before any listener is registered.
	 * @param names the bean names
	 */
	void name(String[] names) {
		this.named.addAll(List.of(names));
	}

	/**
	 * Adds the shared interceptors, then its own, to a listener's endpoint.
	 * @param endpoint the endpoint
	 * @param names the bean names the listener gives
	 */
	void apply(DelayListenerEndpoint endpoint, String[] names) {
		if (endpoint.isBatch()) {
			shared(DelayBatchInterceptor.class).forEach(endpoint::addBatchInterceptor);
			own(names, DelayBatchInterceptor.class, "a batch listener").forEach(endpoint::addBatchInterceptor);
		}
		else {
			shared(DelayMessageInterceptor.class).forEach(endpoint::addInterceptor);
			own(names, DelayMessageInterceptor.class, "a listener of one message at a time")
				.forEach(endpoint::addInterceptor);
		}
	}

	/**
	 * Adds the shared message interceptors, then its own, to a dead-letter consumer.
	 * @param consumer the consumer
	 * @param names the bean names the listener gives
	 */
	void apply(DeadLetterConsumer consumer, String[] names) {
		shared(DelayMessageInterceptor.class).forEach(consumer::addInterceptor);
		own(names, DelayMessageInterceptor.class, "a dead-letter listener").forEach(consumer::addInterceptor);
	}

	private <T> List<T> shared(Class<T> type) {
		List<T> shared = new ArrayList<>();
		String[] names = this.beans.getBeanNamesForType(type);
		this.beans.getBeanProvider(type).orderedStream().forEach((bean) -> {
			for (String name : names) {
				if (!this.named.contains(name) && this.beans.getBean(name) == bean) {
					shared.add(ordered(name, bean, type));
					return;
				}
			}
		});
		return shared;
	}

	/**
	 * The bean, or, when its order is given only on its {@code @Bean} method (which the
	 * container's sort cannot see on the instance), the bean with that order.
	 */
	private <T> T ordered(String name, T bean, Class<T> type) {
		if (OrderUtils.getOrder(bean.getClass()) != null || bean instanceof Ordered) {
			return bean;
		}
		Order order = this.beans.findAnnotationOnBean(name, Order.class);
		if (order == null) {
			return bean;
		}
		Object wrapped = (type == DelayMessageInterceptor.class)
				? new OrderedMessageInterceptor((DelayMessageInterceptor) bean, order.value())
				: new OrderedBatchInterceptor((DelayBatchInterceptor) bean, order.value());
		return type.cast(wrapped);
	}

	private <T> List<T> own(String[] names, Class<T> type, String kind) {
		List<T> own = new ArrayList<>();
		for (String name : names) {
			Object bean;
			try {
				bean = this.beans.getBean(name);
			}
			catch (NoSuchBeanDefinitionException ex) {
				throw new IllegalStateException(
						"it names the interceptor '" + name + "', but there is no bean of that " + "name", ex);
			}
			if (!type.isInstance(bean)) {
				throw new IllegalStateException("it names the interceptor '" + name + "', a "
						+ bean.getClass().getName() + ", but " + kind + " takes " + type.getSimpleName() + "s");
			}
			// ordered as a shared bean is: by its class, Ordered, or its @Bean method
			own.add(ordered(name, type.cast(bean), type));
		}
		return own;
	}

	/** A message interceptor bean with the order of its {@code @Bean} method. */
	private record OrderedMessageInterceptor(DelayMessageInterceptor bean,
			int order) implements DelayMessageInterceptor, Ordered {

		@Override
		public boolean before(Object payload, DelayMessageContext context) throws Exception {
			return this.bean.before(payload, context);
		}

		@Override
		public void onSuccess(Object payload, DelayMessageContext context) throws Exception {
			this.bean.onSuccess(payload, context);
		}

		@Override
		public void onFailure(Object payload, DelayMessageContext context, Throwable failure) throws Exception {
			this.bean.onFailure(payload, context, failure);
		}

		@Override
		public void after(Object payload, DelayMessageContext context) throws Exception {
			this.bean.after(payload, context);
		}

		@Override
		public int getOrder() {
			return this.order;
		}

		@Override
		public String toString() {
			return this.bean + " (order " + this.order + ")";
		}

	}

	/** A batch interceptor bean with the order of its {@code @Bean} method. */
	private record OrderedBatchInterceptor(DelayBatchInterceptor bean,
			int order) implements DelayBatchInterceptor, Ordered {

		@Override
		public boolean accept(Object payload, DelayMessageContext context) throws Exception {
			return this.bean.accept(payload, context);
		}

		@Override
		public void before(List<?> payloads, List<DelayMessageContext> contexts) throws Exception {
			this.bean.before(payloads, contexts);
		}

		@Override
		public void onSuccess(List<?> payloads, List<DelayMessageContext> contexts) throws Exception {
			this.bean.onSuccess(payloads, contexts);
		}

		@Override
		public void onFailure(List<?> payloads, List<DelayMessageContext> contexts, Throwable failure)
				throws Exception {
			this.bean.onFailure(payloads, contexts, failure);
		}

		@Override
		public void after(List<?> payloads, List<DelayMessageContext> contexts) throws Exception {
			this.bean.after(payloads, contexts);
		}

		@Override
		public int getOrder() {
			return this.order;
		}

		@Override
		public String toString() {
			return this.bean + " (order " + this.order + ")";
		}

	}

}
