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

package io.github.delayqueue.core.listener;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.Executor;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.EngineContext;
import io.github.delayqueue.core.internal.delivery.ListenerContext;
import io.github.delayqueue.core.internal.delivery.ListenerRuntime;
import io.github.delayqueue.core.support.QueueKeys;
import io.github.delayqueue.core.support.QueueNames;

import org.springframework.context.SmartLifecycle;

/**
 * Delivers the messages of one queue to one consumer group's handler: a reader doing
 * {@code XREADGROUP ... BLOCK} on its own connection over the queue's stream and the
 * group's retry stream, {@code concurrency} workers, batched acks, and a watchdog that
 * renews the leases of held messages, gives up handlers that hang past the lease renewal
 * limit, and recovers entries whose consumer died.
 * <p>
 * Guarantees: at most {@code concurrency + prefetch} messages are held by this container
 * at once, and at most {@code concurrency} handlers run at once, across stops and
 * restarts; a message is acknowledged only after its handler returned; a handler that
 * throws (anything, {@link Error}s included) gets its message back after the retry
 * policy's backoff, or dead-lettered; no background thread ends while the container runs
 * (one that dies is replaced and logged at ERROR); on {@link #stop()} running handlers
 * may finish within the shutdown timeout and every other held message is released for
 * redelivery. A message is lost only if Redis loses it.
 */
public final class DelayQueueListenerContainer implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(DelayQueueListenerContainer.class);

	private final EngineContext engine;

	private final ListenerContext context;

	private final ListenerRuntime runtime;

	private final Object lifecycleLock = new Object();

	private volatile boolean running;

	private DelayQueueListenerContainer(Builder<?> builder) {
		this.engine = builder.engine;
		QueueKeys keys = builder.engine.keys().apply(builder.queue);
		ListenerSettings settings = builder.settings();
		Duration readBlock = builder.engine.readBlock(settings.pollTimeout());
		if (!readBlock.equals(settings.pollTimeout())) {
			logger.info("The poll timeout of queue '" + keys.queue() + "', group '" + builder.group + "' ("
					+ settings.pollTimeout() + ") is lowered to " + readBlock
					+ ", below the Redis client's command timeout (" + builder.engine.clientTimeout() + ")");
		}
		this.context = new ListenerContext(builder.engine.scripts(), keys, builder.group, builder.consumerName,
				settings, builder.engine.observer(), builder.engine.codec(), builder.engine.clock(), readBlock);
		this.runtime = new ListenerRuntime(this.context, builder.payloadType, builder.handler,
				() -> this.engine.registry().accept(keys.queue()));
	}

	/**
	 * Starts building a container. Applications call
	 * {@code DelayQueueEngine.listenerContainer(...)}, which supplies the engine's
	 * context.
	 * @param engine the engine's context
	 * @param queue the queue
	 * @param group the consumer group
	 * @param payloadType the payload type
	 * @param handler the handler
	 * @param <T> the payload type
	 * @return a builder
	 */
	public static <T> Builder<T> builder(EngineContext engine, String queue, String group, Class<T> payloadType,
			DelayMessageHandler<T> handler) {
		return new Builder<>(engine, queue, group, payloadType, handler);
	}

	/**
	 * Returns the settings the container was built with.
	 * @return the settings
	 */
	public ListenerSettings settings() {
		return this.context.settings();
	}

	/**
	 * @return the queue
	 */
	public String queue() {
		return this.context.queue();
	}

	/**
	 * @return the consumer group
	 */
	public String group() {
		return this.context.group();
	}

	/**
	 * @return this container's consumer name in the group
	 */
	public String consumerName() {
		return this.context.consumer();
	}

	/**
	 * @return how many messages this container holds (read, running or awaiting ack)
	 */
	public int heldMessages() {
		return this.runtime.held();
	}

	/**
	 * @return how many handlers ran past the lease renewal limit and were abandoned to a
	 * replacement worker since the container was built
	 */
	public long abandonedHandlers() {
		return this.runtime.abandonedHandlers();
	}

	@Override
	public void start() {
		synchronized (this.lifecycleLock) {
			if (this.running) {
				return;
			}
			this.engine.schedulers().join(queue(), group());
			this.runtime.start();
			this.running = true;
		}
	}

	@Override
	public void stop() {
		synchronized (this.lifecycleLock) {
			if (!this.running) {
				return;
			}
			this.running = false;
			try {
				this.runtime.stop();
			}
			finally {
				this.engine.schedulers().leave(queue(), group());
			}
		}
	}

	@Override
	public void stop(Runnable callback) {
		try {
			stop();
		}
		finally {
			callback.run();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/**
	 * Returns whether the container runs and is served: its reader, watchdog and acker
	 * loops are alive, all its workers are there, and the queue's scheduler runs on this
	 * node. A container can be running and not healthy only briefly, while a part that
	 * ended is being replaced.
	 * @return whether it is healthy
	 */
	public boolean isHealthy() {
		return this.running && this.runtime.isServing() && this.engine.schedulers().isServing(queue());
	}

	@Override
	public boolean isAutoStartup() {
		return this.context.settings().autoStartup();
	}

	public static final class Builder<T> {

		private final EngineContext engine;

		private final String queue;

		private final String group;

		private Type payloadType;

		private final DelayMessageHandler<T> handler;

		private int concurrency = 4;

		private int prefetch = -1;

		private Duration visibilityTimeout = Duration.ofSeconds(30);

		private Duration leaseRenewalLimit;

		private Duration pollTimeout = Duration.ofSeconds(5);

		private Duration shutdownTimeout = Duration.ofSeconds(30);

		private Duration trimInterval = Duration.ofSeconds(30);

		private Duration deadLetterRetention = Duration.ofDays(7);

		private Duration staleConsumerTimeout = Duration.ofMinutes(10);

		private RetryPolicy retryPolicy = RetryPolicy.DEFAULT;

		private Executor executor;

		private boolean autoStartup = true;

		private String consumerName;

		private Builder(EngineContext engine, String queue, String group, Class<T> payloadType,
				DelayMessageHandler<T> handler) {
			this.engine = engine;
			this.queue = QueueNames.queue(queue);
			this.group = QueueNames.group(group);
			if (payloadType == null || handler == null) {
				throw new IllegalArgumentException("Payload type and handler must not be null");
			}
			this.payloadType = payloadType;
			this.handler = handler;
			this.consumerName = ProcessHandle.current().pid() + "-" + UUID.randomUUID().toString().substring(0, 8);
		}

		/**
		 * Sets how many handlers run at once (default 4).
		 * @param concurrency at least 1
		 * @return this builder
		 */
		public Builder<T> concurrency(int concurrency) {
			if (concurrency < 1) {
				throw new IllegalArgumentException("Concurrency must be at least 1, but was " + concurrency);
			}
			this.concurrency = concurrency;
			return this;
		}

		/**
		 * Sets how many read messages may wait for a free worker (default: concurrency).
		 * @param prefetch at least 1
		 * @return this builder
		 */
		public Builder<T> prefetch(int prefetch) {
			if (prefetch < 1) {
				throw new IllegalArgumentException("Prefetch must be at least 1, but was " + prefetch);
			}
			this.prefetch = prefetch;
			return this;
		}

		/**
		 * Sets the lease of a delivery (default 30s): a message whose consumer neither
		 * acks nor renews within it is redelivered to another consumer.
		 * @param timeout the visibility timeout
		 * @return this builder
		 */
		public Builder<T> visibilityTimeout(Duration timeout) {
			this.visibilityTimeout = positive("Visibility timeout", timeout);
			return this;
		}

		/**
		 * Sets how long the watchdog renews a running handler's lease (default 10
		 * visibility timeouts); a handler that runs longer loses its message to another
		 * consumer unless it calls {@link DelayMessageContext#extendLease(Duration)}.
		 * @param limit the limit
		 * @return this builder
		 */
		public Builder<T> leaseRenewalLimit(Duration limit) {
			this.leaseRenewalLimit = positive("Lease renewal limit", limit);
			return this;
		}

		/**
		 * Sets how long one blocking read waits for messages (default 5s).
		 * @param timeout the poll timeout
		 * @return this builder
		 */
		public Builder<T> pollTimeout(Duration timeout) {
			this.pollTimeout = positive("Poll timeout", timeout);
			return this;
		}

		/**
		 * Sets how long {@code stop} waits for running handlers (default 30s).
		 * @param timeout the shutdown timeout
		 * @return this builder
		 */
		public Builder<T> shutdownTimeout(Duration timeout) {
			this.shutdownTimeout = positive("Shutdown timeout", timeout);
			return this;
		}

		/**
		 * Sets how often acknowledged entries are trimmed from the streams (default 30s).
		 * @param interval the interval
		 * @return this builder
		 */
		public Builder<T> trimInterval(Duration interval) {
			this.trimInterval = positive("Trim interval", interval);
			return this;
		}

		/**
		 * Sets how long dead letters are kept (default 7 days).
		 * @param retention the retention
		 * @return this builder
		 */
		public Builder<T> deadLetterRetention(Duration retention) {
			this.deadLetterRetention = positive("Dead-letter retention", retention);
			return this;
		}

		/**
		 * Sets how long a consumer of the group that holds nothing may stay idle before
		 * recovery removes it from the group (default 10 minutes): consumers of crashed
		 * containers do not pile up in {@code XINFO CONSUMERS}. A container removes its
		 * own consumer on a clean stop.
		 * @param timeout the timeout
		 * @return this builder
		 */
		public Builder<T> staleConsumerTimeout(Duration timeout) {
			this.staleConsumerTimeout = positive("Stale consumer timeout", timeout);
			return this;
		}

		/**
		 * Sets the retry policy (default {@link RetryPolicy#DEFAULT}).
		 * @param policy the policy
		 * @return this builder
		 */
		public Builder<T> retryPolicy(RetryPolicy policy) {
			this.retryPolicy = Objects.requireNonNull(policy, "Retry policy must not be null");
			return this;
		}

		/**
		 * Sets the type payloads are decoded to when it is generic (e.g.
		 * {@code List<Order>}); the handler's payload type {@code T} must be assignable
		 * from it.
		 * @param type the declared type
		 * @return this builder
		 */
		public Builder<T> payloadType(Type type) {
			this.payloadType = Objects.requireNonNull(type, "Payload type must not be null");
			return this;
		}

		/**
		 * Sets the executor the workers run on (default: the container's own threads);
		 * e.g. a virtual-thread executor.
		 * @param executor the executor
		 * @return this builder
		 */
		public Builder<T> executor(Executor executor) {
			this.executor = executor;
			return this;
		}

		/**
		 * Sets whether a Spring context starts the container (default {@code true}).
		 * @param autoStartup whether to start automatically
		 * @return this builder
		 */
		public Builder<T> autoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
			return this;
		}

		/**
		 * Sets the consumer name in the group (default: pid and a random suffix). Must be
		 * unique among the group's running consumers.
		 * @param name the name
		 * @return this builder
		 */
		public Builder<T> consumerName(String name) {
			this.consumerName = QueueNames.consumer(name);
			return this;
		}

		private static Duration positive(String what, Duration value) {
			if (value == null || value.isNegative() || value.isZero()) {
				throw new IllegalArgumentException(what + " must be positive, but was " + value);
			}
			return value;
		}

		ListenerSettings settings() {
			return new ListenerSettings(this.concurrency, (this.prefetch > 0) ? this.prefetch : this.concurrency,
					this.visibilityTimeout,
					(this.leaseRenewalLimit != null) ? this.leaseRenewalLimit : this.visibilityTimeout.multipliedBy(10),
					this.pollTimeout, this.shutdownTimeout, this.trimInterval, this.deadLetterRetention,
					this.staleConsumerTimeout, this.retryPolicy, this.executor, this.autoStartup);
		}

		/**
		 * Builds the container (not started).
		 * @return the container
		 */
		public DelayQueueListenerContainer build() {
			return new DelayQueueListenerContainer(this);
		}

	}

}
