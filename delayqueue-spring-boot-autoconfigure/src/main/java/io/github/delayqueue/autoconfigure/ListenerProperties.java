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
import java.util.List;

import org.springframework.boot.context.properties.DeprecatedConfigurationProperty;

/**
 * Listener settings, the same under {@code delayqueue.listener} (every listener's
 * defaults) and {@code delayqueue.queues.<name>} (one queue's listeners). A setting left
 * unset is inherited: a queue's from {@code delayqueue.listener}, that from the engine's
 * defaults ({@code ListenerSettings.DEFAULTS}). Mapped onto {@code ListenerSettings} by
 * {@link DelayListenerContainerFactoryConfigurer}.
 */
public class ListenerProperties {

	/**
	 * Number of messages a listener handles at once (default 4).
	 */
	private Integer concurrency;

	/**
	 * Number of messages a listener reads ahead of its handlers (default: the
	 * concurrency).
	 */
	private Integer prefetch;

	/**
	 * How long a delivery's lease lasts before another consumer may take the message
	 * over; renewed while the handler runs (default 30s).
	 */
	private Duration visibilityTimeout;

	/**
	 * Longest time a lease is renewed for one running handler; past it the message is
	 * given up (retried or dead-lettered) and the handler's thread replaced (default ten
	 * visibility timeouts).
	 */
	private Duration leaseRenewalLimit;

	/**
	 * Longest time a blocking read waits for messages; kept below
	 * spring.data.redis.timeout (default 5s).
	 */
	private Duration pollTimeout;

	/**
	 * How long stopping waits for running handlers; keep it below
	 * spring.lifecycle.timeout-per-shutdown-phase (default 25s).
	 */
	private Duration shutdownTimeout;

	/**
	 * How often acknowledged entries and expired dead letters are trimmed, and stale
	 * consumers removed (default 30s).
	 */
	private Duration trimInterval;

	/**
	 * How long dead letters are kept (default 7d).
	 */
	private Duration deadLetterRetention;

	/**
	 * How long a consumer of the group that holds nothing may stay idle before it is
	 * removed from the group (default 10m).
	 */
	private Duration staleConsumerTimeout;

	/**
	 * Whether listeners start with the application context (default true).
	 */
	private Boolean autoStartup;

	/**
	 * Whether each partition of the queue is consumed by one instance of the group at a
	 * time, through a lease in Redis (default false: every instance reads every
	 * partition). Implied by ordered.
	 */
	private Boolean exclusive;

	/**
	 * Whether the messages of a partition (so of a key) are handled one at a time, in due
	 * order (default false). Implies exclusive.
	 */
	private Boolean ordered;

	/**
	 * For ordered listeners: whether a failed message is retried in place, holding back
	 * the messages behind it (default true), or through the retry stream, letting them
	 * pass.
	 */
	private Boolean blockingRetries;

	private final Retry retry = new Retry();

	/**
	 * Attempts before dead-lettering; replaced by retry.max-attempts.
	 */
	private Integer maxAttempts;

	private final DeadLetter deadLetter = new DeadLetter();

	/**
	 * Number of partitions of the queue (under delayqueue.queues.<name> only), each a
	 * slot of its own on Redis Cluster. Producers and consumers of the queue must set the
	 * same number; it is stored in Redis on first use, and a different number is refused.
	 * Concurrency is shared by the partitions; prefetch applies per partition. Default 1.
	 */
	private Integer partitions;

	/**
	 * Whether the queue is declared paused at start-up (under delayqueue.queues.<name>
	 * only): its first listener writes the pause to Redis before any handler starts, and
	 * it stays paused for every instance until resumed (admin API or endpoint). An
	 * instance started with it pauses the queue again.
	 */
	private Boolean paused;

	/**
	 * Whether the queue is fair-share (under delayqueue.queues.<name> only): due messages
	 * are handed out key by key in turn, so one key's backlog cannot hold back another
	 * key's message. Set it on every application that sends to or listens on the queue.
	 */
	private Boolean fairShare;

	/**
	 * How long after its due time a message sent to the queue expires unless it says
	 * otherwise (under delayqueue.queues.<name> only; applied by the sending
	 * application). An expired message reaches no handler: it becomes a dead letter, or
	 * is discarded (discard-expired). Default: messages do not expire.
	 */
	private Duration expireAfter;

	/**
	 * Maximum of waiting (scheduled or ready) messages of the queue (under
	 * delayqueue.queues.<name> only): a send over it is refused, writing nothing. Written
	 * to Redis when this application first uses the queue, for every producer; each
	 * partition takes its share. Default: unlimited.
	 */
	private Long sizeLimit;

	/**
	 * Rate limit of the queue's handler starts, per consumer group, across every instance
	 * (under delayqueue.queues.<name> only): permits/period[/burst][/key], e.g. 500/1s,
	 * 100/1m/10, or 5/1s/key for a limit per message key. Written to Redis when this
	 * application's first listener of the queue starts. Default: unlimited.
	 */
	private String rateLimit;

	/**
	 * Concurrency limit of the queue's handlers, per consumer group, across every
	 * instance and partition (under delayqueue.queues.<name> only): max[/key], e.g. 10
	 * (at most 10 running at once), or 2/key for at most 2 per message key. Written to
	 * Redis when this application's first listener of the queue starts. Default:
	 * unlimited (each listener's concurrency bounds its own instance only).
	 */
	private String concurrencyLimit;

	public String getConcurrencyLimit() {
		return this.concurrencyLimit;
	}

	public void setConcurrencyLimit(String concurrencyLimit) {
		this.concurrencyLimit = concurrencyLimit;
	}

	public String getRateLimit() {
		return this.rateLimit;
	}

	public void setRateLimit(String rateLimit) {
		this.rateLimit = rateLimit;
	}

	public Long getSizeLimit() {
		return this.sizeLimit;
	}

	public void setSizeLimit(Long sizeLimit) {
		this.sizeLimit = sizeLimit;
	}

	/**
	 * Whether a message that expired before it was handled is discarded rather than
	 * dead-lettered (default false). Either way it is counted
	 * (delayqueue.messages.expired).
	 */
	private Boolean discardExpired;

	/**
	 * How many times a handler may snooze a message (throw SnoozeException) before its
	 * next snooze makes it a dead letter (default 1000). Its expiry, if any, ends the
	 * snoozes too.
	 */
	private Integer maxSnoozes;

	/**
	 * For a batch listener (@DelayListener(batch = "true")), the most messages per call
	 * (default 100, at most 10000). Listeners of one message at a time ignore it.
	 */
	private Integer batchSize;

	/**
	 * For a batch listener, how long a worker holding fewer than batch-size messages
	 * waits for more before it calls the handler (default 0: it takes what is waiting).
	 * Listeners of one message at a time ignore it.
	 */
	private Duration batchWait;

	/**
	 * After how long without a message a listener publishes a ContainerIdleEvent (and
	 * again after each further interval while idle); at least 1s. Default: never.
	 */
	private Duration idleEventInterval;

	public Duration getIdleEventInterval() {
		return this.idleEventInterval;
	}

	public void setIdleEventInterval(Duration idleEventInterval) {
		this.idleEventInterval = idleEventInterval;
	}

	public Integer getBatchSize() {
		return this.batchSize;
	}

	public void setBatchSize(Integer batchSize) {
		this.batchSize = batchSize;
	}

	public Duration getBatchWait() {
		return this.batchWait;
	}

	public void setBatchWait(Duration batchWait) {
		this.batchWait = batchWait;
	}

	public Integer getMaxSnoozes() {
		return this.maxSnoozes;
	}

	public void setMaxSnoozes(Integer maxSnoozes) {
		this.maxSnoozes = maxSnoozes;
	}

	public Duration getExpireAfter() {
		return this.expireAfter;
	}

	public void setExpireAfter(Duration expireAfter) {
		this.expireAfter = expireAfter;
	}

	public Boolean getDiscardExpired() {
		return this.discardExpired;
	}

	public void setDiscardExpired(Boolean discardExpired) {
		this.discardExpired = discardExpired;
	}

	public Integer getPartitions() {
		return this.partitions;
	}

	public void setPartitions(Integer partitions) {
		this.partitions = partitions;
	}

	public Boolean getPaused() {
		return this.paused;
	}

	public void setPaused(Boolean paused) {
		this.paused = paused;
	}

	public Boolean getFairShare() {
		return this.fairShare;
	}

	public void setFairShare(Boolean fairShare) {
		this.fairShare = fairShare;
	}

	public Integer getConcurrency() {
		return this.concurrency;
	}

	public void setConcurrency(Integer concurrency) {
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

	public Duration getTrimInterval() {
		return this.trimInterval;
	}

	public void setTrimInterval(Duration trimInterval) {
		this.trimInterval = trimInterval;
	}

	public Duration getDeadLetterRetention() {
		return this.deadLetterRetention;
	}

	public void setDeadLetterRetention(Duration deadLetterRetention) {
		this.deadLetterRetention = deadLetterRetention;
	}

	public Duration getStaleConsumerTimeout() {
		return this.staleConsumerTimeout;
	}

	public void setStaleConsumerTimeout(Duration staleConsumerTimeout) {
		this.staleConsumerTimeout = staleConsumerTimeout;
	}

	public Boolean getAutoStartup() {
		return this.autoStartup;
	}

	public void setAutoStartup(Boolean autoStartup) {
		this.autoStartup = autoStartup;
	}

	public Boolean getExclusive() {
		return this.exclusive;
	}

	public void setExclusive(Boolean exclusive) {
		this.exclusive = exclusive;
	}

	public Boolean getOrdered() {
		return this.ordered;
	}

	public void setOrdered(Boolean ordered) {
		this.ordered = ordered;
	}

	public Boolean getBlockingRetries() {
		return this.blockingRetries;
	}

	public void setBlockingRetries(Boolean blockingRetries) {
		this.blockingRetries = blockingRetries;
	}

	public Retry getRetry() {
		return this.retry;
	}

	@Deprecated(since = "0.1.0")
	@DeprecatedConfigurationProperty(reason = "Use retry.max-attempts beside it", since = "0.1.0")
	public Integer getMaxAttempts() {
		return this.maxAttempts;
	}

	@Deprecated(since = "0.1.0")
	public void setMaxAttempts(Integer maxAttempts) {
		this.maxAttempts = maxAttempts;
	}

	@Deprecated(since = "0.1.0")
	public DeadLetter getDeadLetter() {
		return this.deadLetter;
	}

	/**
	 * Retry settings.
	 */
	public static class Retry {

		/**
		 * Attempts a message gets before it is dead-lettered, unless the message says
		 * (default 5).
		 */
		private Integer maxAttempts;

		/**
		 * Backoff before the second attempt (default 1s).
		 */
		private Duration initialBackoff;

		/**
		 * Factor each backoff grows by (default 2).
		 */
		private Double multiplier;

		/**
		 * Longest backoff (default 10m).
		 */
		private Duration maxBackoff;

		/**
		 * Random spread of each backoff, as a fraction between 0 and 1 (default 0.2).
		 */
		private Double jitter;

		/**
		 * Exception types (fully qualified class names) dead-lettered at once, never
		 * retried; a subclass matches too. Replaces the types of the level above.
		 */
		private List<String> nonRetryable;

		public Integer getMaxAttempts() {
			return this.maxAttempts;
		}

		public void setMaxAttempts(Integer maxAttempts) {
			this.maxAttempts = maxAttempts;
		}

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

		public List<String> getNonRetryable() {
			return this.nonRetryable;
		}

		public void setNonRetryable(List<String> nonRetryable) {
			this.nonRetryable = nonRetryable;
		}

	}

	/**
	 * Former place of the dead-letter retention.
	 */
	public static class DeadLetter {

		/**
		 * How long dead letters are kept; replaced by dead-letter-retention.
		 */
		private Duration retention;

		@Deprecated(since = "0.1.0")
		@DeprecatedConfigurationProperty(reason = "Use dead-letter-retention beside dead-letter", since = "0.1.0")
		public Duration getRetention() {
			return this.retention;
		}

		@Deprecated(since = "0.1.0")
		public void setRetention(Duration retention) {
			this.retention = retention;
		}

	}

}
