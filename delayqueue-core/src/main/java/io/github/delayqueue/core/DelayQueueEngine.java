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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.codec.RawMessageCodec;
import io.github.delayqueue.core.listener.DeadLetterConsumer;
import io.github.delayqueue.core.listener.DeadLetterHandler;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.RedisClock;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.EngineContext;
import io.github.delayqueue.core.internal.history.HistoryRecorder;
import io.github.delayqueue.core.internal.control.FlowControls;
import io.github.delayqueue.core.internal.runtime.DaemonThreads;
import io.github.delayqueue.core.internal.scheduling.Schedulers;
import io.github.delayqueue.core.internal.scheduling.WakeUps;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

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

	private final ScriptRunner scripts;

	private final String keyPrefix;

	private final MessageCodec codec;

	private final int maxPayloadSize;

	private final Map<String, Duration> expireAfter;

	private final int maxHeadersSize;

	private final int sendBatchSize;

	private final int promoteBatchSize;

	private final Duration schedulerMaxIdle;

	/**
	 * How long before a far slot starts an engine that writes none moves it: half the
	 * default {@code compactAfter}.
	 */
	private static final long DEFAULT_FAR_LEAD_MILLIS = 60_000;

	private final long compactAfterMillis;

	private final int compactMinimum;

	private final DelayQueueObserver observer;

	private final HistoryRecorder history;

	private final Durability sendDurability;

	private final boolean sendAfterCommit;

	private final ObservationRegistry observationRegistry;

	private final Executor asyncExecutor;

	private final Clock clock;

	private final ExecutorService ownedExecutor;

	private final DelayQueueTemplate template;

	private final DelayQueueAdmin admin;

	private final QueueLayouts layouts;

	private final FlowControls controls;

	private final Schedulers schedulers;

	private final EngineContext context;

	private final Set<String> fairShare;

	private final boolean sendThroughOutbox;

	private final DelayQueueOutbox outbox;

	DelayQueueEngine(DelayQueueEngineBuilder builder) {
		this.scripts = new ScriptRunner(builder.connectionFactory, builder.operationTimeout);
		this.keyPrefix = builder.keyPrefix;
		this.codec = (builder.codec != null) ? builder.codec : defaultCodec();
		this.maxPayloadSize = builder.maxPayloadSize;
		this.expireAfter = Map.copyOf(builder.expireAfter);
		this.maxHeadersSize = builder.maxHeadersSize;
		this.sendBatchSize = builder.sendBatchSize;
		this.promoteBatchSize = builder.promoteBatchSize;
		this.schedulerMaxIdle = builder.schedulerMaxIdle;
		this.compactAfterMillis = builder.compactAfter.toMillis();
		this.compactMinimum = builder.compactMinimum;
		this.clock = builder.clock;
		this.fairShare = Set.copyOf(builder.fairShare);
		this.history = builder.history ? new HistoryRecorder(this.scripts, this::keys, this.clock) : null;
		List<DelayQueueObserver> observers = new ArrayList<>(builder.observers);
		if (this.history != null) {
			observers.add(this.history);
		}
		this.observer = observers.isEmpty() ? DelayQueueObserver.NOOP : new GuardedObserver(observers);
		this.sendDurability = builder.sendDurability;
		this.sendAfterCommit = builder.sendAfterCommit;
		this.observationRegistry = builder.observationRegistry;
		if (builder.asyncExecutor != null) {
			this.ownedExecutor = null;
			this.asyncExecutor = builder.asyncExecutor;
		}
		else {
			this.ownedExecutor = Executors.newFixedThreadPool(4, DaemonThreads.factory("delayqueue-async-"));
			this.asyncExecutor = this.ownedExecutor;
		}
		this.layouts = new QueueLayouts(this.scripts, this::keys, builder.partitions, builder.partitioner,
				builder.sizeLimits);
		this.schedulers = new Schedulers(this.scripts, builder.connectionFactory, this.promoteBatchSize,
				this.schedulerMaxIdle, (queue) -> admin().schedules().registerDeclared(queue), this::isFairShare,
				(this.compactAfterMillis > 0) ? this.compactAfterMillis / 2 : DEFAULT_FAR_LEAD_MILLIS);
		this.controls = new FlowControls(this.scripts, this::keys, new WakeUps(builder.connectionFactory),
				builder.pausedAtStartup, builder.rateLimits);
		this.template = new DelayQueueTemplate(this);
		this.admin = new DelayQueueAdmin(this);
		this.context = new EngineContext(this.scripts, this::keys, this::partitions, this.codec, this.observer,
				this.clock, this.schedulers, (queue) -> {
					register(queue);
					return drainingPartitions(queue);
				}, clientTimeout(builder.connectionFactory), this.observationRegistry, this.controls,
				new RedisClock(this.scripts), this::isFairShare);
		this.sendThroughOutbox = builder.sendThroughOutbox;
		if (builder.sendThroughOutbox && builder.outboxDataSource == null) {
			throw new IllegalArgumentException(
					"sendThroughOutbox needs an outbox: DelayQueueEngineBuilder.outbox(dataSource)");
		}
		this.outbox = (builder.outboxDataSource != null)
				? new DelayQueueOutbox(this, builder.outboxDataSource, builder.outboxTable,
						builder.outboxInitializeSchema, builder.outboxPollInterval, builder.outboxBatchSize, this.clock)
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

	DelayQueueOutbox outboxOrNull() {
		return this.outbox;
	}

	boolean sendThroughOutbox() {
		return this.sendThroughOutbox;
	}

	/** The client's command timeout, when the factory tells it. */
	private static Duration clientTimeout(RedisConnectionFactory connectionFactory) {
		if (connectionFactory instanceof LettuceConnectionFactory lettuce) {
			return Duration.ofMillis(lettuce.getTimeout());
		}
		if (ClassUtils.isPresent("redis.clients.jedis.Jedis", DelayQueueEngine.class.getClassLoader())
				&& connectionFactory instanceof JedisConnectionFactory jedis) {
			return Duration.ofMillis(jedis.getTimeout());
		}
		return null;
	}

	private static MessageCodec defaultCodec() {
		if (ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper", DelayQueueEngine.class.getClassLoader())) {
			return new io.github.delayqueue.core.codec.JsonMessageCodec();
		}
		return new RawMessageCodec();
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
		return DelayQueueListenerContainer.builder(this.context, queue, group, payloadType, handler);
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
		return DeadLetterConsumer.create(this.context, queue, group, handlerId, payloadType, handler);
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
		return DeadLetterConsumer.create(this.context, queue, group, handlerId, payloadType, handler);
	}

	/**
	 * Returns what every send waits for.
	 * @return the durability, or {@code null} when sends do not wait
	 */
	public Durability sendDurability() {
		return this.sendDurability;
	}

	/**
	 * Returns whether sends inside a Spring transaction wait for its commit.
	 * @return whether they do
	 */
	public boolean sendAfterCommit() {
		return this.sendAfterCommit;
	}

	/**
	 * Returns the registry the engine records observations in.
	 * @return the registry, {@code ObservationRegistry.NOOP} unless one was set
	 */
	public ObservationRegistry observationRegistry() {
		return this.observationRegistry;
	}

	/**
	 * Returns the keys of a queue, validating its name.
	 * @param queue the queue
	 * @return the keys
	 */
	public QueueKeys keys(String queue) {
		return new QueueKeys(this.keyPrefix, queue);
	}

	/**
	 * Returns how long after its due time a message of a queue expires unless it says
	 * otherwise, as declared on this engine.
	 * @param queue the queue
	 * @return the duration, or {@code null} for none
	 */
	Duration expireAfter(String queue) {
		return this.expireAfter.get(queue);
	}

	/**
	 * Returns whether a queue is fair-share on this engine
	 * ({@link DelayQueueEngineBuilder#fairShare}).
	 * @param queue the queue
	 * @return whether it is
	 */
	public boolean isFairShare(String queue) {
		return this.fairShare.contains(queue);
	}

	/**
	 * Returns how many partitions a queue has, as declared on this engine.
	 * @param queue the queue
	 * @return the partition count, 1 unless declared
	 */
	public int partitions(String queue) {
		return this.layouts.partitions(queue);
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
		return this.layouts.partitionKeys(queue);
	}

	/**
	 * Returns the old partitions of a queue that still drain after a change of its
	 * partition count, as seen when the count was checked against Redis.
	 * @param queue the queue
	 * @return their keys, none when no change is in progress
	 */
	public List<QueueKeys> drainingPartitions(String queue) {
		return this.layouts.drainingPartitions(queue);
	}

	/**
	 * @return the partition layouts of the queues: routing, checks against Redis, the
	 * registry
	 */
	QueueLayouts layouts() {
		return this.layouts;
	}

	/**
	 * @return the flow controls: pause state in Redis and the listeners' gates
	 */
	FlowControls controls() {
		return this.controls;
	}

	/**
	 * Adds a queue to the registry of queues and checks its partition count against Redis
	 * (once per queue and engine).
	 * @param queue the queue
	 * @throws IllegalStateException when Redis holds another partition count
	 */
	public void register(String queue) {
		this.layouts.register(queue);
	}

	/**
	 * @return the script runner
	 */
	ScriptRunner scripts() {
		return this.scripts;
	}

	/**
	 * @return the key prefix
	 */
	public String keyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * @return the payload codec
	 */
	public MessageCodec codec() {
		return this.codec;
	}

	/**
	 * @return the payload size limit in bytes
	 */
	public int maxPayloadSize() {
		return this.maxPayloadSize;
	}

	/**
	 * @return the headers size limit in bytes
	 */
	public int maxHeadersSize() {
		return this.maxHeadersSize;
	}

	int sendBatchSize() {
		return this.sendBatchSize;
	}

	/**
	 * The scripts' far-tier argument: {@code <compactAfter ms>:<slot minimum>}.
	 * @return the argument
	 */
	String compactArgument() {
		return this.compactAfterMillis + ":" + this.compactMinimum;
	}

	/**
	 * @return the observer
	 */
	public DelayQueueObserver observer() {
		return this.observer;
	}

	/**
	 * @return the JVM clock, used only for lateness figures (due times and retention use
	 * the Redis clock)
	 */
	public Clock clock() {
		return this.clock;
	}

	Executor asyncExecutor() {
		return this.asyncExecutor;
	}

	/**
	 * Stops the schedulers and the engine's own threads.
	 */
	@Override
	public void close() {
		if (this.outbox != null) {
			this.outbox.stop();
		}
		this.controls.close();
		this.schedulers.close();
		if (this.history != null) {
			this.history.close();
		}
		if (this.ownedExecutor != null) {
			this.ownedExecutor.shutdown();
		}
	}

}
