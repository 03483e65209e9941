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

package io.github.delayqueue.core;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.Executor;

import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.listener.DeadLetterConsumer;
import io.github.delayqueue.core.listener.DeadLetterHandler;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.DelayBatchHandler;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.EngineParts;
import io.github.delayqueue.core.internal.EngineSettings;
import io.github.delayqueue.core.internal.outbox.OutboxSettings;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The delay-queue engine on one {@link RedisConnectionFactory}: settings shared by the
 * {@link #template() template}, the {@link #listenerContainer listener containers} and
 * the {@link #admin() admin operations}, plus one scheduler per consumed queue. Usable
 * from plain Java or Spring without Spring Boot:
 *
 * <pre class="code">
 * DelayQueueEngine engine = DelayQueueEngine.builder(connectionFactory).keyPrefix("dq").build();
 * engine.template().send("order-timeout", new OrderTimeout(42), Duration.ofMinutes(30));
 * DelayQueueListenerContainer container = engine.listenerContainer("order-timeout", "orders",
 *         OrderTimeout.class, (payload, context) -&gt; cancel(payload)).concurrency(8).build();
 * container.start();
 * </pre>
 *
 * {@link #close()} stops the schedulers and the engine's threads; containers are stopped
 * by their owner (or the Spring context).
 */
public final class DelayQueueEngine implements AutoCloseable {

	private final EngineSettings settings;

	private final EngineParts parts;

	private final DelayQueueTemplate template;

	private final DelayQueueAdmin admin;

	private final DelayQueueOutbox outbox;

	DelayQueueEngine(EngineSettings settings) {
		OutboxSettings outbox = settings.outbox();
		this.settings = settings;
		this.parts = new EngineParts(settings, (queue) -> admin().schedules().registerDeclared(queue));
		this.template = new DelayQueueTemplate(this, this.parts.sends());
		this.admin = new DelayQueueAdmin(this.parts.admin(), new DelaySchedules(this.parts.sends(), this::keys));
		this.outbox = (outbox.dataSource() != null) ? new DelayQueueOutbox(this.template::sendPrepared, outbox, clock())
				: null;
		if (this.outbox != null) {
			this.outbox.start();
		}
	}

	/**
	 * Returns the engine's transactional outbox ({@link DelayQueueEngineBuilder#outbox}).
	 * @return the outbox
	 * @throws IllegalStateException when the engine has none
	 */
	public DelayQueueOutbox outbox() {
		if (this.outbox == null) {
			throw new IllegalStateException(
					"The engine has no outbox: build it with DelayQueueEngineBuilder.outbox(dataSource)");
		}
		return this.outbox;
	}

	/**
	 * Whether the engine has a transactional outbox
	 * ({@link DelayQueueEngineBuilder#outbox}).
	 * @return whether it has
	 */
	public boolean hasOutbox() {
		return this.outbox != null;
	}

	/** The send path's settings, for what writes messages besides the template. */
	io.github.delayqueue.core.internal.send.SendContext sends() {
		return this.parts.sends();
	}

	DelayQueueOutbox outboxOrNull() {
		return this.outbox;
	}

	boolean sendThroughOutbox() {
		return this.settings.outbox().sendThroughOutbox();
	}

	/**
	 * Starts building an engine.
	 * @param connectionFactory the application's connection factory
	 * @return a builder
	 */
	public static DelayQueueEngineBuilder builder(RedisConnectionFactory connectionFactory) {
		return new DelayQueueEngineBuilder(connectionFactory);
	}

	/**
	 * Returns the producing operations.
	 * @return the template
	 */
	public DelayQueueTemplate template() {
		return this.template;
	}

	/**
	 * Returns the operations to inspect queues and manage dead letters.
	 * @return the admin operations
	 */
	public DelayQueueAdmin admin() {
		return this.admin;
	}

	/**
	 * Starts building a listener container for one (queue, group).
	 * @param queue the queue
	 * @param group the consumer group: each group receives every message once
	 * @param payloadType the type payloads are decoded to
	 * @param handler the handler: return = ack, throw = retry per policy
	 * @param <T> the payload type
	 * @return a builder
	 */
	public <T> DelayQueueListenerContainer.Builder<T> listenerContainer(String queue, String group,
			Class<T> payloadType, DelayMessageHandler<T> handler) {
		return DelayQueueListenerContainer.builder(this.parts.listeners(), queue, group, payloadType, handler);
	}

	/**
	 * Starts building the container of a batch listener: its handler takes up to
	 * {@code batchSize} messages of the queue per call (default 100), gathered for at
	 * most {@code batchWait} (default: none), and says which of them failed (see
	 * {@link io.github.delayqueue.core.listener.BatchFailedException}). Each message
	 * keeps its own lease, attempts, retries and dead letter.
	 * @param queue the queue
	 * @param group the consumer group
	 * @param payloadType the type payloads are decoded to
	 * @param handler the batch handler
	 * @param <T> the payload type
	 * @return a builder
	 */
	public <T> DelayQueueListenerContainer.Builder<T> batchListenerContainer(String queue, String group,
			Class<T> payloadType, DelayBatchHandler<T> handler) {
		return DelayQueueListenerContainer.batchBuilder(this.parts.listeners(), queue, group, payloadType, handler);
	}

	/**
	 * Creates a consumer of a queue's dead letters of one group, for the application to
	 * handle them (see {@link DeadLetterConsumer}); start it, or let a Spring context.
	 * @param queue the queue
	 * @param group the consumer group whose dead letters to handle
	 * @param handlerId names the handler: instances running the same handler share the
	 * dead letters, each other handler gets them all too
	 * @param payloadType the type payloads are decoded to
	 * @param handler the handler
	 * @param <T> the payload type
	 * @return the consumer, not started
	 */
	public <T> DeadLetterConsumer deadLetterConsumer(String queue, String group, String handlerId, Class<T> payloadType,
			DeadLetterHandler<T> handler) {
		return DeadLetterConsumer.create(this.parts.listeners(), queue, group, handlerId, payloadType, handler);
	}

	/**
	 * {@link #deadLetterConsumer(String, String, String, Class, DeadLetterHandler)} for a
	 * generic payload type (e.g. {@code List<Order>}).
	 * @param queue the queue
	 * @param group the consumer group whose dead letters to handle
	 * @param handlerId names the handler
	 * @param payloadType the type payloads are decoded to
	 * @param handler the handler
	 * @return the consumer, not started
	 */
	public DeadLetterConsumer deadLetterConsumer(String queue, String group, String handlerId,
			java.lang.reflect.Type payloadType, DeadLetterHandler<?> handler) {
		return DeadLetterConsumer.create(this.parts.listeners(), queue, group, handlerId, payloadType, handler);
	}

	/**
	 * Returns what every send waits for.
	 * @return the durability, or {@code null} when sends do not wait
	 */
	public Durability sendDurability() {
		return this.settings.sendDurability();
	}

	/**
	 * Returns whether sends inside a Spring transaction wait for its commit.
	 * @return whether they do
	 */
	public boolean sendAfterCommit() {
		return this.settings.sendAfterCommit();
	}

	/**
	 * Returns the registry the engine records observations in.
	 * @return the registry, {@code ObservationRegistry.NOOP} unless one was set
	 */
	public ObservationRegistry observationRegistry() {
		return this.settings.observations().registry();
	}

	/**
	 * Returns the keys of a queue, validating its name.
	 * @param queue the queue
	 * @return the keys
	 */
	public QueueKeys keys(String queue) {
		return new QueueKeys(keyPrefix(), queue);
	}

	/**
	 * Returns whether a queue is fair-share on this engine
	 * ({@link DelayQueueEngineBuilder#fairShare}).
	 * @param queue the queue
	 * @return whether it is
	 */
	public boolean isFairShare(String queue) {
		return this.parts.fairShare().contains(queue);
	}

	/**
	 * Returns how many partitions a queue has, as declared on this engine.
	 * @param queue the queue
	 * @return the partition count, 1 unless declared
	 */
	public int partitions(String queue) {
		return this.parts.layouts().partitions(queue);
	}

	/**
	 * Returns the keys of every partition of a queue that holds messages: its current
	 * partitions, then, while a change of its partition count is in progress, the old
	 * partitions that drain (see {@link DelayQueueAdmin#changePartitions(String, int)}).
	 * The old ones are known once the queue's count was checked against Redis.
	 * @param queue the queue
	 * @return the keys, partition 0 first
	 */
	public List<QueueKeys> partitionKeys(String queue) {
		return this.parts.layouts().partitionKeys(queue);
	}

	/**
	 * Returns the old partitions of a queue that still drain after a change of its
	 * partition count, as seen when the count was checked against Redis.
	 * @param queue the queue
	 * @return their keys, none when no change is in progress
	 */
	public List<QueueKeys> drainingPartitions(String queue) {
		return this.parts.layouts().drainingPartitions(queue);
	}

	/**
	 * Adds a queue to the registry of queues and checks its partition count against Redis
	 * (once per queue and engine).
	 * @param queue the queue
	 * @throws IllegalStateException when Redis holds another partition count
	 */
	public void register(String queue) {
		this.parts.layouts().register(queue);
	}

	/**
	 * @return the script runner
	 */
	ScriptRunner scripts() {
		return this.parts.scripts();
	}

	/**
	 * @return the key prefix
	 */
	public String keyPrefix() {
		return this.settings.keyPrefix();
	}

	/**
	 * @return the payload codec
	 */
	public MessageCodec codec() {
		return this.parts.sends().codec();
	}

	/**
	 * @return the payload size limit in bytes
	 */
	public int maxPayloadSize() {
		return this.settings.maxPayloadSize();
	}

	/**
	 * @return the headers size limit in bytes
	 */
	public int maxHeadersSize() {
		return this.settings.maxHeadersSize();
	}

	/**
	 * @return the observer
	 */
	public DelayQueueObserver observer() {
		return this.parts.sends().observer();
	}

	/**
	 * @return the JVM clock, used only for lateness figures (due times and retention use
	 * the Redis clock)
	 */
	public Clock clock() {
		return this.settings.clock();
	}

	Executor asyncExecutor() {
		return this.parts.asyncExecutor();
	}

	/**
	 * Stops the schedulers and the engine's own threads.
	 */
	@Override
	public void close() {
		if (this.outbox != null) {
			this.outbox.stop();
		}
		this.parts.close();
	}

}
