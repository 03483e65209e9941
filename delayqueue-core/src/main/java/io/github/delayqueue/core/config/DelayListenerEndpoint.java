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
import java.time.Duration;
import java.util.Objects;

import io.github.delayqueue.core.listener.DelayMessageHandler;

/**
 * What a listener container is built from: the queue and group, the handler, the payload
 * type, and settings that override the {@link DelayListenerContainerFactory}'s defaults.
 * A {@code null} setting means "not set here": the factory's default applies.
 * <p>
 * Settings are filled in order of precedence: the {@code @DelayListener} annotation
 * first, then {@link EndpointCustomizer customizers} (e.g. Spring Boot's
 * {@code delayqueue.queues.<name>.*} properties) fill what is still unset, then the
 * factory's defaults.
 */
public final class DelayListenerEndpoint {

	private final String id;

	private final String queue;

	private final String group;

	private final Type payloadType;

	private final DelayMessageHandler<Object> handler;

	private final String description;

	private Integer concurrency;

	private Integer maxAttempts;

	private Duration initialBackoff;

	private Double backoffMultiplier;

	private Duration maxBackoff;

	private Double jitter;

	private Duration visibilityTimeout;

	private Duration deadLetterRetention;

	private Boolean autoStartup;

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
		this.id = Objects.requireNonNull(id, "Id must not be null");
		this.queue = Objects.requireNonNull(queue, "Queue must not be null");
		this.group = Objects.requireNonNull(group, "Group must not be null");
		this.payloadType = Objects.requireNonNull(payloadType, "Payload type must not be null");
		this.handler = Objects.requireNonNull(handler, "Handler must not be null");
		this.description = Objects.requireNonNull(description, "Description must not be null");
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

	public DelayMessageHandler<Object> getHandler() {
		return this.handler;
	}

	public String getDescription() {
		return this.description;
	}

	public Integer getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(Integer concurrency) {
		this.concurrency = concurrency;
	}

	public Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	public void setMaxAttempts(Integer maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	public Duration getInitialBackoff() {
		return this.initialBackoff;
	}

	public void setInitialBackoff(Duration initialBackoff) {
		this.initialBackoff = initialBackoff;
	}

	public Double getBackoffMultiplier() {
		return this.backoffMultiplier;
	}

	public void setBackoffMultiplier(Double backoffMultiplier) {
		this.backoffMultiplier = backoffMultiplier;
	}

	public Duration getMaxBackoff() {
		return this.maxBackoff;
	}

	public void setMaxBackoff(Duration maxBackoff) {
		this.maxBackoff = maxBackoff;
	}

	public Double getJitter() {
		return this.jitter;
	}

	public void setJitter(Double jitter) {
		this.jitter = jitter;
	}

	public Duration getVisibilityTimeout() {
		return this.visibilityTimeout;
	}

	public void setVisibilityTimeout(Duration visibilityTimeout) {
		this.visibilityTimeout = visibilityTimeout;
	}

	public Duration getDeadLetterRetention() {
		return this.deadLetterRetention;
	}

	public void setDeadLetterRetention(Duration deadLetterRetention) {
		this.deadLetterRetention = deadLetterRetention;
	}

	public Boolean getAutoStartup() {
		return this.autoStartup;
	}

	public void setAutoStartup(Boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	@Override
	public String toString() {
		return "DelayListenerEndpoint[id=" + this.id + ", queue=" + this.queue + ", group=" + this.group + ", "
				+ this.description + "]";
	}

}
