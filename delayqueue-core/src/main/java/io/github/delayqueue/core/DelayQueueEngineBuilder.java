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
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;

import io.github.delayqueue.core.codec.MessageCodec;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Builds a {@link DelayQueueEngine}; obtain one from
 * {@link DelayQueueEngine#builder(RedisConnectionFactory)}.
 */
public final class DelayQueueEngineBuilder {

	final RedisConnectionFactory connectionFactory;

	String keyPrefix = "dq";

	MessageCodec codec;

	int maxPayloadSize = 1024 * 1024;

	int maxHeadersSize = 16 * 1024;

	int sendBatchSize = 500;

	int promoteBatchSize = 500;

	Duration schedulerMaxIdle = Duration.ofSeconds(2);

	Duration compactAfter = Duration.ofMinutes(2);

	int compactMinimum = 64;

	Duration operationTimeout = Duration.ofSeconds(2);

	final List<DelayQueueObserver> observers = new ArrayList<>();

	Durability sendDurability;

	boolean sendAfterCommit;

	javax.sql.DataSource outboxDataSource;

	String outboxTable = DelayQueueOutbox.DEFAULT_TABLE;

	boolean outboxInitializeSchema;

	Duration outboxPollInterval = Duration.ofMillis(500);

	int outboxBatchSize = 500;

	boolean sendThroughOutbox;

	ObservationRegistry observationRegistry = ObservationRegistry.NOOP;

	Executor asyncExecutor;

	Clock clock = Clock.systemUTC();

	boolean history = true;

	final Map<String, Integer> partitions = new LinkedHashMap<>();

	final Set<String> pausedAtStartup = new LinkedHashSet<>();

	final Map<String, Duration> expireAfter = new LinkedHashMap<>();

	final Map<String, Long> sizeLimits = new LinkedHashMap<>();

	final Set<String> fairShare = new LinkedHashSet<>();

	final Map<String, RateLimit> rateLimits = new LinkedHashMap<>();

	Partitioner partitioner = Partitioner.CRC32;

	DelayQueueEngineBuilder(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = Objects.requireNonNull(connectionFactory, "RedisConnectionFactory must not be null");
	}

	/**
	 * Sets the key prefix (default {@code dq}).
	 * @param keyPrefix the prefix: letters, digits, '.', '_', ':', '-'
	 * @return this builder
	 */
	public DelayQueueEngineBuilder keyPrefix(String keyPrefix) {
		if (keyPrefix == null || !keyPrefix.matches("[A-Za-z0-9._:-]{1,64}")) {
			throw new IllegalArgumentException("Key prefix '" + keyPrefix
					+ "' must be 1 to 64 letters, digits, '.', '_', ':' or '-' (no braces or spaces)");
		}
		this.keyPrefix = keyPrefix;
		return this;
	}

	/**
	 * Sets the payload codec (default JSON through Jackson when present, else raw
	 * {@code byte[]}/{@code String} only).
	 * @param codec the codec
	 * @return this builder
	 */
	public DelayQueueEngineBuilder codec(MessageCodec codec) {
		this.codec = Objects.requireNonNull(codec, "Codec must not be null");
		return this;
	}

	/**
	 * Sets the largest encoded payload accepted (default 1 MiB).
	 * @param bytes the limit
	 * @return this builder
	 */
	public DelayQueueEngineBuilder maxPayloadSize(int bytes) {
		this.maxPayloadSize = positive("Max payload size", bytes);
		return this;
	}

	/**
	 * Sets the largest total size of a message's headers (default 16 KiB).
	 * @param bytes the limit
	 * @return this builder
	 */
	public DelayQueueEngineBuilder maxHeadersSize(int bytes) {
		this.maxHeadersSize = positive("Max headers size", bytes);
		return this;
	}

	/**
	 * Sets how many messages of one queue one script call of {@code sendAll} carries
	 * (default 500).
	 * @param size the batch size
	 * @return this builder
	 */
	public DelayQueueEngineBuilder sendBatchSize(int size) {
		this.sendBatchSize = positive("Send batch size", size);
		return this;
	}

	/**
	 * Sets how many due messages one promote call moves per source (default 500).
	 * @param size the batch size
	 * @return this builder
	 */
	public DelayQueueEngineBuilder promoteBatchSize(int size) {
		this.promoteBatchSize = positive("Promote batch size", size);
		return this;
	}

	/**
	 * Sets how far ahead a message must be due to be kept in the compact far tier
	 * (default 2 minutes): one entry of its time slot's stream and of a small id index,
	 * about half the memory of a message in the schedule (a ZSET member and a hash
	 * field), which holds the nearer ones. The scheduler moves a slot into the schedule
	 * half this time before it starts. Zero keeps every message in the schedule (far-tier
	 * messages that other engines wrote are still moved and delivered).
	 * @param after zero, or from one second to one day
	 * @return this builder
	 */
	public DelayQueueEngineBuilder compactAfter(Duration after) {
		if (after == null || after.isNegative() || (!after.isZero()
				&& (after.compareTo(Duration.ofSeconds(1)) < 0 || after.compareTo(Duration.ofDays(1)) > 0))) {
			throw new IllegalArgumentException(
					"Compact after must be zero or from 1 second to 1 day, but was " + after);
		}
		this.compactAfter = after;
		return this;
	}

	/**
	 * Sets from which of its messages a far-tier time slot is kept compact (default the
	 * 64th): a slot's stream costs about 4.7 KB of Redis memory however few entries it
	 * holds, so the first messages of a slot stay in the schedule (about 270 bytes each),
	 * and only those of a slot this full go compact (about 143 bytes each).
	 * @param messages from 1 (every message due {@link #compactAfter} ahead goes compact)
	 * to 100,000
	 * @return this builder
	 */
	public DelayQueueEngineBuilder compactMinimum(int messages) {
		if (messages < 1 || messages > 100_000) {
			throw new IllegalArgumentException(
					"Compact minimum must be from 1 to 100000 messages per slot, but was " + messages);
		}
		this.compactMinimum = messages;
		return this;
	}

	/**
	 * Sets the longest a scheduler sleeps without checking Redis (default 2s): it bounds
	 * the delay when a wake-up message is lost.
	 * @param maxIdle the longest sleep
	 * @return this builder
	 */
	public DelayQueueEngineBuilder schedulerMaxIdle(Duration maxIdle) {
		if (maxIdle == null || maxIdle.isNegative() || maxIdle.isZero()) {
			throw new IllegalArgumentException("Scheduler max idle must be positive, but was " + maxIdle);
		}
		this.schedulerMaxIdle = maxIdle;
		return this;
	}

	/**
	 * Sets the longest one operation waits for Redis (default 2s), whatever the client's
	 * command timeout (60s by default in Spring Boot): a send (per chunk of
	 * {@code sendBatchSize} messages; a durable send adds its own timeout), cancel,
	 * reschedule, admin call, and each command of the listeners and schedulers. Past it
	 * the call fails with a {@link DelayQueueException} and may or may not have taken
	 * effect.
	 * @param timeout the bound
	 * @return this builder
	 */
	public DelayQueueEngineBuilder operationTimeout(Duration timeout) {
		if (timeout == null || timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException("Operation timeout must be positive, but was " + timeout);
		}
		this.operationTimeout = timeout;
		return this;
	}

	/**
	 * Adds an observer, e.g. for metrics (default none). Observers are called in the
	 * order added; one that throws is logged and does not affect the others or the
	 * engine.
	 * @param observer the observer
	 * @return this builder
	 */
	public DelayQueueEngineBuilder observer(DelayQueueObserver observer) {
		Objects.requireNonNull(observer, "Observer must not be null");
		if (observer != DelayQueueObserver.NOOP) {
			this.observers.add(observer);
		}
		return this;
	}

	/**
	 * Sets whether the engine adds what its listeners do (deliveries, acknowledgements,
	 * retries, dead letters, expiries, lateness) to each queue's history in Redis, read
	 * by {@link DelayQueueAdmin#history(String, QueueHistory.Span)} and the dashboard
	 * (default on). It costs one script call per active queue about every 10 seconds, and
	 * nothing while a queue is idle; see {@code docs/dashboard.md} for its memory.
	 * @param record whether to record the history
	 * @return this builder
	 */
	public DelayQueueEngineBuilder history(boolean record) {
		this.history = record;
		return this;
	}

	/**
	 * Makes every send durable: it waits for replicas (or AOF fsyncs) to confirm it and
	 * throws {@link UnconfirmedSendException} when they do not in time (default: sends do
	 * not wait).
	 * @param durability what to wait for, or {@code null} for nothing
	 * @return this builder
	 */
	public DelayQueueEngineBuilder sendDurability(Durability durability) {
		this.sendDurability = durability;
		return this;
	}

	/**
	 * Makes every {@code send} and {@code sendAll} called inside a Spring transaction
	 * wait for its commit (and drop the messages on rollback), as
	 * {@link DelayQueueOperations#sendAfterCommit(DelayMessage)} does per call (default
	 * off). Such a send returns results with status {@link SendResult.Status#DEFERRED}.
	 * Outside a transaction, sends go at once.
	 * @param afterCommit whether sends in a transaction wait for its commit
	 * @return this builder
	 */
	public DelayQueueEngineBuilder sendAfterCommit(boolean afterCommit) {
		this.sendAfterCommit = afterCommit;
		return this;
	}

	/**
	 * Gives the engine a transactional outbox in a table of this data source
	 * ({@link DelayQueueOutbox}): {@link DelayQueueOperations#sendWithOutbox} inside a
	 * transaction of this data source writes the messages to the table, and a relay on
	 * this engine moves committed rows to Redis. The table must exist (see
	 * {@link #outboxInitializeSchema}); the build fails naming it and giving its DDL when
	 * it does not. See {@code docs/outbox.md}.
	 * @param dataSource the data source of the application's transactions
	 * @return this builder
	 */
	public DelayQueueEngineBuilder outbox(javax.sql.DataSource dataSource) {
		this.outboxDataSource = Objects.requireNonNull(dataSource, "Outbox data source must not be null");
		return this;
	}

	/**
	 * The outbox table (default {@value DelayQueueOutbox#DEFAULT_TABLE}).
	 * @param table letters, digits and '_', optionally {@code schema.table}
	 * @return this builder
	 */
	public DelayQueueEngineBuilder outboxTable(String table) {
		this.outboxTable = DelayQueueOutbox.checkTable(table);
		return this;
	}

	/**
	 * Whether the engine creates the outbox table when it is missing, with the DDL
	 * shipped for the database (default off: apply it with the migration tool).
	 * @param initialize whether to create it
	 * @return this builder
	 */
	public DelayQueueEngineBuilder outboxInitializeSchema(boolean initialize) {
		this.outboxInitializeSchema = initialize;
		return this;
	}

	/**
	 * How long the relay waits between two looks at an empty outbox (default 500 ms); a
	 * commit that wrote to the outbox wakes this engine's relay at once.
	 * @param interval at least 1 ms
	 * @return this builder
	 */
	public DelayQueueEngineBuilder outboxPollInterval(Duration interval) {
		if (interval == null || interval.toMillis() < 1) {
			throw new IllegalArgumentException("Outbox poll interval must be at least 1 ms, but was " + interval);
		}
		this.outboxPollInterval = interval;
		return this;
	}

	/**
	 * The most rows the relay moves per database transaction (default 500).
	 * @param size from 1 to 10,000
	 * @return this builder
	 */
	public DelayQueueEngineBuilder outboxBatchSize(int size) {
		if (size < 1 || size > 10_000) {
			throw new IllegalArgumentException("Outbox batch size must be between 1 and 10000, but was " + size);
		}
		this.outboxBatchSize = size;
		return this;
	}

	/**
	 * Makes every {@code send} and {@code sendAll} called inside a transaction of the
	 * outbox's data source write to the outbox, as
	 * {@link DelayQueueOperations#sendWithOutbox(DelayMessage)} does per call (default
	 * off; needs {@link #outbox}). Other sends behave as without it.
	 * @param throughOutbox whether sends in a transaction go through the outbox
	 * @return this builder
	 */
	public DelayQueueEngineBuilder sendThroughOutbox(boolean throughOutbox) {
		this.sendThroughOutbox = throughOutbox;
		return this;
	}

	/**
	 * Records a Micrometer {@code Observation} for every send ({@code delayqueue.send})
	 * and every attempt to handle a message ({@code delayqueue.process}), and carries the
	 * trace context in the message's headers (default: none, at no cost). See
	 * {@link io.github.delayqueue.core.observation.DelayQueueObservations}.
	 * @param registry the registry
	 * @return this builder
	 */
	public DelayQueueEngineBuilder observationRegistry(ObservationRegistry registry) {
		this.observationRegistry = Objects.requireNonNull(registry, "Observation registry must not be null");
		return this;
	}

	/**
	 * Sets the executor of the async operations (default 4 engine-owned threads).
	 * @param executor the executor
	 * @return this builder
	 */
	public DelayQueueEngineBuilder asyncExecutor(Executor executor) {
		this.asyncExecutor = Objects.requireNonNull(executor, "Executor must not be null");
		return this;
	}

	/**
	 * Sets the JVM clock (default UTC system clock). Due times never depend on it: they
	 * are compared with the Redis clock inside the scripts, as is dead-letter retention.
	 * It dates lateness figures only.
	 * @param clock the clock
	 * @return this builder
	 */
	public DelayQueueEngineBuilder clock(Clock clock) {
		this.clock = Objects.requireNonNull(clock, "Clock must not be null");
		return this;
	}

	/**
	 * Declares how many partitions a queue has (default 1): each partition is a slot of
	 * its own on Redis Cluster, so one queue spreads over several masters. The count is
	 * stored in Redis on first use; an engine whose declaration differs from Redis's
	 * refuses to send to or consume the queue, naming both counts. A queue can grow from
	 * 1 partition to more (its messages stay in partition 0 and are delivered from
	 * there); any other change is made in Redis first, with
	 * {@link DelayQueueAdmin#changePartitions(String, int)}. Producers and consumers of
	 * the queue must declare the same count. See {@code docs/scaling.md}.
	 * @param queue the queue
	 * @param count the partition count, 1 to {@value QueueKeys#MAX_PARTITIONS}
	 * @return this builder
	 */
	public DelayQueueEngineBuilder partitions(String queue, int count) {
		QueueNames.queue(queue);
		if (count < 1 || count > QueueKeys.MAX_PARTITIONS) {
			throw new IllegalArgumentException("Partitions of queue '" + queue + "' must be between 1 and "
					+ QueueKeys.MAX_PARTITIONS + ", but was " + count);
		}
		this.partitions.put(queue, count);
		return this;
	}

	/**
	 * Declares a queue paused at start-up: the first listener of the queue on this engine
	 * writes the pause to Redis (as {@link DelayQueueAdmin#pause(String)}) before any of
	 * its handlers starts, and its listeners start no handler until it is written. The
	 * pause then holds for every instance until resumed; an engine that declares it again
	 * pauses the queue again when it starts (see {@code docs/flow-control.md}).
	 * @param queue the queue
	 * @return this builder
	 */
	public DelayQueueEngineBuilder pausedAtStartup(String queue) {
		this.pausedAtStartup.add(QueueNames.queue(queue));
		return this;
	}

	/**
	 * Declares how long after its due time a message sent to a queue through this engine
	 * expires, unless the message says otherwise
	 * ({@link DelayMessage.Builder#expireAfter}). A send-side default: messages sent
	 * before, or by engines that do not declare it, do not expire.
	 * @param queue the queue
	 * @param expireAfter at least 1 ms, at most ten years
	 * @return this builder
	 */
	public DelayQueueEngineBuilder expireAfter(String queue, Duration expireAfter) {
		QueueNames.queue(queue);
		this.expireAfter.put(queue,
				DelayMessage.checkExpireAfter(expireAfter, "Expire-after of queue '" + queue + "'"));
		return this;
	}

	/**
	 * Declares a queue fair-share: its due messages are handed out key by key in turn
	 * ({@link DelayMessage.Builder#key}; messages without a key count as one key), so one
	 * key's backlog holds back a message of another key by at most one message of every
	 * key with waiting messages, plus what the listeners hold and have read ahead; each
	 * key's messages keep their due order. Messages with a priority go ahead (priority
	 * wins over fair share); retries are not reordered. It costs a script call per read
	 * and holds waiting due messages in the partition's fair ZSET. Declare it on every
	 * engine that sends to or listens on the queue: a sender without it makes its due
	 * messages ready at once, a listener without it moves the waiting ones to the stream
	 * in one go. See {@code docs/fairness.md}.
	 * @param queue the queue
	 * @return this builder
	 */
	public DelayQueueEngineBuilder fairShare(String queue) {
		this.fairShare.add(QueueNames.queue(queue));
		return this;
	}

	/**
	 * Declares a queue's size limit (see {@link DelayQueueAdmin#limitSize}): written to
	 * Redis when this engine first sends to or listens on the queue, for every producer.
	 * It holds until changed; an engine that declares it writes it again when it starts
	 * using the queue.
	 * @param queue the queue
	 * @param max the maximum of waiting messages, from 1
	 * @return this builder
	 */
	public DelayQueueEngineBuilder sizeLimit(String queue, long max) {
		QueueNames.queue(queue);
		this.sizeLimits.put(queue, SizeLimits.check(queue, max));
		return this;
	}

	/**
	 * Declares a queue's rate limit (see {@link DelayQueueAdmin#limitRate}): written to
	 * Redis when this engine's first listener of the queue starts, before it starts a
	 * handler, and followed by every instance. It holds until changed; an engine that
	 * declares it writes it again when it starts listening.
	 * @param queue the queue
	 * @param limit the limit
	 * @return this builder
	 */
	public DelayQueueEngineBuilder rateLimit(String queue, RateLimit limit) {
		QueueNames.queue(queue);
		this.rateLimits.put(queue, Objects.requireNonNull(limit, "Rate limit must not be null"));
		return this;
	}

	/**
	 * Sets how a message's key chooses its partition (default {@link Partitioner#CRC32}).
	 * @param partitioner the partitioner
	 * @return this builder
	 */
	public DelayQueueEngineBuilder partitioner(Partitioner partitioner) {
		this.partitioner = Objects.requireNonNull(partitioner, "Partitioner must not be null");
		return this;
	}

	private static int positive(String what, int value) {
		if (value <= 0) {
			throw new IllegalArgumentException(what + " must be positive, but was " + value);
		}
		return value;
	}

	/**
	 * Builds the engine.
	 * @return the engine
	 */
	public DelayQueueEngine build() {
		return new DelayQueueEngine(this);
	}

}
