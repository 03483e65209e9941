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
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import io.github.delayqueue.core.event.ContainerFailedToStartEvent;
import io.github.delayqueue.core.event.ContainerStartedEvent;
import io.github.delayqueue.core.event.ContainerStoppedEvent;
import io.github.delayqueue.core.internal.EngineContext;
import io.github.delayqueue.core.internal.delivery.ContainerParts;
import io.github.delayqueue.core.internal.delivery.InterceptorChain;
import io.github.delayqueue.core.internal.delivery.ListenerContext;
import io.github.delayqueue.core.internal.delivery.ListenerRuntime;
import io.github.delayqueue.core.internal.redis.QueueNames;

import org.springframework.context.SmartLifecycle;

/**
 * Delivers the messages of one queue to one consumer group's handler: a reader per
 * partition of the queue over the partition's streams, at most {@code concurrency}
 * handlers at once on the engine's workers, batched acks, and a watchdog that renews the
 * leases of held messages, gives up handlers that hang past the lease renewal limit, and
 * recovers entries whose consumer died ({@code docs/runtime.md}: the threads).
 * <p>
 * Guarantees: at most {@code concurrency + prefetch × partitions} messages are held by
 * this container at once, and at most {@code concurrency} handlers run at once, across
 * stops and restarts; a message is acknowledged only after its handler returned; a
 * handler that throws (anything, {@link Error}s included) gets its message back after the
 * retry policy's backoff, or dead-lettered; no background thread ends while the container
 * runs (one that dies is replaced and logged at ERROR); on {@link #stop()} running
 * handlers may finish within the shutdown timeout and every other held message is
 * released for redelivery. A message is lost only if Redis loses it.
 */
public final class DelayQueueListenerContainer implements SmartLifecycle {

	private final EngineContext engine;

	private final ListenerContext context;

	/** Its runtime and its share of the engine's services. */
	private final ContainerParts parts;

	private final ListenerRuntime runtime;

	private final Object lifecycleLock = new Object();

	private volatile boolean running;

	/** Its interceptors, in the order they were added. */
	private final List<Object> interceptors;

	private DelayQueueListenerContainer(Builder<?> builder, ListenerSettings settings) {
		this.engine = builder.engine;
		List<ListenerContext> contexts = ContainerParts.contexts(builder.engine, builder.queue, builder.group,
				builder.consumerName, settings);
		this.context = contexts.get(0);
		this.interceptors = List.copyOf((builder.handler != null) ? builder.interceptors : builder.batchInterceptors);
		this.parts = new ContainerParts(builder.engine, contexts, builder.payloadType, builder.handler,
				builder.batchHandler, InterceptorChain.of(builder.interceptors, builder.batchInterceptors));
		this.runtime = this.parts.runtime();
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
		return new Builder<>(engine, queue, group, payloadType, handler, null);
	}

	/**
	 * Starts building the container of a batch listener: its handler takes up to
	 * {@link ListenerSetters#batchSize batchSize} messages per call. Applications call
	 * {@code DelayQueueEngine.batchListenerContainer(...)}, which supplies the engine's
	 * context.
	 * @param engine the engine's context
	 * @param queue the queue
	 * @param group the consumer group
	 * @param payloadType the payload type
	 * @param handler the batch handler
	 * @param <T> the payload type
	 * @return a builder
	 */
	public static <T> Builder<T> batchBuilder(EngineContext engine, String queue, String group, Class<T> payloadType,
			DelayBatchHandler<T> handler) {
		return new Builder<>(engine, queue, group, payloadType, null, handler);
	}

	/**
	 * Returns the settings the container was built with.
	 * @return the settings
	 */
	public ListenerSettings settings() {
		return this.context.settings();
	}

	/**
	 * Returns the interceptors that run around this container's handler: its
	 * {@link DelayMessageInterceptor}s, or a batch listener's
	 * {@link DelayBatchInterceptor}s.
	 * @return the interceptors, in the order they were added (they run by their
	 * {@code Ordered} order)
	 */
	public List<Object> interceptors() {
		return this.interceptors;
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

	/**
	 * Returns the partitions this container reads: all of the queue's, or, when it is
	 * {@link ListenerSetters#exclusive(boolean) exclusive}, those it owns now.
	 * @return the partition numbers, in order
	 */
	public Set<Integer> partitionsRead() {
		return this.runtime.partitionsRead();
	}

	/**
	 * @return the live containers of the group seen by this exclusive container at its
	 * last heartbeat; 0 when the container is not exclusive or has not started
	 */
	public int groupMembers() {
		return this.runtime.members();
	}

	@Override
	public void start() {
		synchronized (this.lifecycleLock) {
			if (this.running) {
				return;
			}
			try {
				this.parts.start();
			}
			catch (RuntimeException | Error ex) {
				// also when the engine is closed: then on this thread
				this.engine.events()
					.publishEvenIfClosed(
							(time) -> new ContainerFailedToStartEvent(queue(), group(), consumerName(), ex, time));
				throw ex;
			}
			this.running = true;
			this.engine.events().publish((time) -> new ContainerStartedEvent(queue(), group(), consumerName(), time));
		}
	}

	@Override
	public void stop() {
		synchronized (this.lifecycleLock) {
			if (!this.running) {
				return;
			}
			this.running = false;
			ContainerStoppedEvent.Reason reason = ContainerStoppedEvent.Reason.ERROR;
			try {
				reason = this.parts.stop() ? ContainerStoppedEvent.Reason.NORMAL
						: ContainerStoppedEvent.Reason.SHUTDOWN_TIMEOUT;
			}
			finally {
				ContainerStoppedEvent.Reason stopped = reason;
				this.engine.events()
					.publish((time) -> new ContainerStoppedEvent(queue(), group(), consumerName(), stopped, time));
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
	 * @return whether the container runs and every part of it is served: see
	 * {@link #unhealthyReason()}
	 */
	public boolean isHealthy() {
		return unhealthyReason() == null;
	}

	/**
	 * Tells why the container is not healthy: it does not run; its reader, watchdog,
	 * acker or partition ownership ended (it is being replaced) or has failed for 3 s on
	 * end (Redis unreachable, a key of the wrong type, a command its ACL refuses, Redis
	 * out of memory); a worker is missing or waits for a thread of the executor; the
	 * queue's scheduler on this node is not served (the same); or the queue's pause state
	 * was not read within the last few seconds (until it is, nothing starts).
	 * @return the first reason found, e.g. {@code "the reader of queue 'orders', group
	 * 'billing' has failed for 4 s: WRONGTYPE …"}; {@code null} while healthy
	 */
	public String unhealthyReason() {
		return this.running ? this.parts.problem() : "not running";
	}

	@Override
	public boolean isAutoStartup() {
		return this.context.settings().autoStartup();
	}

	/**
	 * Builds a {@link DelayQueueListenerContainer}; obtain one from
	 * {@code DelayQueueEngine.listenerContainer}. Its settings are those of
	 * {@link ListenerSetters}.
	 *
	 * @param <T> the payload type
	 */
	public static final class Builder<T> extends ListenerSetters<Builder<T>> {

		private final EngineContext engine;

		private final String queue;

		private final String group;

		private Type payloadType;

		private final DelayMessageHandler<T> handler;

		private final DelayBatchHandler<T> batchHandler;

		private String consumerName;

		private final List<DelayMessageInterceptor> interceptors = new ArrayList<>();

		private final List<DelayBatchInterceptor> batchInterceptors = new ArrayList<>();

		private Builder(EngineContext engine, String queue, String group, Class<T> payloadType,
				DelayMessageHandler<T> handler, DelayBatchHandler<T> batchHandler) {
			this.engine = engine;
			this.queue = QueueNames.queue(queue);
			this.group = QueueNames.group(group);
			if (payloadType == null || (handler == null && batchHandler == null)) {
				throw new IllegalArgumentException("Payload type and handler must not be null");
			}
			this.payloadType = payloadType;
			this.handler = handler;
			this.batchHandler = batchHandler;
			this.consumerName = QueueNames.defaultConsumer();
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
		 * Sets the consumer name in the group (default: host name, pid and a random
		 * suffix). Must be unique among the group's running consumers.
		 * @param name the name
		 * @return this builder
		 */
		public Builder<T> consumerName(String name) {
			this.consumerName = QueueNames.consumer(name);
			return this;
		}

		/**
		 * Adds an interceptor around the handler (see {@link DelayMessageInterceptor});
		 * interceptors run by their {@code Ordered} / {@code @Order} order, then in the
		 * order added.
		 * @param interceptor the interceptor
		 * @return this builder
		 * @throws IllegalArgumentException when it is {@code null}, or the container is a
		 * batch listener's (which takes {@link DelayBatchInterceptor}s)
		 */
		public Builder<T> addInterceptor(DelayMessageInterceptor interceptor) {
			Objects.requireNonNull(interceptor, "Interceptor must not be null");
			if (this.handler == null) {
				throw new IllegalArgumentException(
						"The batch listener of queue '" + this.queue + "', group '" + this.group
								+ "' takes DelayBatchInterceptors, not the DelayMessageInterceptor " + interceptor);
			}
			this.interceptors.add(interceptor);
			return this;
		}

		/**
		 * Adds an interceptor around a batch listener's handler (see
		 * {@link DelayBatchInterceptor}).
		 * @param interceptor the interceptor
		 * @return this builder
		 * @throws IllegalArgumentException when it is {@code null}, or the container's
		 * handler takes one message at a time (which takes
		 * {@link DelayMessageInterceptor}s)
		 */
		public Builder<T> addBatchInterceptor(DelayBatchInterceptor interceptor) {
			Objects.requireNonNull(interceptor, "Interceptor must not be null");
			if (this.batchHandler == null) {
				throw new IllegalArgumentException("The listener of queue '" + this.queue + "', group '" + this.group
						+ "' handles one message at a time: it takes DelayMessageInterceptors, not the "
						+ "DelayBatchInterceptor " + interceptor);
			}
			this.batchInterceptors.add(interceptor);
			return this;
		}

		/**
		 * Builds the container (not started).
		 * @return the container
		 */
		public DelayQueueListenerContainer build() {
			return new DelayQueueListenerContainer(this, buildSettings());
		}

	}

}
