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

package io.github.delayqueue.core.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.Durability;
import io.github.delayqueue.core.codec.JsonMessageCodec;
import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.codec.RawMessageCodec;
import io.github.delayqueue.core.internal.outbox.OutboxSettings;
import io.github.delayqueue.core.observation.DelayQueueObservations;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The settings of an engine, with their defaults, checked as they are set: what the
 * {@code DelayQueueEngineBuilder} collects and the engine is built from. Each setter
 * throws an {@link IllegalArgumentException} (or a {@link NullPointerException} for a
 * missing value) that names the setting.
 */
public final class EngineSettings {

	private final RedisConnectionFactory connectionFactory;

	private String keyPrefix = "dq";

	private MessageCodec codec;

	private int maxPayloadSize = 1024 * 1024;

	private int maxHeadersSize = 16 * 1024;

	private int sendBatchSize = 500;

	private int promoteBatchSize = 500;

	private Duration schedulerMaxIdle = Duration.ofSeconds(30);

	private Duration compactAfter = Duration.ofMinutes(2);

	private int compactMinimum = 64;

	private Duration operationTimeout = Duration.ofSeconds(2);

	private final List<DelayQueueObserver> observers = new ArrayList<>();

	private final List<io.github.delayqueue.core.event.DelayQueueEventListener> eventListeners = new ArrayList<>();

	private Durability sendDurability;

	private boolean sendAfterCommit;

	private OutboxSettings outbox = new OutboxSettings();

	private DelayQueueObservations observations = DelayQueueObservations.NOOP;

	private Executor asyncExecutor;

	private Clock clock = Clock.systemUTC();

	private boolean history = true;

	private QueueDeclarations queues = new QueueDeclarations();

	public EngineSettings(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = Objects.requireNonNull(connectionFactory, "RedisConnectionFactory must not be null");
	}

	public void setKeyPrefix(String keyPrefix) {
		if (keyPrefix == null || !keyPrefix.matches("[A-Za-z0-9._:-]{1,64}")) {
			throw new IllegalArgumentException("Key prefix '" + keyPrefix
					+ "' must be 1 to 64 letters, digits, '.', '_', ':' or '-' (no braces or spaces)");
		}
		this.keyPrefix = keyPrefix;
	}

	public void setCodec(MessageCodec codec) {
		this.codec = Objects.requireNonNull(codec, "Codec must not be null");
	}

	public void setMaxPayloadSize(int bytes) {
		this.maxPayloadSize = positive("Max payload size", bytes);
	}

	public void setMaxHeadersSize(int bytes) {
		this.maxHeadersSize = positive("Max headers size", bytes);
	}

	public void setSendBatchSize(int size) {
		this.sendBatchSize = positive("Send batch size", size);
	}

	public void setPromoteBatchSize(int size) {
		this.promoteBatchSize = positive("Promote batch size", size);
	}

	public void setCompactAfter(Duration after) {
		if (after == null || after.isNegative() || (!after.isZero()
				&& (after.compareTo(Duration.ofSeconds(1)) < 0 || after.compareTo(Duration.ofDays(1)) > 0))) {
			throw new IllegalArgumentException(
					"Compact after must be zero or from 1 second to 1 day, but was " + after);
		}
		this.compactAfter = after;
	}

	public void setCompactMinimum(int messages) {
		if (messages < 1 || messages > 100_000) {
			throw new IllegalArgumentException(
					"Compact minimum must be from 1 to 100000 messages per slot, but was " + messages);
		}
		this.compactMinimum = messages;
	}

	public void setSchedulerMaxIdle(Duration maxIdle) {
		this.schedulerMaxIdle = positive("Scheduler max idle", maxIdle);
	}

	public void setOperationTimeout(Duration timeout) {
		this.operationTimeout = positive("Operation timeout", timeout);
	}

	public void addEventListener(io.github.delayqueue.core.event.DelayQueueEventListener listener) {
		this.eventListeners.add(Objects.requireNonNull(listener, "Event listener must not be null"));
	}

	public List<io.github.delayqueue.core.event.DelayQueueEventListener> eventListeners() {
		return List.copyOf(this.eventListeners);
	}

	public void addObserver(DelayQueueObserver observer) {
		Objects.requireNonNull(observer, "Observer must not be null");
		if (observer != DelayQueueObserver.NOOP) {
			this.observers.add(observer);
		}
	}

	public void setHistory(boolean history) {
		this.history = history;
	}

	public void setSendDurability(Durability durability) {
		this.sendDurability = durability;
	}

	public void setSendAfterCommit(boolean afterCommit) {
		this.sendAfterCommit = afterCommit;
	}

	public void setObservations(DelayQueueObservations observations) {
		this.observations = Objects.requireNonNull(observations, "Observations must not be null");
	}

	public void setAsyncExecutor(Executor executor) {
		this.asyncExecutor = Objects.requireNonNull(executor, "Executor must not be null");
	}

	public void setClock(Clock clock) {
		this.clock = Objects.requireNonNull(clock, "Clock must not be null");
	}

	/**
	 * Returns a copy: what an engine is built from, unchanged by later calls on the
	 * builder.
	 * @return the copy
	 */
	public EngineSettings copy() {
		EngineSettings copy = new EngineSettings(this.connectionFactory);
		copy.keyPrefix = this.keyPrefix;
		copy.codec = this.codec;
		copy.maxPayloadSize = this.maxPayloadSize;
		copy.maxHeadersSize = this.maxHeadersSize;
		copy.sendBatchSize = this.sendBatchSize;
		copy.promoteBatchSize = this.promoteBatchSize;
		copy.schedulerMaxIdle = this.schedulerMaxIdle;
		copy.compactAfter = this.compactAfter;
		copy.compactMinimum = this.compactMinimum;
		copy.operationTimeout = this.operationTimeout;
		copy.observers.addAll(this.observers);
		copy.eventListeners.addAll(this.eventListeners);
		copy.sendDurability = this.sendDurability;
		copy.sendAfterCommit = this.sendAfterCommit;
		copy.outbox = this.outbox.copy();
		copy.observations = this.observations;
		copy.asyncExecutor = this.asyncExecutor;
		copy.clock = this.clock;
		copy.history = this.history;
		copy.queues = this.queues.copy();
		return copy;
	}

	private static int positive(String what, int value) {
		if (value <= 0) {
			throw new IllegalArgumentException(what + " must be positive, but was " + value);
		}
		return value;
	}

	private static Duration positive(String what, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(what + " must be positive, but was " + value);
		}
		return value;
	}

	/** What the engine declares per queue. */
	public QueueDeclarations queues() {
		return this.queues;
	}

	public RedisConnectionFactory connectionFactory() {
		return this.connectionFactory;
	}

	public String keyPrefix() {
		return this.keyPrefix;
	}

	/**
	 * Returns the codec set, or the default: JSON through Jackson when present, else raw
	 * {@code byte[]}/{@code String} only.
	 * @return the codec
	 */
	public MessageCodec codec() {
		if (this.codec != null) {
			return this.codec;
		}
		return ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper", EngineSettings.class.getClassLoader())
				? new JsonMessageCodec() : new RawMessageCodec();
	}

	/**
	 * Returns the client's command timeout, when the connection factory tells it.
	 * @return the timeout, or {@code null}
	 */
	public Duration clientTimeout() {
		if (this.connectionFactory instanceof LettuceConnectionFactory lettuce) {
			return Duration.ofMillis(lettuce.getTimeout());
		}
		if (ClassUtils.isPresent("redis.clients.jedis.Jedis", EngineSettings.class.getClassLoader())
				&& this.connectionFactory instanceof JedisConnectionFactory jedis) {
			return Duration.ofMillis(jedis.getTimeout());
		}
		return null;
	}

	public int maxPayloadSize() {
		return this.maxPayloadSize;
	}

	public int maxHeadersSize() {
		return this.maxHeadersSize;
	}

	public int sendBatchSize() {
		return this.sendBatchSize;
	}

	public int promoteBatchSize() {
		return this.promoteBatchSize;
	}

	public Duration schedulerMaxIdle() {
		return this.schedulerMaxIdle;
	}

	public Duration compactAfter() {
		return this.compactAfter;
	}

	public int compactMinimum() {
		return this.compactMinimum;
	}

	public Duration operationTimeout() {
		return this.operationTimeout;
	}

	public List<DelayQueueObserver> observers() {
		return List.copyOf(this.observers);
	}

	public Durability sendDurability() {
		return this.sendDurability;
	}

	public boolean sendAfterCommit() {
		return this.sendAfterCommit;
	}

	/** The outbox's settings, set through them. */
	public OutboxSettings outbox() {
		return this.outbox;
	}

	public DelayQueueObservations observations() {
		return this.observations;
	}

	/** The executor set, or {@code null} for one the engine owns. */
	public Executor asyncExecutor() {
		return this.asyncExecutor;
	}

	public Clock clock() {
		return this.clock;
	}

	public boolean history() {
		return this.history;
	}

}
