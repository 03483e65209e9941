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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;

/**
 * Builds a {@link DelayQueueListenerContainer} for each {@link DelayListenerEndpoint},
 * from defaults that apply wherever the endpoint sets nothing. The defaults are those of
 * {@link DelayQueueListenerContainer.Builder} until set here.
 */
public class DelayListenerContainerFactory {

	private final DelayQueueEngine engine;

	private final List<EndpointCustomizer> customizers = new ArrayList<>();

	private Integer concurrency;

	private Integer prefetch;

	private Duration visibilityTimeout;

	private Duration leaseRenewalLimit;

	private Duration pollTimeout;

	private Duration shutdownTimeout;

	private Duration trimInterval;

	private Duration deadLetterRetention;

	private RetryPolicy retryPolicy = RetryPolicy.DEFAULT;

	private Executor executor;

	private boolean autoStartup = true;

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

	public void setConcurrency(Integer concurrency) {
		this.concurrency = concurrency;
	}

	public void setPrefetch(Integer prefetch) {
		this.prefetch = prefetch;
	}

	public void setVisibilityTimeout(Duration visibilityTimeout) {
		this.visibilityTimeout = visibilityTimeout;
	}

	public void setLeaseRenewalLimit(Duration leaseRenewalLimit) {
		this.leaseRenewalLimit = leaseRenewalLimit;
	}

	public void setPollTimeout(Duration pollTimeout) {
		this.pollTimeout = pollTimeout;
	}

	public void setShutdownTimeout(Duration shutdownTimeout) {
		this.shutdownTimeout = shutdownTimeout;
	}

	public void setTrimInterval(Duration trimInterval) {
		this.trimInterval = trimInterval;
	}

	public void setDeadLetterRetention(Duration deadLetterRetention) {
		this.deadLetterRetention = deadLetterRetention;
	}

	/**
	 * Sets the default retry policy (default {@link RetryPolicy#DEFAULT}); endpoints may
	 * override its attempts and backoff.
	 * @param retryPolicy the policy
	 */
	public void setRetryPolicy(RetryPolicy retryPolicy) {
		this.retryPolicy = Objects.requireNonNull(retryPolicy, "Retry policy must not be null");
	}

	/**
	 * Sets the executor the containers' workers run on (default: each container's own
	 * platform threads), e.g. a virtual-thread executor.
	 * @param executor the executor
	 */
	public void setExecutor(Executor executor) {
		this.executor = executor;
	}

	public void setAutoStartup(boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	/**
	 * Builds the (unstarted) container of an endpoint: the endpoint's settings over the
	 * customizers' over this factory's defaults.
	 * @param endpoint the endpoint
	 * @return the container
	 * @throws IllegalArgumentException when a setting is invalid
	 */
	public DelayQueueListenerContainer createContainer(DelayListenerEndpoint endpoint) {
		this.customizers.forEach((customizer) -> customizer.customize(endpoint));
		DelayQueueListenerContainer.Builder<Object> builder = this.engine
			.listenerContainer(endpoint.getQueue(), endpoint.getGroup(), Object.class, endpoint.getHandler())
			.payloadType(endpoint.getPayloadType())
			.retryPolicy(retryPolicy(endpoint));
		set(first(endpoint.getConcurrency(), this.concurrency), builder::concurrency);
		set(this.prefetch, builder::prefetch);
		set(first(endpoint.getVisibilityTimeout(), this.visibilityTimeout), builder::visibilityTimeout);
		set(this.leaseRenewalLimit, builder::leaseRenewalLimit);
		set(this.pollTimeout, builder::pollTimeout);
		set(this.shutdownTimeout, builder::shutdownTimeout);
		set(this.trimInterval, builder::trimInterval);
		set(first(endpoint.getDeadLetterRetention(), this.deadLetterRetention), builder::deadLetterRetention);
		set(this.executor, builder::executor);
		builder.autoStartup(first(endpoint.getAutoStartup(), this.autoStartup));
		return builder.build();
	}

	private RetryPolicy retryPolicy(DelayListenerEndpoint endpoint) {
		RetryPolicy defaults = this.retryPolicy;
		return new RetryPolicy(first(endpoint.getMaxAttempts(), defaults.maxAttempts()),
				first(endpoint.getInitialBackoff(), defaults.initialBackoff()),
				first(endpoint.getBackoffMultiplier(), defaults.multiplier()),
				first(endpoint.getMaxBackoff(), defaults.maxBackoff()), first(endpoint.getJitter(), defaults.jitter()),
				defaults.nonRetryable());
	}

	private static <T> T first(T value, T fallback) {
		return (value != null) ? value : fallback;
	}

	private static <T> void set(T value, Consumer<T> setter) {
		if (value != null) {
			setter.accept(value);
		}
	}

}
