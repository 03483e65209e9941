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
import java.util.function.Consumer;

import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.internal.EngineSettings;
import io.github.delayqueue.core.observation.DelayQueueObservation;
import io.github.delayqueue.core.observation.DelayQueueObservations;
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
	 * Sets how far ahead a message must be due to be kept in the compact far tier, at
	 * about half the memory (default 2 minutes; zero: never). See
	 * {@code docs/data-model.md}.
	 * @param after zero, or from one second to one day
	 * @return this builder
	 */
	public DelayQueueEngineBuilder compactAfter(Duration after) {
		this.settings.setCompactAfter(after);
		return this;
	}

	/**
	 * Sets from which of its messages a far-tier time slot is kept compact (default the
	 * 64th; a slot's stream costs about 4.7 KB however few it holds).
	 * @param messages from 1 (every far message goes compact) to 100,000
	 * @return this builder
	 */
	public DelayQueueEngineBuilder compactMinimum(int messages) {
		this.settings.setCompactMinimum(messages);
		return this;
	}

	/**
	 * Sets the longest a scheduler sleeps without checking Redis (default 30 s): the slow
	 * sweep of an idle queue. A scheduler promotes at the earliest due time it knows of,
	 * when a sender's wake-up arrives, and at once when its wake-up subscription is
	 * (re)confirmed; this sweep only bounds the lateness of a message whose wake-up was
	 * lost while the subscription stayed up. It is shortened to the far tier's lead
	 * ({@link #compactAfter(Duration)} / 2) when that is shorter.
	 * @param maxIdle the longest sleep
	 * @return this builder
	 */
	public DelayQueueEngineBuilder schedulerMaxIdle(Duration maxIdle) {
		this.settings.setSchedulerMaxIdle(maxIdle);
		return this;
	}

	/**
	 * Sets the longest one operation waits for Redis (default 2s), whatever the client's
	 * command timeout: a send chunk, a cancel, an admin call, each command of the
	 * listeners and schedulers. Past it the call fails with a
	 * {@link DelayQueueException}, and may have taken effect.
	 * @param timeout the bound
	 * @return this builder
	 */
	public DelayQueueEngineBuilder operationTimeout(Duration timeout) {
		this.settings.setOperationTimeout(timeout);
		return this;
	}

	/**
	 * Adds an observer, e.g. for metrics; one that throws is logged, nothing more.
	 * @param observer the observer
	 * @return this builder
	 */
	public DelayQueueEngineBuilder observer(DelayQueueObserver observer) {
		this.settings.addObserver(observer);
		return this;
	}

	/**
	 * Adds a listener of the containers' events (started, stopped, idle, a handler not
	 * responding, paused, partitions taken ...; see
	 * {@link io.github.delayqueue.core.event.DelayQueueEvent}). Events reach it on one
	 * thread of the engine's, never a worker's.
	 * @param listener the listener
	 * @return this builder
	 */
	public DelayQueueEngineBuilder eventListener(io.github.delayqueue.core.event.DelayQueueEventListener listener) {
		this.settings.addEventListener(listener);
		return this;
	}

	/**
	 * Sets whether the engine records its listeners' work in each queue's history in
	 * Redis ({@link DelayQueueAdmin#history(String, QueueHistory.Span)}; default on).
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
	 * Makes every send inside a Spring transaction wait for its commit (and drop the
	 * messages on rollback), as
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
	 * ({@link DelayQueueOutbox}; see {@code docs/outbox.md}).
	 * @param dataSource the data source of the application's transactions
	 * @return this builder
	 */
	public DelayQueueEngineBuilder outbox(javax.sql.DataSource dataSource) {
		this.settings.outbox().setDataSource(dataSource);
		return this;
	}

	/**
	 * Gives the engine a transactional outbox in a table of this data source, with its
	 * settings ({@link OutboxDeclaration}: table, schema creation, relay, sends through
	 * it).
	 * @param dataSource the data source of the application's transactions
	 * @param declaration the outbox's settings
	 * @return this builder
	 */
	public DelayQueueEngineBuilder outbox(javax.sql.DataSource dataSource, Consumer<OutboxDeclaration> declaration) {
		outbox(dataSource);
		declaration.accept(new OutboxDeclaration(this.settings.outbox()));
		return this;
	}

	/**
	 * Records an {@code Observation} of every send and handler run in this registry, per
	 * the OpenTelemetry messaging conventions ({@link DelayQueueObservation}), the trace
	 * context carried in the messages' headers (default: none, at no cost).
	 * @param registry the registry
	 * @return this builder
	 */
	public DelayQueueEngineBuilder observationRegistry(ObservationRegistry registry) {
		return observations(new DelayQueueObservations(registry, null, null, true));
	}

	/**
	 * Records observations as {@link #observationRegistry}, with their conventions.
	 * @param observations the registry and conventions
	 * @return this builder
	 */
	public DelayQueueEngineBuilder observations(DelayQueueObservations observations) {
		this.settings.setObservations(observations);
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
	 * Sets the JVM clock (default UTC system clock); it dates lateness figures only, due
	 * times follow the Redis clock.
	 * @param clock the clock
	 * @return this builder
	 */
	public DelayQueueEngineBuilder clock(Clock clock) {
		this.settings.setClock(clock);
		return this;
	}

	/**
	 * Declares a queue's partitions, pause, expiry, fair share and limits
	 * ({@link QueueDeclaration}).
	 * @param queue the queue
	 * @param declaration what to declare
	 * @return this builder
	 */
	public DelayQueueEngineBuilder queue(String queue, Consumer<QueueDeclaration> declaration) {
		declaration.accept(new QueueDeclaration(this.settings.queues(), queue));
		return this;
	}

	/**
	 * Same as {@code queue(queue, (q) -> q.partitions(count))}.
	 * @param queue the queue
	 * @param count the partition count
	 * @return this builder
	 */
	public DelayQueueEngineBuilder partitions(String queue, int count) {
		return queue(queue, (declared) -> declared.partitions(count));
	}

	/**
	 * Same as {@code queue(queue, QueueDeclaration::pausedAtStartup)}.
	 * @param queue the queue
	 * @return this builder
	 */
	public DelayQueueEngineBuilder pausedAtStartup(String queue) {
		return queue(queue, QueueDeclaration::pausedAtStartup);
	}

	/**
	 * Same as {@code queue(queue, (q) -> q.expireAfter(expireAfter))}.
	 * @param queue the queue
	 * @param expireAfter at least 1 ms, at most ten years
	 * @return this builder
	 */
	public DelayQueueEngineBuilder expireAfter(String queue, Duration expireAfter) {
		return queue(queue, (declared) -> declared.expireAfter(expireAfter));
	}

	/**
	 * Same as {@code queue(queue, QueueDeclaration::fairShare)}.
	 * @param queue the queue
	 * @return this builder
	 */
	public DelayQueueEngineBuilder fairShare(String queue) {
		return queue(queue, QueueDeclaration::fairShare);
	}

	/**
	 * Same as {@code queue(queue, (q) -> q.sizeLimit(max))}.
	 * @param queue the queue
	 * @param max the maximum of waiting messages, from 1
	 * @return this builder
	 */
	public DelayQueueEngineBuilder sizeLimit(String queue, long max) {
		return queue(queue, (declared) -> declared.sizeLimit(max));
	}

	/**
	 * Same as {@code queue(queue, (q) -> q.rateLimit(limit))}.
	 * @param queue the queue
	 * @param limit the limit
	 * @return this builder
	 */
	public DelayQueueEngineBuilder rateLimit(String queue, RateLimit limit) {
		return queue(queue, (declared) -> declared.rateLimit(limit));
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
