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
import java.util.concurrent.Executor;

import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.internal.EngineSettings;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Builds a {@link DelayQueueEngine}; obtain one from
 * {@link DelayQueueEngine#builder(RedisConnectionFactory)}.
 */
public final class DelayQueueEngineBuilder {

	private final EngineSettings settings;

	DelayQueueEngineBuilder(RedisConnectionFactory connectionFactory) {
		this.settings = new EngineSettings(connectionFactory);
	}

	/**
	 * Sets the key prefix (default {@code dq}).
	 * @param keyPrefix the prefix: letters, digits, '.', '_', ':', '-'
	 * @return this builder
	 */
	public DelayQueueEngineBuilder keyPrefix(String keyPrefix) {
		this.settings.setKeyPrefix(keyPrefix);
		return this;
	}

	/**
	 * Sets the payload codec (default JSON through Jackson when present, else raw
	 * {@code byte[]}/{@code String} only).
	 * @param codec the codec
	 * @return this builder
	 */
	public DelayQueueEngineBuilder codec(MessageCodec codec) {
		this.settings.setCodec(codec);
		return this;
	}

	/**
	 * Sets the largest encoded payload accepted (default 1 MiB).
	 * @param bytes the limit
	 * @return this builder
	 */
	public DelayQueueEngineBuilder maxPayloadSize(int bytes) {
		this.settings.setMaxPayloadSize(bytes);
		return this;
	}

	/**
	 * Sets the largest total size of a message's headers (default 16 KiB).
	 * @param bytes the limit
	 * @return this builder
	 */
	public DelayQueueEngineBuilder maxHeadersSize(int bytes) {
		this.settings.setMaxHeadersSize(bytes);
		return this;
	}

	/**
	 * Sets how many messages of a partition one send script call carries (default 500).
	 * @param size the batch size
	 * @return this builder
	 */
	public DelayQueueEngineBuilder sendBatchSize(int size) {
		this.settings.setSendBatchSize(size);
		return this;
	}

	/**
	 * Sets how many due messages one promote call moves per source (default 500).
	 * @param size the batch size
	 * @return this builder
	 */
	public DelayQueueEngineBuilder promoteBatchSize(int size) {
		this.settings.setPromoteBatchSize(size);
		return this;
	}

	/**
	 * Sets how far ahead a message must be due to be kept in the compact far tier
	 * (default 2 minutes), at about half the memory of the schedule; the scheduler moves
	 * a slot into the schedule half this time before it starts. Zero keeps every message
	 * in the schedule. See {@code docs/data-model.md}.
	 * @param after zero, or from one second to one day
	 * @return this builder
	 */
	public DelayQueueEngineBuilder compactAfter(Duration after) {
		this.settings.setCompactAfter(after);
		return this;
	}

	/**
	 * Sets from which of its messages a far-tier time slot is kept compact (default the
	 * 64th): a slot's stream has a fixed cost of about 4.7 KB, so a slot's first messages
	 * stay in the schedule.
	 * @param messages from 1 (every far message goes compact) to 100,000
	 * @return this builder
	 */
	public DelayQueueEngineBuilder compactMinimum(int messages) {
		this.settings.setCompactMinimum(messages);
		return this;
	}

	/**
	 * Sets the longest a scheduler sleeps without checking Redis (default 2s).
	 * @param maxIdle the longest sleep
	 * @return this builder
	 */
	public DelayQueueEngineBuilder schedulerMaxIdle(Duration maxIdle) {
		this.settings.setSchedulerMaxIdle(maxIdle);
		return this;
	}

	/**
	 * Sets the longest one operation waits for Redis (default 2s), whatever the client's
	 * command timeout: a send (per chunk of {@code sendBatchSize} messages), cancel,
	 * reschedule, admin call, and each command of the listeners and schedulers. Past it
	 * the call fails with a {@link DelayQueueException}, and may have taken effect.
	 * @param timeout the bound
	 * @return this builder
	 */
	public DelayQueueEngineBuilder operationTimeout(Duration timeout) {
		this.settings.setOperationTimeout(timeout);
		return this;
	}

	/**
	 * Adds an observer, e.g. for metrics; observers are called in order, and one that
	 * throws is logged without affecting the others.
	 * @param observer the observer
	 * @return this builder
	 */
	public DelayQueueEngineBuilder observer(DelayQueueObserver observer) {
		this.settings.addObserver(observer);
		return this;
	}

	/**
	 * Sets whether the engine adds what its listeners do to each queue's history in
	 * Redis, read by {@link DelayQueueAdmin#history(String, QueueHistory.Span)} and the
	 * dashboard (default on; its cost is in {@code docs/dashboard.md}).
	 * @param record whether to record the history
	 * @return this builder
	 */
	public DelayQueueEngineBuilder history(boolean record) {
		this.settings.setHistory(record);
		return this;
	}

	/**
	 * Makes every send wait for replicas (or AOF fsyncs) to confirm it, or throw
	 * {@link UnconfirmedSendException} (default: sends do not wait).
	 * @param durability what to wait for, or {@code null} for nothing
	 * @return this builder
	 */
	public DelayQueueEngineBuilder sendDurability(Durability durability) {
		this.settings.setSendDurability(durability);
		return this;
	}

	/**
	 * Makes every {@code send} and {@code sendAll} called inside a Spring transaction
	 * wait for its commit (and drop the messages on rollback), as
	 * {@link DelayQueueOperations#sendAfterCommit(DelayMessage)} does per call (default
	 * off), returning {@link SendResult.Status#DEFERRED} results.
	 * @param afterCommit whether sends in a transaction wait for its commit
	 * @return this builder
	 */
	public DelayQueueEngineBuilder sendAfterCommit(boolean afterCommit) {
		this.settings.setSendAfterCommit(afterCommit);
		return this;
	}

	/**
	 * Gives the engine a transactional outbox in a table of this data source
	 * ({@link DelayQueueOutbox}), moved to Redis by a relay on this engine once
	 * committed. The build fails, giving the DDL, when the table is missing (see
	 * {@link #outboxInitializeSchema}). See {@code docs/outbox.md}.
	 * @param dataSource the data source of the application's transactions
	 * @return this builder
	 */
	public DelayQueueEngineBuilder outbox(javax.sql.DataSource dataSource) {
		this.settings.setOutboxDataSource(dataSource);
		return this;
	}

	/**
	 * The outbox table (default {@value DelayQueueOutbox#DEFAULT_TABLE}).
	 * @param table letters, digits and '_', optionally {@code schema.table}
	 * @return this builder
	 */
	public DelayQueueEngineBuilder outboxTable(String table) {
		this.settings.setOutboxTable(DelayQueueOutbox.checkTable(table));
		return this;
	}

	/**
	 * Whether the engine creates the outbox table when it is missing, with the DDL
	 * shipped for the database (default off: apply it with the migration tool).
	 * @param initialize whether to create it
	 * @return this builder
	 */
	public DelayQueueEngineBuilder outboxInitializeSchema(boolean initialize) {
		this.settings.setOutboxInitializeSchema(initialize);
		return this;
	}

	/**
	 * How long the relay waits between two looks at an empty outbox (default 500 ms); a
	 * commit that wrote to the outbox wakes this engine's relay at once.
	 * @param interval at least 1 ms
	 * @return this builder
	 */
	public DelayQueueEngineBuilder outboxPollInterval(Duration interval) {
		this.settings.setOutboxPollInterval(interval);
		return this;
	}

	/**
	 * The most rows the relay moves per database transaction (default 500).
	 * @param size from 1 to 10,000
	 * @return this builder
	 */
	public DelayQueueEngineBuilder outboxBatchSize(int size) {
		this.settings.setOutboxBatchSize(size);
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
		this.settings.setSendThroughOutbox(throughOutbox);
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
		this.settings.setObservationRegistry(registry);
		return this;
	}

	/**
	 * Sets the executor of the async operations (default 4 engine-owned threads).
	 * @param executor the executor
	 * @return this builder
	 */
	public DelayQueueEngineBuilder asyncExecutor(Executor executor) {
		this.settings.setAsyncExecutor(executor);
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
		this.settings.setClock(clock);
		return this;
	}

	/**
	 * Declares how many partitions a queue has (default 1): each partition is a slot of
	 * its own on Redis Cluster, so one queue spreads over several masters. The count is
	 * stored in Redis on first use; an engine whose declaration differs from Redis's
	 * refuses the queue, naming both counts. A change is made in Redis first, with
	 * {@link DelayQueueAdmin#changePartitions(String, int)}. See {@code docs/scaling.md}.
	 * @param queue the queue
	 * @param count the partition count, 1 to
	 * {@value io.github.delayqueue.core.internal.redis.QueueKeys#MAX_PARTITIONS}
	 * @return this builder
	 */
	public DelayQueueEngineBuilder partitions(String queue, int count) {
		this.settings.queues().setPartitions(queue, count);
		return this;
	}

	/**
	 * Declares a queue paused at start-up: the first listener of the queue on this engine
	 * writes the pause to Redis (as {@link DelayQueueAdmin#pause(String)}) before any of
	 * its handlers starts, and again whenever such an engine starts; it holds for every
	 * instance until resumed (see {@code docs/flow-control.md}).
	 * @param queue the queue
	 * @return this builder
	 */
	public DelayQueueEngineBuilder pausedAtStartup(String queue) {
		this.settings.queues().addPausedAtStartup(queue);
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
		this.settings.queues().setExpireAfter(queue, expireAfter);
		return this;
	}

	/**
	 * Declares a queue fair-share: its due messages are handed out key by key in turn
	 * ({@link DelayMessage.Builder#key}; messages without a key count as one key), each
	 * key's messages in due order; priority wins over fair share. Declare it on every
	 * engine that sends to or listens on the queue. See {@code docs/fairness.md} for the
	 * bound it keeps and its cost.
	 * @param queue the queue
	 * @return this builder
	 */
	public DelayQueueEngineBuilder fairShare(String queue) {
		this.settings.queues().addFairShare(queue);
		return this;
	}

	/**
	 * Declares a queue's size limit (see {@link DelayQueueAdmin#limitSize}): written to
	 * Redis, for every producer, when this engine first uses the queue.
	 * @param queue the queue
	 * @param max the maximum of waiting messages, from 1
	 * @return this builder
	 */
	public DelayQueueEngineBuilder sizeLimit(String queue, long max) {
		this.settings.queues().setSizeLimit(queue, max);
		return this;
	}

	/**
	 * Declares a queue's rate limit (see {@link DelayQueueAdmin#limitRate}): written to
	 * Redis, for every instance, before this engine's first listener of the queue starts
	 * a handler.
	 * @param queue the queue
	 * @param limit the limit
	 * @return this builder
	 */
	public DelayQueueEngineBuilder rateLimit(String queue, RateLimit limit) {
		this.settings.queues().setRateLimit(queue, limit);
		return this;
	}

	/**
	 * Sets how a message's key chooses its partition (default {@link Partitioner#CRC32}).
	 * @param partitioner the partitioner
	 * @return this builder
	 */
	public DelayQueueEngineBuilder partitioner(Partitioner partitioner) {
		this.settings.queues().setPartitioner(partitioner);
		return this;
	}

	/**
	 * Builds the engine.
	 * @return the engine
	 */
	public DelayQueueEngine build() {
		return new DelayQueueEngine(this.settings.copy());
	}

}
