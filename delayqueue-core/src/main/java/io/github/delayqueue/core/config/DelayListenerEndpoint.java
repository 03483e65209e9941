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

import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

import io.github.delayqueue.core.listener.DelayBatchHandler;
import io.github.delayqueue.core.listener.DelayBatchInterceptor;
import io.github.delayqueue.core.listener.DelayMessageInterceptor;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.ListenerSetters;
import io.github.delayqueue.core.listener.ListenerSettings;

/**
 * What a listener container is built from: the queue and group, the handler, the payload
 * type, and settings that override the {@link DelayListenerContainerFactory}'s defaults.
 * <p>
 * Settings ({@link ListenerSettings}) are applied in order, each over the one before: the
 * factory's defaults, then its {@link EndpointCustomizer customizers} (e.g. Spring Boot's
 * {@code delayqueue.queues.<name>.*} properties), then this endpoint's own (the
 * {@code @DelayListener} annotation's attributes).
 */
public final class DelayListenerEndpoint {

	private final String id;

	private final String queue;

	private final String group;

	private final Type payloadType;

	private final DelayMessageHandler<Object> handler;

	private final DelayBatchHandler<Object> batchHandler;

	private final String description;

	private Consumer<ListenerSetters<?>> settings = (settings) -> {
	};

	private final List<DelayMessageInterceptor> interceptors = new ArrayList<>();

	private final List<DelayBatchInterceptor> batchInterceptors = new ArrayList<>();

	/**
	 * Creates an endpoint.
	 * @param id the id of its container in the {@link DelayListenerEndpointRegistry}
	 * @param queue the queue
	 * @param group the consumer group
	 * @param payloadType the type payloads are decoded to
	 * @param handler the handler
	 * @param description what declared it, for error messages (e.g. the method)
	 */
	public DelayListenerEndpoint(String id, String queue, String group, Type payloadType,
			DelayMessageHandler<Object> handler, String description) {
		this(id, queue, group, payloadType, Objects.requireNonNull(handler, "Handler must not be null"), null,
				description);
	}

	/** Either handler is {@code null}: the other is the endpoint's. */
	private DelayListenerEndpoint(String id, String queue, String group, Type payloadType,
			DelayMessageHandler<Object> handler, DelayBatchHandler<Object> batchHandler, String description) {
		this.id = Objects.requireNonNull(id, "Id must not be null");
		this.queue = Objects.requireNonNull(queue, "Queue must not be null");
		this.group = Objects.requireNonNull(group, "Group must not be null");
		this.payloadType = Objects.requireNonNull(payloadType, "Payload type must not be null");
		this.handler = handler;
		this.batchHandler = batchHandler;
		this.description = Objects.requireNonNull(description, "Description must not be null");
	}

	/**
	 * Creates the endpoint of a batch listener.
	 * @param id the id of its container in the {@link DelayListenerEndpointRegistry}
	 * @param queue the queue
	 * @param group the consumer group
	 * @param payloadType the type each payload is decoded to
	 * @param handler the batch handler
	 * @param description what declared it, for error messages (e.g. the method)
	 * @return the endpoint
	 */
	public static DelayListenerEndpoint batch(String id, String queue, String group, Type payloadType,
			DelayBatchHandler<Object> handler, String description) {
		return new DelayListenerEndpoint(id, queue, group, payloadType, null,
				Objects.requireNonNull(handler, "Batch handler must not be null"), description);
	}

	public String getId() {
		return this.id;
	}

	public String getQueue() {
		return this.queue;
	}

	public String getGroup() {
		return this.group;
	}

	public Type getPayloadType() {
		return this.payloadType;
	}

	/**
	 * @return the handler of one message at a time, {@code null} for a batch listener
	 */
	public DelayMessageHandler<Object> getHandler() {
		return this.handler;
	}

	/**
	 * @return the batch handler, {@code null} unless this is a batch listener
	 */
	public DelayBatchHandler<Object> getBatchHandler() {
		return this.batchHandler;
	}

	/**
	 * @return whether this is a batch listener
	 */
	public boolean isBatch() {
		return this.batchHandler != null;
	}

	public String getDescription() {
		return this.description;
	}

	/**
	 * Adds settings for this endpoint's container (e.g. the annotation's attributes).
	 * They are applied last, over the factory's defaults and its customizers.
	 * @param customizer sets some settings
	 */
	public void settings(Consumer<ListenerSetters<?>> customizer) {
		Objects.requireNonNull(customizer, "Customizer must not be null");
		this.settings = this.settings.andThen(customizer);
	}

	/**
	 * Adds an interceptor around this endpoint's handler, after the factory's.
	 * @param interceptor the interceptor
	 * @throws IllegalArgumentException when this is a batch listener (it takes
	 * {@link DelayBatchInterceptor}s)
	 */
	public void addInterceptor(DelayMessageInterceptor interceptor) {
		Objects.requireNonNull(interceptor, "Interceptor must not be null");
		if (isBatch()) {
			throw new IllegalArgumentException(this.description + " is a batch listener: it takes "
					+ "DelayBatchInterceptors, not the DelayMessageInterceptor " + interceptor);
		}
		this.interceptors.add(interceptor);
	}

	/**
	 * Adds an interceptor around this batch listener's handler, after the factory's.
	 * @param interceptor the interceptor
	 * @throws IllegalArgumentException when this is not a batch listener (it takes
	 * {@link DelayMessageInterceptor}s)
	 */
	public void addBatchInterceptor(DelayBatchInterceptor interceptor) {
		Objects.requireNonNull(interceptor, "Interceptor must not be null");
		if (!isBatch()) {
			throw new IllegalArgumentException(this.description + " handles one message at a time: it takes "
					+ "DelayMessageInterceptors, not the DelayBatchInterceptor " + interceptor);
		}
		this.batchInterceptors.add(interceptor);
	}

	/**
	 * @return the interceptors added to this endpoint
	 */
	public List<DelayMessageInterceptor> getInterceptors() {
		return List.copyOf(this.interceptors);
	}

	/**
	 * @return the batch interceptors added to this endpoint
	 */
	public List<DelayBatchInterceptor> getBatchInterceptors() {
		return List.copyOf(this.batchInterceptors);
	}

	/**
	 * @return the settings of this endpoint, applied after the factory's
	 */
	public Consumer<ListenerSetters<?>> getSettings() {
		return this.settings;
	}

	@Override
	public String toString() {
		return "DelayListenerEndpoint[id=" + this.id + ", queue=" + this.queue + ", group=" + this.group + ", "
				+ this.description + "]";
	}

}
