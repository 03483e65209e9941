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

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * Configuration properties for delayqueue. Unknown properties under {@code delayqueue.}
 * fail the start-up, so that a misspelt setting is never silently ignored.
 */
@ConfigurationProperties(prefix = "delayqueue", ignoreUnknownFields = false)
public class DelayQueueProperties {

	/**
	 * Prefix of every Redis key the queues use.
	 */
	private String keyPrefix = "dq";

	/**
	 * Largest encoded payload accepted by a send.
	 */
	private DataSize maxPayloadSize = DataSize.ofMegabytes(1);

	/**
	 * Largest total size of a message's headers.
	 */
	private DataSize maxHeadersSize = DataSize.ofKilobytes(16);

	/**
	 * Longest one operation waits for Redis, whatever spring.data.redis.timeout says: a
	 * send (per batch), cancel, reschedule, admin call, or a command of the listeners and
	 * schedulers. Past it the call fails and may or may not have taken effect.
	 */
	private Duration operationTimeout = Duration.ofSeconds(2);

	private final Scheduler scheduler = new Scheduler();

	private final Retry retry = new Retry();

	private final Listener listener = new Listener();

	private final DeadLetter deadLetter = new DeadLetter();

	private final Admin admin = new Admin();

	private final Metrics metrics = new Metrics();

	private final ServerCheck serverCheck = new ServerCheck();

	private final DurableSend durableSend = new DurableSend();

	/**
	 * Per-queue overrides of the listener, retry and dead-letter settings, by queue name.
	 * A @DelayListener attribute wins over these.
	 */
	private final Map<String, Queue> queues = new LinkedHashMap<>();

	public String getKeyPrefix() {
		return this.keyPrefix;
	}

	public void setKeyPrefix(String keyPrefix) {
		this.keyPrefix = keyPrefix;
	}

	public DataSize getMaxPayloadSize() {
		return this.maxPayloadSize;
	}

	public void setMaxPayloadSize(DataSize maxPayloadSize) {
		this.maxPayloadSize = maxPayloadSize;
	}

	public DataSize getMaxHeadersSize() {
		return this.maxHeadersSize;
	}

	public void setMaxHeadersSize(DataSize maxHeadersSize) {
		this.maxHeadersSize = maxHeadersSize;
	}

	public Duration getOperationTimeout() {
		return this.operationTimeout;
	}

	public void setOperationTimeout(Duration operationTimeout) {
		this.operationTimeout = operationTimeout;
	}

	public Scheduler getScheduler() {
		return this.scheduler;
	}

	public Retry getRetry() {
		return this.retry;
	}

	public Listener getListener() {
		return this.listener;
	}

	public DeadLetter getDeadLetter() {
		return this.deadLetter;
	}

	public Admin getAdmin() {
		return this.admin;
	}

	public Metrics getMetrics() {
		return this.metrics;
	}

	public ServerCheck getServerCheck() {
		return this.serverCheck;
	}

	public DurableSend getDurableSend() {
		return this.durableSend;
	}

	public static class DurableSend {

		/**
		 * Number of replicas every send waits for (WAIT). 0 with local-aof false means
		 * sends do not wait.
		 */
		private int replicas;

		/**
		 * Whether every send also waits for the master's AOF fsync (WAITAOF, Redis 7.2+).
		 */
		private boolean localAof;

		/**
		 * How long a send waits for the confirmations before it reports them missing.
		 */
		private Duration timeout = Duration.ofSeconds(1);

		public int getReplicas() {
			return this.replicas;
		}

		public void setReplicas(int replicas) {
			this.replicas = replicas;
		}

		public boolean isLocalAof() {
			return this.localAof;
		}

		public void setLocalAof(boolean localAof) {
			this.localAof = localAof;
		}

		public Duration getTimeout() {
			return this.timeout;
		}

		public void setTimeout(Duration timeout) {
			this.timeout = timeout;
		}

	}

	public static class ServerCheck {

		/**
		 * Whether to check the Redis server's settings (eviction policy, AOF) at start-up
		 * and log what weakens the guarantees.
		 */
		private boolean enabled = true;

		/**
		 * Whether a maxmemory-policy other than noeviction fails the start-up instead of
		 * logging a warning.
		 */
		private boolean failOnEviction;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public boolean isFailOnEviction() {
			return this.failOnEviction;
		}

		public void setFailOnEviction(boolean failOnEviction) {
			this.failOnEviction = failOnEviction;
		}

	}

	public Map<String, Queue> getQueues() {
		return this.queues;
	}

	public static class Listener {

		/**
		 * Number of messages each listener handles at once.
		 */
		private int concurrency = 4;

		/**
		 * Number of messages each listener reads ahead of its handlers. Defaults to the
		 * concurrency.
		 */
		private Integer prefetch;

		/**
		 * How long a delivery's lease lasts before another consumer may take the message
		 * over. Renewed while the handler runs.
		 */
		private Duration visibilityTimeout = Duration.ofSeconds(30);

		/**
		 * Longest time a lease is renewed for one running handler. Defaults to ten times
		 * the visibility timeout.
		 */
		private Duration leaseRenewalLimit;

		/**
		 * Longest time a blocking read waits for messages.
		 */
		private Duration pollTimeout = Duration.ofSeconds(5);

		/**
		 * How long stopping waits for running handlers. Keep it below
		 * spring.lifecycle.timeout-per-shutdown-phase.
		 */
		private Duration shutdownTimeout = Duration.ofSeconds(25);

		/**
		 * Whether listeners start with the application context.
		 */
		private boolean autoStartup = true;

		public int getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(int concurrency) {
			this.concurrency = concurrency;
		}

		public Integer getPrefetch() {
			return this.prefetch;
		}

		public void setPrefetch(Integer prefetch) {
			this.prefetch = prefetch;
		}

		public Duration getVisibilityTimeout() {
			return this.visibilityTimeout;
		}

		public void setVisibilityTimeout(Duration visibilityTimeout) {
			this.visibilityTimeout = visibilityTimeout;
		}

		public Duration getLeaseRenewalLimit() {
			return this.leaseRenewalLimit;
		}

		public void setLeaseRenewalLimit(Duration leaseRenewalLimit) {
			this.leaseRenewalLimit = leaseRenewalLimit;
		}

		public Duration getPollTimeout() {
			return this.pollTimeout;
		}

		public void setPollTimeout(Duration pollTimeout) {
			this.pollTimeout = pollTimeout;
		}

		public Duration getShutdownTimeout() {
			return this.shutdownTimeout;
		}

		public void setShutdownTimeout(Duration shutdownTimeout) {
			this.shutdownTimeout = shutdownTimeout;
		}

		public boolean isAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

	}

	public static class DeadLetter {

		/**
		 * How long dead letters are kept before they are trimmed.
		 */
		private Duration retention = Duration.ofDays(7);

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = retention;
		}

	}

	public static class Admin {

		/**
		 * Whether the delayqueue actuator endpoint offers write operations (replay,
		 * delete and purge dead letters, cancel messages).
		 */
		private boolean enabled;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

	}

	public static class Metrics {

		/**
		 * How long the per-queue gauges reuse one reading of a queue's counts before
		 * asking Redis again.
		 */
		private Duration statsRefresh = Duration.ofSeconds(5);

		public Duration getStatsRefresh() {
			return this.statsRefresh;
		}

		public void setStatsRefresh(Duration statsRefresh) {
			this.statsRefresh = statsRefresh;
		}

	}

	public static class Queue {

		/**
		 * Number of messages this queue's listeners handle at once.
		 */
		private Integer concurrency;

		/**
		 * How long a delivery's lease on this queue lasts.
		 */
		private Duration visibilityTimeout;

		/**
		 * Most attempts per message on this queue, the first included.
		 */
		private Integer maxAttempts;

		/**
		 * Whether this queue's listeners start with the application context.
		 */
		private Boolean autoStartup;

		private final QueueRetry retry = new QueueRetry();

		private final QueueDeadLetter deadLetter = new QueueDeadLetter();

		public Integer getConcurrency() {
			return this.concurrency;
		}

		public void setConcurrency(Integer concurrency) {
			this.concurrency = concurrency;
		}

		public Duration getVisibilityTimeout() {
			return this.visibilityTimeout;
		}

		public void setVisibilityTimeout(Duration visibilityTimeout) {
			this.visibilityTimeout = visibilityTimeout;
		}

		public Integer getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Boolean getAutoStartup() {
			return this.autoStartup;
		}

		public void setAutoStartup(Boolean autoStartup) {
			this.autoStartup = autoStartup;
		}

		public QueueRetry getRetry() {
			return this.retry;
		}

		public QueueDeadLetter getDeadLetter() {
			return this.deadLetter;
		}

	}

	public static class QueueRetry {

		/**
		 * Delay before the first retry on this queue.
		 */
		private Duration initialBackoff;

		/**
		 * Factor by which the delay grows with each retry on this queue.
		 */
		private Double multiplier;

		/**
		 * Largest delay between two attempts on this queue.
		 */
		private Duration maxBackoff;

		/**
		 * Random spread of each delay on this queue, from 0 to 1.
		 */
		private Double jitter;

		public Duration getInitialBackoff() {
			return this.initialBackoff;
		}

		public void setInitialBackoff(Duration initialBackoff) {
			this.initialBackoff = initialBackoff;
		}

		public Double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(Double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxBackoff() {
			return this.maxBackoff;
		}

		public void setMaxBackoff(Duration maxBackoff) {
			this.maxBackoff = maxBackoff;
		}

		public Double getJitter() {
			return this.jitter;
		}

		public void setJitter(Double jitter) {
			this.jitter = jitter;
		}

	}

	public static class QueueDeadLetter {

		/**
		 * How long this queue's dead letters are kept.
		 */
		private Duration retention;

		public Duration getRetention() {
			return this.retention;
		}

		public void setRetention(Duration retention) {
			this.retention = retention;
		}

	}

	public static class Scheduler {

		/**
		 * Longest time a scheduler sleeps without checking Redis. Bounds the lateness of
		 * a message only when its wake-up notification is lost.
		 */
		private Duration maxIdle = Duration.ofSeconds(2);

		public Duration getMaxIdle() {
			return this.maxIdle;
		}

		public void setMaxIdle(Duration maxIdle) {
			this.maxIdle = maxIdle;
		}

	}

	public static class Retry {

		/**
		 * Most attempts per message and group, the first included.
		 */
		private int maxAttempts = 5;

		/**
		 * Delay before the first retry.
		 */
		private Duration initialBackoff = Duration.ofSeconds(1);

		/**
		 * Factor by which the delay grows with each retry.
		 */
		private double multiplier = 2.0;

		/**
		 * Largest delay between two attempts.
		 */
		private Duration maxBackoff = Duration.ofMinutes(10);

		/**
		 * Random spread of each delay, from 0 to 1 (0.2 is plus or minus 20%).
		 */
		private double jitter = 0.2;

		public int getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(int maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

		public Duration getInitialBackoff() {
			return this.initialBackoff;
		}

		public void setInitialBackoff(Duration initialBackoff) {
			this.initialBackoff = initialBackoff;
		}

		public double getMultiplier() {
			return this.multiplier;
		}

		public void setMultiplier(double multiplier) {
			this.multiplier = multiplier;
		}

		public Duration getMaxBackoff() {
			return this.maxBackoff;
		}

		public void setMaxBackoff(Duration maxBackoff) {
			this.maxBackoff = maxBackoff;
		}

		public double getJitter() {
			return this.jitter;
		}

		public void setJitter(double jitter) {
			this.jitter = jitter;
		}

	}

}
