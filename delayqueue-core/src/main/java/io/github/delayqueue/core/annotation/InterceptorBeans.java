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
import io.github.delayqueue.core.listener.DelayMessageInterceptor;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;

/**
 * Finds the interceptors of annotated listeners among the beans: every bean of an
 * interceptor type applies to every listener of its kind
 * ({@link DelayMessageInterceptor}: listeners of one message at a time and dead-letter
 * listeners; {@link DelayBatchInterceptor}: batch listeners), in the beans' order, except
 * the beans a listener names in its {@code interceptors} attribute: those are its own,
 * and apply only to the listeners that name them, after the shared ones.
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
					shared.add(bean);
					return;
				}
			}
		});
		return shared;
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
			own.add(type.cast(bean));
		}
		return own;
	}

}
