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

package io.github.delayqueue.core.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayBatchInterceptor;
import io.github.delayqueue.core.listener.DelayMessageInterceptor;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.ListenerSettings;

/**
 * Builds a {@link DelayQueueListenerContainer} for each {@link DelayListenerEndpoint}:
 * its {@link #getSettings() defaults} (those of {@link ListenerSettings#DEFAULTS} until
 * changed), then each {@link EndpointCustomizer}, then the endpoint's own settings.
 */
public class DelayListenerContainerFactory {

	private final DelayQueueEngine engine;

	private final List<EndpointCustomizer> customizers = new ArrayList<>();

	private final ListenerSettings.Builder settings = ListenerSettings.builder();

	private final List<DelayMessageInterceptor> interceptors = new ArrayList<>();

	private final List<DelayBatchInterceptor> batchInterceptors = new ArrayList<>();

	/**
	 * Creates a factory for containers of an engine.
	 * @param engine the engine
	 */
	public DelayListenerContainerFactory(DelayQueueEngine engine) {
		this.engine = Objects.requireNonNull(engine, "Engine must not be null");
	}

	/**
	 * Returns the engine the containers run on.
	 * @return the engine
	 */
	public DelayQueueEngine getEngine() {
		return this.engine;
	}

	/**
	 * Adds a customizer run on every endpoint before its container is built.
	 * @param customizer the customizer
	 */
	public void addEndpointCustomizer(EndpointCustomizer customizer) {
		this.customizers.add(Objects.requireNonNull(customizer, "Customizer must not be null"));
	}

	/**
	 * Adds an interceptor around the handler of every container of one message at a time
	 * this factory creates (batch listeners take {@link #addBatchInterceptor batch
	 * interceptors}).
	 * @param interceptor the interceptor
	 */
	public void addInterceptor(DelayMessageInterceptor interceptor) {
		this.interceptors.add(Objects.requireNonNull(interceptor, "Interceptor must not be null"));
	}

	/**
	 * Adds an interceptor around the handler of every batch listener's container this
	 * factory creates.
	 * @param interceptor the interceptor
	 */
	public void addBatchInterceptor(DelayBatchInterceptor interceptor) {
		this.batchInterceptors.add(Objects.requireNonNull(interceptor, "Interceptor must not be null"));
	}

	/**
	 * Returns the defaults of the containers this factory creates, to change them (a
	 * Spring Boot application's are set from {@code delayqueue.listener.*} by
	 * {@code DelayListenerContainerFactoryConfigurer}).
	 * @return the defaults
	 */
	public ListenerSettings.Builder getSettings() {
		return this.settings;
	}

	/**
	 * Builds the (unstarted) container of an endpoint: the endpoint's settings over the
	 * customizers' over this factory's defaults.
	 * @param endpoint the endpoint
	 * @return the container
	 * @throws IllegalArgumentException when a setting is invalid
	 */
	public DelayQueueListenerContainer createContainer(DelayListenerEndpoint endpoint) {
		DelayQueueListenerContainer.Builder<Object> builder = (endpoint.isBatch()
				? this.engine.batchListenerContainer(endpoint.getQueue(), endpoint.getGroup(), Object.class,
						endpoint.getBatchHandler())
				: this.engine.listenerContainer(endpoint.getQueue(), endpoint.getGroup(), Object.class,
						endpoint.getHandler()))
			.payloadType(endpoint.getPayloadType())
			.from(this.settings);
		this.customizers.forEach((customizer) -> customizer.customize(endpoint, builder));
		if (endpoint.isBatch()) {
			this.batchInterceptors.forEach(builder::addBatchInterceptor);
			endpoint.getBatchInterceptors().forEach(builder::addBatchInterceptor);
		}
		else {
			this.interceptors.forEach(builder::addInterceptor);
			endpoint.getInterceptors().forEach(builder::addInterceptor);
		}
		return builder.apply(endpoint.getSettings()).build();
	}

}
