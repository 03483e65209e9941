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

import java.util.concurrent.Executor;
import java.util.function.Consumer;

import javax.sql.DataSource;

import io.github.delayqueue.core.internal.InputText;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueEngineBuilder;
import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.Durability;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.annotation.DelayListenerBeanDefinitionRegistrar;
import io.github.delayqueue.core.annotation.EnableDelayListeners;
import io.github.delayqueue.core.codec.JsonMessageCodec;
import io.github.delayqueue.core.event.DelayQueueEventListener;
import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.config.DelayListenerContainerFactory;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.core.observation.DelayQueueObservations;
import io.github.delayqueue.core.observation.DelayQueueProcessObservationConvention;
import io.github.delayqueue.core.observation.DelayQueueSendObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.thread.Threading;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for delayqueue: the engine on the application's
 * {@link RedisConnectionFactory}, the {@link DelayQueueTemplate}, the payload codec (JSON
 * through the application's {@link JsonMapper} when there is one) and the default
 * {@link RetryPolicy}, the {@link DelayListenerContainerFactory} that
 * {@code @DelayListener} methods use (with {@code delayqueue.listener.*} defaults and
 * {@code delayqueue.queues.<name>.*} overrides), and virtual-thread workers when
 * {@code spring.threads.virtual.enabled=true}. Every bean backs off when the application
 * defines its own.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(DelayQueueEngine.class)
@ConditionalOnSingleCandidate(RedisConnectionFactory.class)
@EnableConfigurationProperties(DelayQueueProperties.class)
public final class DelayQueueAutoConfiguration {

	/**
	 * The bean name of the {@link Executor} listener workers run on, when there is one
	 * (with {@code spring.threads.virtual.enabled=true}, a virtual-thread executor).
	 */
	public static final String LISTENER_EXECUTOR_BEAN_NAME = "delayQueueListenerExecutor";

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	DelayQueueEngine delayQueueEngine(RedisConnectionFactory connectionFactory, DelayQueueProperties properties,
			ObjectProvider<MessageCodec> codec, ObjectProvider<DelayQueueObserver> observers,
			ObjectProvider<ObservationRegistry> observationRegistry, ObjectProvider<DataSource> dataSources,
			ObjectProvider<DelayQueueSendObservationConvention> sendConvention,
			ObjectProvider<DelayQueueProcessObservationConvention> processConvention,
			ObjectProvider<DelayQueueEventListener> eventListeners, ApplicationEventPublisher events) {
		DelayQueueEngineBuilder builder = DelayQueueEngine.builder(connectionFactory)
			.keyPrefix(properties.getKeyPrefix())
			.maxPayloadSize((int) properties.getMaxPayloadSize().toBytes())
			.maxHeadersSize((int) properties.getMaxHeadersSize().toBytes())
			.schedulerMaxIdle(properties.getScheduler().getMaxIdle())
			.operationTimeout(properties.getOperationTimeout())
			.sendBatchSize(properties.getSendBatchSize())
			.promoteBatchSize(properties.getScheduler().getBatchSize())
			.compactAfter(properties.getScheduler().getCompactAfter())
			.compactMinimum(properties.getScheduler().getCompactMinimum());
		// queue settings, not settings of every listener
		ListenerProperties every = properties.getListener();
		refuseForEveryListener("partitions", every.getPartitions(), "for the queue to partition");
		refuseForEveryListener("paused", every.getPaused(), "for the queue to pause at start-up");
		refuseForEveryListener("fair-share", every.getFairShare(), "for the queue to share fairly between keys");
		refuseForEveryListener("expire-after", every.getExpireAfter(), "for the queue whose messages expire");
		refuseForEveryListener("size-limit", every.getSizeLimit(), "for the queue to limit");
		refuseForEveryListener("rate-limit", every.getRateLimit(), "for the queue to limit");
		refuseForEveryListener("concurrency-limit", every.getConcurrencyLimit(), "for the queue to limit");
		properties.getQueues().forEach((queue, settings) -> {
			declare(queue, "rate-limit", settings.getRateLimit(),
					(limit) -> builder.rateLimit(queue, RateLimit.parse(limit)));
			declare(queue, "concurrency-limit", settings.getConcurrencyLimit(), (limit) -> builder.queue(queue,
					(declared) -> declared.concurrencyLimit(ConcurrencyLimit.parse(limit))));
			declare(queue, "size-limit", settings.getSizeLimit(), (limit) -> builder.sizeLimit(queue, limit));
			declare(queue, "expire-after", settings.getExpireAfter(), (after) -> builder.expireAfter(queue, after));
			declare(queue, "paused", Boolean.TRUE.equals(settings.getPaused()) ? Boolean.TRUE : null,
					(paused) -> builder.pausedAtStartup(queue));
			declare(queue, "partitions", settings.getPartitions(), (count) -> builder.partitions(queue, count));
			declare(queue, "fair-share", Boolean.TRUE.equals(settings.getFairShare()) ? Boolean.TRUE : null,
					(fair) -> builder.fairShare(queue));
		});
		DelayQueueProperties.DurableSend durable = properties.getDurableSend();
		if (durable.getReplicas() > 0 || durable.isLocalAof()) {
			builder.sendDurability(new Durability(durable.getReplicas(), durable.isLocalAof(), durable.getTimeout()));
		}
		builder.sendAfterCommit(properties.getSend().isAfterCommit());
		outbox(builder, properties.getOutbox(), dataSources);
		if (properties.getObservation().isEnabled()) {
			observationRegistry.ifAvailable((registry) -> builder
				.observations(new DelayQueueObservations(registry, sendConvention.getIfUnique(),
						processConvention.getIfUnique(), properties.getObservation().isLegacyKeyValues())));
		}
		codec.ifAvailable(builder::codec);
		// looked up at the first report: an observer may depend on the template or admin
		builder.observer(new BeanObservers(observers));
		// container events to the listener beans and as application events
		// (@EventListener)
		builder.eventListener(new ApplicationEventBridge(events, eventListeners));
		return builder.build();
	}

	@Bean
	@ConditionalOnMissingBean
	DelayQueueTemplate delayQueueTemplate(DelayQueueEngine engine) {
		return engine.template();
	}

	@Bean
	@ConditionalOnMissingBean
	DelayQueueAdmin delayQueueAdmin(DelayQueueEngine engine) {
		return engine.admin();
	}

	@Bean
	@ConditionalOnMissingBean
	DelayListenerContainerFactoryConfigurer delayListenerContainerFactoryConfigurer(DelayQueueProperties properties,
			ObjectProvider<RetryPolicy> retryPolicy,
			@Qualifier(LISTENER_EXECUTOR_BEAN_NAME) ObjectProvider<Executor> executor) {
		return new DelayListenerContainerFactoryConfigurer(properties, retryPolicy.getIfUnique(),
				executor.getIfAvailable());
	}

	@Bean(name = DelayListenerBeanDefinitionRegistrar.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
	@ConditionalOnMissingBean(name = DelayListenerBeanDefinitionRegistrar.DEFAULT_CONTAINER_FACTORY_BEAN_NAME)
	DelayListenerContainerFactory delayListenerContainerFactory(DelayQueueEngine engine,
			DelayListenerContainerFactoryConfigurer configurer) {
		DelayListenerContainerFactory factory = new DelayListenerContainerFactory(engine);
		configurer.configure(factory);
		return factory;
	}

	@Bean
	@ConditionalOnProperty(name = "delayqueue.server-check.enabled", havingValue = "true", matchIfMissing = true)
	DelayQueueServerCheck delayQueueServerCheck(DelayQueueEngine engine, DelayQueueProperties properties) {
		return new DelayQueueServerCheck(engine, properties.getServerCheck().isFailOnEviction());
	}

	@Bean
	QueuePropertiesCheck delayQueuePropertiesCheck(DelayQueueProperties properties, DelayQueueEngine engine,
			ObjectProvider<DelayListenerEndpointRegistry> listeners) {
		return new QueuePropertiesCheck(properties, engine, listeners);
	}

	@Bean
	ScheduleDeclarations delayQueueScheduleDeclarations(DelayQueueProperties properties, DelayQueueEngine engine) {
		return new ScheduleDeclarations(properties, engine);
	}

	@Bean
	RedissonMigrationRunner delayQueueRedissonMigration(DelayQueueEngine engine, DelayQueueProperties properties) {
		return new RedissonMigrationRunner(engine, properties.getMigration().getRedisson());
	}

	@Configuration(proxyBeanMethods = false)
	@EnableDelayListeners
	static class EnableDelayListenersConfiguration {

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnThreading(Threading.VIRTUAL)
	static class VirtualThreadsConfiguration {

		@Bean(name = LISTENER_EXECUTOR_BEAN_NAME)
		@ConditionalOnMissingBean(name = LISTENER_EXECUTOR_BEAN_NAME)
		SimpleAsyncTaskExecutor delayQueueListenerExecutor() {
			SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("delayqueue-worker-");
			executor.setVirtualThreads(true);
			return executor;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(JsonMapper.class)
	static class JsonCodecConfiguration {

		@Bean
		@ConditionalOnMissingBean
		MessageCodec delayQueueMessageCodec(DelayQueueProperties properties, ObjectProvider<JsonMapper> jsonMapper,
				ApplicationContext context) {
			DelayQueueProperties.JsonMapperChoice choice = properties.getJsonMapper();
			boolean jackson2 = choice == DelayQueueProperties.JsonMapperChoice.JACKSON2
					|| (choice == DelayQueueProperties.JsonMapperChoice.AUTO && jsonMapper.getIfAvailable() == null
							&& Jackson2Codec.applicationDefinesOne(context, context.getClassLoader()));
			if (jackson2) {
				return Jackson2Codec.create(context, context.getClassLoader());
			}
			return new JsonMessageCodec(jsonMapper.getIfAvailable(() -> JsonMapper.builder().build()));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnMissingClass("tools.jackson.databind.json.JsonMapper")
	@ConditionalOnClass(name = Jackson2Codec.OBJECT_MAPPER)
	static class Jackson2CodecConfiguration {

		@Bean
		@ConditionalOnMissingBean
		MessageCodec delayQueueMessageCodec(ApplicationContext context) {
			return Jackson2Codec.create(context, context.getClassLoader());
		}

	}

	/**
	 * With {@code delayqueue.outbox.enabled}: the outbox on the application's DataSource,
	 * used by every send inside one of its transactions.
	 */
	private static void outbox(DelayQueueEngineBuilder builder, DelayQueueProperties.Outbox outbox,
			ObjectProvider<DataSource> dataSources) {
		if (!outbox.isEnabled()) {
			return;
		}
		if (!ClassUtils.isPresent("org.springframework.jdbc.core.JdbcTemplate",
				DelayQueueAutoConfiguration.class.getClassLoader())) {
			throw new IllegalStateException("delayqueue.outbox.enabled=true needs spring-jdbc on the class path "
					+ "(spring-boot-starter-jdbc or spring-boot-starter-data-jpa)");
		}
		DataSource dataSource = dataSources.getIfUnique();
		if (dataSource == null) {
			throw new IllegalStateException("delayqueue.outbox.enabled=true needs one DataSource bean (the one of the "
					+ "application's transactions), but there is " + (dataSources.stream().count() == 0 ? "none"
							: "more than one: build the DelayQueueEngine bean with DelayQueueEngineBuilder.outbox"));
		}
		try {
			builder.outbox(dataSource,
					(declared) -> declared.table(outbox.getTable())
						.initializeSchema(outbox.isInitializeSchema())
						.pollInterval(outbox.getPollInterval())
						.batchSize(outbox.getBatchSize())
						.relayWorkers(outbox.getRelayWorkers())
						.sendThroughOutbox(true));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException("delayqueue.outbox: " + ex.getMessage());
		}
	}

	private static void refuseForEveryListener(String key, Object value, String purpose) {
		if (value != null) {
			throw new IllegalStateException("delayqueue.listener." + key + " is not a setting of every listener: "
					+ "set delayqueue.queues.<name>." + key + " " + purpose);
		}
	}

	/**
	 * Applies a queue's property to the engine builder; bad input fails the start-up
	 * naming the property (the builder's message says the value and the range).
	 */
	private static <T> void declare(String queue, String key, T value, Consumer<T> apply) {
		if (value != null) {
			try {
				apply.accept(value);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalStateException(
						"delayqueue.queues." + InputText.abbreviate(queue) + "." + key + ": " + ex.getMessage());
			}
		}
	}

}
