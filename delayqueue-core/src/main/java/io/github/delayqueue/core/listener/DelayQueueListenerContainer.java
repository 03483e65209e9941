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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.DaemonThreads;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.support.QueueKeys;
import io.github.delayqueue.core.support.QueueNames;
import io.github.delayqueue.core.support.ScriptRunner;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.stream.ByteRecord;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;

/**
 * Delivers the messages of one queue to one consumer group's handler: a reader doing
 * {@code XREADGROUP ... BLOCK} on its own connection over the queue's stream and the
 * group's retry stream, {@code concurrency} workers, batched acks, and a
 * {@link LeaseKeeper} that renews the leases of running handlers and recovers entries
 * whose consumer died.
 * <p>
 * Guarantees: at most {@code concurrency + prefetch} messages are held by this container
 * at once; a message is acknowledged only after its handler returned; a handler that
 * throws gets its message back after the retry policy's backoff, or dead-lettered; on
 * {@link #stop()} running handlers may finish within the shutdown timeout and every other
 * held message is released for redelivery. A message is lost only if Redis loses it.
 */
public final class DelayQueueListenerContainer implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(DelayQueueListenerContainer.class);

	final DelayQueueEngine engine;

	final QueueKeys keys;

	final String group;

	final String consumer;

	final Settings settings;

	private final Object lifecycleLock = new Object();

	private final Object capacity = new Object();

	private final AtomicInteger held = new AtomicInteger();

	private final BlockingQueue<Delivery> prefetched = new LinkedBlockingQueue<>();

	final Set<Delivery> inProgress = ConcurrentHashMap.newKeySet();

	/** Every delivery held: read or recovered, not yet acked, nacked or released. */
	final Set<Delivery> heldDeliveries = ConcurrentHashMap.newKeySet();

	private final Processor processor;

	private volatile boolean running;

	private volatile RedisConnection readerConnection;

	private Thread reader;

	private CountDownLatch workersDone;

	private LeaseKeeper leaseKeeper;

	private Acker acker;

	private DelayQueueListenerContainer(Builder<?> builder) {
		this.engine = builder.engine;
		this.keys = builder.engine.keys(builder.queue);
		this.group = QueueNames.group(builder.group);
		this.consumer = builder.consumerName;
		this.settings = builder.settings();
		this.processor = new Processor(this, builder.payloadType, builder.handler);
	}

	/**
	 * Starts building a container; {@link DelayQueueEngine#listenerContainer} is the
	 * usual way.
	 * @param engine the engine
	 * @param queue the queue
	 * @param group the consumer group
	 * @param payloadType the payload type
	 * @param handler the handler
	 * @param <T> the payload type
	 * @return a builder
	 */
	public static <T> Builder<T> builder(DelayQueueEngine engine, String queue, String group, Class<T> payloadType,
			DelayMessageHandler<T> handler) {
		return new Builder<>(engine, queue, group, payloadType, handler);
	}

	/**
	 * Returns the settings the container was built with.
	 * @return the settings
	 */
	public Settings settings() {
		return this.settings;
	}

	/**
	 * @return the queue
	 */
	public String queue() {
		return this.keys.queue();
	}

	/**
	 * @return the consumer group
	 */
	public String group() {
		return this.group;
	}

	/**
	 * @return this container's consumer name in the group
	 */
	public String consumerName() {
		return this.consumer;
	}

	/**
	 * @return how many messages this container holds (read, running or awaiting ack)
	 */
	public int heldMessages() {
		return this.held.get();
	}

	@Override
	public void start() {
		synchronized (this.lifecycleLock) {
			if (this.running) {
				return;
			}
			this.processor.prepare();
			this.running = true;
			this.engine.joinScheduler(queue(), this.group);
			this.acker = new Acker(this);
			this.leaseKeeper = new LeaseKeeper(this);
			this.workersDone = new CountDownLatch(this.settings.concurrency());
			ThreadFactory workers = DaemonThreads.factory("delayqueue-" + queue() + "-" + this.group + "-worker-");
			Executor executor = (this.settings.executor() != null) ? this.settings.executor()
					: (task) -> workers.newThread(task).start();
			for (int i = 0; i < this.settings.concurrency(); i++) {
				executor.execute(this::work);
			}
			this.reader = DaemonThreads.factory("delayqueue-" + queue() + "-" + this.group + "-reader-")
				.newThread(this::read);
			this.reader.start();
		}
	}

	@Override
	public void stop() {
		synchronized (this.lifecycleLock) {
			if (!this.running) {
				return;
			}
			this.running = false;
			closeReaderConnection();
			joinQuietly(this.reader, Duration.ofSeconds(10));
			long deadline = System.nanoTime() + this.settings.shutdownTimeout().toNanos();
			try {
				if (!this.workersDone.await(this.settings.shutdownTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
					logger.warn(this.inProgress.size() + " handler(s) of queue '" + queue() + "', group '" + this.group
							+ "' still run after the shutdown timeout; their messages will be redelivered after the visibility timeout");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			List<Delivery> unstarted = new ArrayList<>();
			this.prefetched.drainTo(unstarted);
			unstarted.forEach(this::finished);
			this.acker.stop(deadline);
			this.leaseKeeper.releaseUnprocessed(deadline);
			this.leaseKeeper.stop();
			this.engine.leaveScheduler(queue(), this.group);
		}
	}

	@Override
	public void stop(Runnable callback) {
		stop();
		callback.run();
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public boolean isAutoStartup() {
		return this.settings.autoStartup();
	}

	private void read() {
		long backoff = 0;
		boolean groupsReady = false;
		while (this.running) {
			try {
				int available = this.settings.limit() - this.held.get();
				if (available <= 0) {
					awaitCapacity();
					continue;
				}
				if (this.readerConnection == null) {
					this.readerConnection = this.engine.scripts().connectionFactory().getConnection();
				}
				if (!groupsReady) {
					ensureGroups(this.readerConnection);
					// registered here, not in start(): a container starts even while
					// Redis is down
					this.engine.register(queue());
					groupsReady = true;
				}
				List<ByteRecord> records = readBatch(this.readerConnection, available);
				if (backoff > 0) {
					logger.info("Listener of queue '" + queue() + "', group '" + this.group + "' reaches Redis again");
					backoff = 0;
				}
				if (records != null) {
					for (ByteRecord record : records) {
						accept(new Delivery(this, new String(record.getStream(), StandardCharsets.UTF_8),
								record.getId().getValue(), fields(record.getValue()), 1));
					}
				}
			}
			catch (RuntimeException ex) {
				closeReaderConnection();
				groupsReady = false;
				if (!this.running) {
					return;
				}
				backoff = (backoff == 0) ? 100 : Math.min(5000, backoff * 2);
				if (backoff == 100 || backoff == 5000) {
					logger.warn("Listener of queue '" + queue() + "', group '" + this.group
							+ "' cannot read from Redis, retrying in " + backoff + "ms: " + ScriptRunner.describe(ex));
				}
				sleep(backoff);
			}
		}
		closeReaderConnection();
	}

	@SuppressWarnings("unchecked")
	private List<ByteRecord> readBatch(RedisConnection connection, int available) {
		Consumer reader = Consumer.from(this.group, this.consumer);
		StreamOffset<byte[]> main = StreamOffset.create(QueueKeys.bytes(this.keys.stream()), ReadOffset.lastConsumed());
		if (available == 1) {
			// XREADGROUP's COUNT applies per stream: never take more than the capacity
			// left
			return connection.streamCommands()
				.xReadGroup(reader, StreamReadOptions.empty().count(1).block(this.settings.pollTimeout()), main);
		}
		StreamOffset<byte[]> retries = StreamOffset.create(QueueKeys.bytes(this.keys.retryStream(this.group)),
				ReadOffset.lastConsumed());
		return connection.streamCommands()
			.xReadGroup(reader, StreamReadOptions.empty().count(available / 2).block(this.settings.pollTimeout()), main,
					retries);
	}

	void ensureGroups(RedisConnection connection) {
		for (String stream : List.of(this.keys.stream(), this.keys.retryStream(this.group))) {
			try {
				connection.streamCommands()
					.xGroupCreate(QueueKeys.bytes(stream), this.group, ReadOffset.from("0-0"), true);
			}
			catch (RuntimeException ex) {
				if (!isBusyGroup(ex)) {
					throw ex;
				}
			}
		}
	}

	private static boolean isBusyGroup(Throwable ex) {
		// Spring Data Redis reports the Redis error in a cause ("Error in execution")
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (String.valueOf(cause.getMessage()).contains("BUSYGROUP")) {
				return true;
			}
		}
		return false;
	}

	static Map<String, byte[]> fields(Map<byte[], byte[]> raw) {
		Map<String, byte[]> fields = new LinkedHashMap<>();
		raw.forEach((name, value) -> fields.put(new String(name, StandardCharsets.UTF_8), value));
		return fields;
	}

	/** Takes a delivery read or recovered for this container. */
	void accept(Delivery delivery) {
		// a held message's lease is renewed while it waits for a worker, too
		delivery.keepAliveUntilNanos = System.nanoTime() + this.settings.leaseRenewalLimit().toNanos();
		this.heldDeliveries.add(delivery);
		this.held.incrementAndGet();
		this.prefetched.add(delivery);
	}

	/** Frees the capacity of a delivery that was acked, nacked or released. */
	void finished(Delivery delivery) {
		this.heldDeliveries.remove(delivery);
		this.held.decrementAndGet();
		synchronized (this.capacity) {
			this.capacity.notifyAll();
		}
	}

	int freeCapacity() {
		return this.settings.limit() - this.held.get();
	}

	boolean isActive() {
		return this.running;
	}

	private void awaitCapacity() {
		synchronized (this.capacity) {
			try {
				if (this.held.get() >= this.settings.limit() && this.running) {
					this.capacity.wait(100);
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private void work() {
		try {
			while (this.running) {
				Delivery delivery = this.prefetched.poll(100, TimeUnit.MILLISECONDS);
				if (delivery == null) {
					continue;
				}
				if (!this.running) {
					this.prefetched.add(delivery);
					break;
				}
				this.processor.process(delivery);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.workersDone.countDown();
		}
	}

	void acknowledge(Delivery delivery) {
		this.acker.add(delivery);
	}

	boolean renewNow(Delivery delivery) {
		return this.leaseKeeper.renew(List.of(delivery)) && !delivery.leaseLost;
	}

	private void closeReaderConnection() {
		RedisConnection connection = this.readerConnection;
		this.readerConnection = null;
		if (connection != null) {
			try {
				connection.close();
			}
			catch (RuntimeException ex) {
				// already broken
			}
		}
	}

	static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private static void joinQuietly(Thread thread, Duration timeout) {
		try {
			thread.join(timeout.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/**
	 * The settings of a container.
	 *
	 * @param concurrency the number of handlers running at once
	 * @param prefetch how many messages may wait for a free worker
	 * @param visibilityTimeout how long a delivery's lease lasts without renewal
	 * @param leaseRenewalLimit how long the watchdog keeps renewing a running handler's
	 * lease
	 * @param pollTimeout how long one blocking read waits
	 * @param shutdownTimeout how long stop waits for running handlers
	 * @param trimInterval how often acknowledged entries are trimmed
	 * @param deadLetterRetention how long dead letters are kept
	 * @param retryPolicy the retry policy
	 * @param executor the executor of the workers, or {@code null} for own threads
	 * @param autoStartup whether the Spring context starts the container
	 */
	public record Settings(int concurrency, int prefetch, Duration visibilityTimeout, Duration leaseRenewalLimit,
			Duration pollTimeout, Duration shutdownTimeout, Duration trimInterval, Duration deadLetterRetention,
			RetryPolicy retryPolicy, Executor executor, boolean autoStartup) {

		int limit() {
			return this.concurrency + this.prefetch;
		}

	}

	/**
	 * Builds a {@link DelayQueueListenerContainer}; obtain one from
	 * {@link DelayQueueEngine#listenerContainer}.
	 *
	 * @param <T> the payload type
	 */
	public static final class Builder<T> {

		private final DelayQueueEngine engine;

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

		private RetryPolicy retryPolicy = RetryPolicy.DEFAULT;

		private Executor executor;

		private boolean autoStartup = true;

		private String consumerName;

		private Builder(DelayQueueEngine engine, String queue, String group, Class<T> payloadType,
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

		Settings settings() {
			return new Settings(this.concurrency, (this.prefetch > 0) ? this.prefetch : this.concurrency,
					this.visibilityTimeout,
					(this.leaseRenewalLimit != null) ? this.leaseRenewalLimit : this.visibilityTimeout.multipliedBy(10),
					this.pollTimeout, this.shutdownTimeout, this.trimInterval, this.deadLetterRetention,
					this.retryPolicy, this.executor, this.autoStartup);
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
