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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

import io.github.delayqueue.core.internal.InputText;
import io.github.delayqueue.core.config.DelayListenerContainerFactory;
import io.github.delayqueue.core.listener.ListenerSetters;
import io.github.delayqueue.core.listener.ListenerSettings;
import io.github.delayqueue.core.listener.RetryPolicy;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * Configures a {@link DelayListenerContainerFactory} from the {@code delayqueue.*}
 * properties: {@code delayqueue.listener.*} as the factory's defaults, and
 * {@code delayqueue.queues.<name>.*} over them for that queue's listeners. An application
 * that defines its own factory calls {@link #configure} to get the same settings:
 *
 * <pre class="code">
 * &#64;Bean
 * DelayListenerContainerFactory slowFactory(DelayQueueEngine engine, DelayListenerContainerFactoryConfigurer configurer) {
 *     DelayListenerContainerFactory factory = new DelayListenerContainerFactory(engine);
 *     configurer.configure(factory);
 *     factory.getSettings().concurrency(1);
 *     return factory;
 * }
 * </pre>
 *
 * An invalid value fails with a message naming its property.
 */
public class DelayListenerContainerFactoryConfigurer {

	/** Below Spring Boot's spring.lifecycle.timeout-per-shutdown-phase (30 s). */
	static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(25);

	private final DelayQueueProperties properties;

	private final @Nullable RetryPolicy retryPolicy;

	private final @Nullable Executor executor;

	/**
	 * Creates a configurer.
	 * @param properties the properties
	 * @param retryPolicy the application's retry policy bean, applied under the
	 * properties, or {@code null}
	 * @param executor the workers' executor (virtual threads), or {@code null}
	 */
	public DelayListenerContainerFactoryConfigurer(DelayQueueProperties properties, @Nullable RetryPolicy retryPolicy,
			@Nullable Executor executor) {
		this.properties = properties;
		this.retryPolicy = retryPolicy;
		this.executor = executor;
	}

	/**
	 * Applies the properties to a factory.
	 * @param factory the factory
	 */
	@SuppressWarnings("deprecation")
	public void configure(DelayListenerContainerFactory factory) {
		ListenerSettings.Builder settings = factory.getSettings();
		settings.shutdownTimeout(SHUTDOWN_TIMEOUT);
		if (this.retryPolicy != null) {
			settings.retryPolicy(this.retryPolicy);
		}
		if (this.executor != null) {
			settings.executor(this.executor);
		}
		Mapper legacy = new Mapper("delayqueue", settings);
		ListenerProperties.Retry retry = this.properties.getRetry();
		legacy.map("retry.max-attempts", retry.getMaxAttempts(), settings::maxAttempts);
		legacy.map("retry.initial-backoff", retry.getInitialBackoff(), settings::initialBackoff);
		legacy.map("retry.multiplier", retry.getMultiplier(), settings::backoffMultiplier);
		legacy.map("retry.max-backoff", retry.getMaxBackoff(), settings::maxBackoff);
		legacy.map("retry.jitter", retry.getJitter(), settings::jitter);
		legacy.map("dead-letter.retention", this.properties.getDeadLetter().getRetention(),
				settings::deadLetterRetention);
		apply(this.properties.getListener(), new Mapper("delayqueue.listener", settings));
		factory.addEndpointCustomizer((endpoint, queueSettings) -> {
			ListenerProperties queue = this.properties.getQueues().get(endpoint.getQueue());
			if (queue != null) {
				apply(queue, new Mapper("delayqueue.queues." + endpoint.getQueue(), queueSettings));
			}
		});
	}

	@SuppressWarnings("deprecation")
	private static void apply(ListenerProperties source, Mapper map) {
		ListenerSetters<?> settings = map.settings;
		map.map("concurrency", source.getConcurrency(), settings::concurrency);
		map.map("prefetch", source.getPrefetch(), settings::prefetch);
		map.map("visibility-timeout", source.getVisibilityTimeout(), settings::visibilityTimeout);
		map.map("lease-renewal-limit", source.getLeaseRenewalLimit(), settings::leaseRenewalLimit);
		map.map("poll-timeout", source.getPollTimeout(), settings::pollTimeout);
		map.map("shutdown-timeout", source.getShutdownTimeout(), settings::shutdownTimeout);
		map.map("trim-interval", source.getTrimInterval(), settings::trimInterval);
		map.map("dead-letter.retention", source.getDeadLetter().getRetention(), settings::deadLetterRetention);
		map.map("dead-letter-retention", source.getDeadLetterRetention(), settings::deadLetterRetention);
		map.map("stale-consumer-timeout", source.getStaleConsumerTimeout(), settings::staleConsumerTimeout);
		map.map("auto-startup", source.getAutoStartup(), settings::autoStartup);
		map.map("exclusive", source.getExclusive(), settings::exclusive);
		map.map("ordered", source.getOrdered(), settings::ordered);
		map.map("blocking-retries", source.getBlockingRetries(), settings::blockingRetries);
		map.map("discard-expired", source.getDiscardExpired(), settings::discardExpired);
		map.map("max-snoozes", source.getMaxSnoozes(), settings::maxSnoozes);
		map.map("batch-size", source.getBatchSize(), settings::batchSize);
		map.map("batch-wait", source.getBatchWait(), settings::batchWait);
		map.map("idle-event-interval", source.getIdleEventInterval(), settings::idleEventInterval);
		map.map("max-attempts", source.getMaxAttempts(), settings::maxAttempts);
		ListenerProperties.Retry retry = source.getRetry();
		map.map("retry.max-attempts", retry.getMaxAttempts(), settings::maxAttempts);
		map.map("retry.initial-backoff", retry.getInitialBackoff(), settings::initialBackoff);
		map.map("retry.multiplier", retry.getMultiplier(), settings::backoffMultiplier);
		map.map("retry.max-backoff", retry.getMaxBackoff(), settings::maxBackoff);
		map.map("retry.jitter", retry.getJitter(), settings::jitter);
		map.map("retry.non-retryable", retry.getNonRetryable(),
				(names) -> settings.nonRetryable(throwableTypes(names)));
		map.validate();
	}

	/**
	 * Resolves exception class names.
	 * @throws IllegalArgumentException naming a class that is missing or not a Throwable
	 */
	static List<Class<? extends Throwable>> throwableTypes(List<String> names) {
		List<Class<? extends Throwable>> types = new ArrayList<>();
		for (String name : names) {
			Class<?> type;
			try {
				type = ClassUtils.forName(name.strip(), DelayListenerContainerFactoryConfigurer.class.getClassLoader());
			}
			catch (ClassNotFoundException | LinkageError ex) {
				throw new IllegalArgumentException("class " + InputText.quote(name) + " not found");
			}
			if (!Throwable.class.isAssignableFrom(type)) {
				throw new IllegalArgumentException(InputText.quote(name) + " is not a Throwable");
			}
			types.add(type.asSubclass(Throwable.class));
		}
		return types;
	}

	/** Sets what is set, naming the property when a value is refused. */
	private static final class Mapper {

		private final String prefix;

		private final ListenerSetters<?> settings;

		Mapper(String prefix, ListenerSetters<?> settings) {
			this.prefix = prefix;
			this.settings = settings;
		}

		<T> void map(String key, @Nullable T value, Consumer<T> setter) {
			if (value == null) {
				return;
			}
			try {
				setter.accept(value);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException(this.prefix + "." + key + ": " + ex.getMessage(), ex);
			}
		}

		/**
		 * The retry settings are checked together, and blocking retries with ordering:
		 * name the property or group of properties.
		 */
		void validate() {
			try {
				ListenerSettings.builder().from(this.settings).build();
			}
			catch (IllegalArgumentException ex) {
				String key = ex.getMessage().startsWith("Blocking retries") ? "blocking-retries" : "retry";
				throw new IllegalArgumentException(this.prefix + "." + key + ": " + ex.getMessage(), ex);
			}
		}

	}

}
