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

import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * The settings of a {@link DelayQueueListenerContainer}, immutable, defined in this one
 * place: the container builder, {@code @DelayListener}, the listener container factory
 * and the Spring Boot properties all set them through a {@link ListenerSetters} (where
 * each setting is validated) and take their defaults from {@link #DEFAULTS}.
 *
 * @param concurrency the number of handlers running at once (for all the partitions of
 * the queue)
 * @param prefetch how many messages may wait for a free worker, per partition of the
 * queue
 * @param visibilityTimeout how long a delivery's lease lasts without renewal
 * @param leaseRenewalLimit how long the watchdog keeps renewing a running handler's
 * lease; past it the container gives the message up (retried per policy, or
 * dead-lettered) and abandons the handler's thread to a replacement
 * @param pollTimeout how long one blocking read waits
 * @param shutdownTimeout how long stop waits for running handlers
 * @param trimInterval how often acknowledged entries are trimmed and stale consumers
 * pruned
 * @param deadLetterRetention how long dead letters are kept
 * @param staleConsumerTimeout how long a consumer of the group that holds nothing may
 * stay idle before recovery removes it from the group
 * @param retryPolicy the retry policy
 * @param executor the executor of the workers, or {@code null} for own threads
 * @param autoStartup whether the Spring context starts the container
 * @param exclusive whether each partition of the queue is consumed by one container of
 * the group at a time, which holds a lease on it (implied by {@code ordered})
 * @param ordered whether the messages of a partition (so of a key) are handled one at a
 * time, in due order
 * @param blockingRetries in ordered mode, whether a failed message is retried in place,
 * holding back the messages behind it (otherwise it is retried through the retry stream
 * and the others pass it)
 * @param discardExpired whether a message that expired (see
 * {@link io.github.delayqueue.core.DelayMessage.Builder#expireAfter}) is discarded rather
 * than dead-lettered
 * @param maxSnoozes how many times a message may be snoozed before its next snooze makes
 * it a dead letter (see {@link SnoozeException})
 * @param batchSize for a batch listener ({@link DelayBatchHandler}), the most messages
 * per call
 * @param batchWait for a batch listener, how long a worker that holds fewer than
 * {@code batchSize} messages waits for more before it calls the handler; zero: it takes
 * what is waiting
 * @param idleEventInterval after how long without a message the container publishes a
 * {@link io.github.delayqueue.core.event.ContainerIdleEvent} (and again after each such
 * interval while idle); {@code null}: never
 */
public record ListenerSettings(int concurrency, int prefetch, Duration visibilityTimeout, Duration leaseRenewalLimit,
		Duration pollTimeout, Duration shutdownTimeout, Duration trimInterval, Duration deadLetterRetention,
		Duration staleConsumerTimeout, RetryPolicy retryPolicy, Executor executor, boolean autoStartup,
		boolean exclusive, boolean ordered, boolean blockingRetries, boolean discardExpired, int maxSnoozes,
		int batchSize, Duration batchWait, Duration idleEventInterval) {

	/**
	 * Settings without idle events, as before container events.
	 * @param concurrency handlers running at once
	 * @param prefetch messages read ahead per partition
	 * @param visibilityTimeout the lease of a delivery
	 * @param leaseRenewalLimit how long a running handler's lease is renewed
	 * @param pollTimeout how long one blocking read waits
	 * @param shutdownTimeout how long a stop waits for running handlers
	 * @param trimInterval how often acknowledged entries and old dead letters are trimmed
	 * @param deadLetterRetention how long dead letters are kept
	 * @param staleConsumerTimeout when idle consumers holding nothing are removed
	 * @param retryPolicy the retry policy
	 * @param executor runs the worker loops, or {@code null} for the container's threads
	 * @param autoStartup whether a Spring context starts it
	 * @param exclusive whether each partition is read by one container at a time
	 * @param ordered whether a partition's messages are handled one at a time in order
	 * @param blockingRetries whether an ordered listener retries in place
	 * @param discardExpired whether expired messages are discarded
	 * @param maxSnoozes how many snoozes a message may have
	 * @param batchSize the most messages per batch handler call
	 * @param batchWait how long a batch waits to fill
	 */
	public ListenerSettings(int concurrency, int prefetch, Duration visibilityTimeout, Duration leaseRenewalLimit,
			Duration pollTimeout, Duration shutdownTimeout, Duration trimInterval, Duration deadLetterRetention,
			Duration staleConsumerTimeout, RetryPolicy retryPolicy, Executor executor, boolean autoStartup,
			boolean exclusive, boolean ordered, boolean blockingRetries, boolean discardExpired, int maxSnoozes,
			int batchSize, Duration batchWait) {
		this(concurrency, prefetch, visibilityTimeout, leaseRenewalLimit, pollTimeout, shutdownTimeout, trimInterval,
				deadLetterRetention, staleConsumerTimeout, retryPolicy, executor, autoStartup, exclusive, ordered,
				blockingRetries, discardExpired, maxSnoozes, batchSize, batchWait, null);
	}

	/**
	 * The defaults: concurrency 4, prefetch = concurrency, visibility timeout 30 s, lease
	 * renewal limit 10 visibility timeouts, poll timeout 5 s, shutdown timeout 30 s, trim
	 * interval 30 s, dead letters kept 7 days, stale consumers removed after 10 minutes,
	 * {@link RetryPolicy#DEFAULT}, own worker threads, started with the context, shared
	 * partitions (every container of the group reads every partition), unordered, expired
	 * messages dead-lettered, at most 1,000 snoozes, batches of at most 100 messages
	 * taken without waiting.
	 */
	public static final ListenerSettings DEFAULTS = new Builder().build();

	/**
	 * Settings with the default snooze limit (1,000), as before {@code maxSnoozes}.
	 * @param concurrency handlers running at once
	 * @param prefetch messages read ahead per partition
	 * @param visibilityTimeout the lease of a delivery
	 * @param leaseRenewalLimit how long a running handler's lease is renewed
	 * @param pollTimeout how long one blocking read waits
	 * @param shutdownTimeout how long a stop waits for running handlers
	 * @param trimInterval how often acknowledged entries and old dead letters are trimmed
	 * @param deadLetterRetention how long dead letters are kept
	 * @param staleConsumerTimeout when idle consumers holding nothing are removed
	 * @param retryPolicy the retry policy
	 * @param executor runs the worker loops, or {@code null} for the container's threads
	 * @param autoStartup whether a Spring context starts it
	 * @param exclusive whether each partition is read by one container at a time
	 * @param ordered whether a partition's messages are handled one at a time in order
	 * @param blockingRetries whether an ordered listener retries in place
	 * @param discardExpired whether expired messages are discarded
	 */
	public ListenerSettings(int concurrency, int prefetch, Duration visibilityTimeout, Duration leaseRenewalLimit,
			Duration pollTimeout, Duration shutdownTimeout, Duration trimInterval, Duration deadLetterRetention,
			Duration staleConsumerTimeout, RetryPolicy retryPolicy, Executor executor, boolean autoStartup,
			boolean exclusive, boolean ordered, boolean blockingRetries, boolean discardExpired) {
		this(concurrency, prefetch, visibilityTimeout, leaseRenewalLimit, pollTimeout, shutdownTimeout, trimInterval,
				deadLetterRetention, staleConsumerTimeout, retryPolicy, executor, autoStartup, exclusive, ordered,
				blockingRetries, discardExpired, 1000);
	}

	/**
	 * Settings with the default batch size (100) and wait (none), as before batch
	 * listeners.
	 * @param concurrency handlers running at once
	 * @param prefetch messages read ahead per partition
	 * @param visibilityTimeout the lease of a delivery
	 * @param leaseRenewalLimit how long a running handler's lease is renewed
	 * @param pollTimeout how long one blocking read waits
	 * @param shutdownTimeout how long a stop waits for running handlers
	 * @param trimInterval how often acknowledged entries and old dead letters are trimmed
	 * @param deadLetterRetention how long dead letters are kept
	 * @param staleConsumerTimeout when idle consumers holding nothing are removed
	 * @param retryPolicy the retry policy
	 * @param executor runs the worker loops, or {@code null} for the container's threads
	 * @param autoStartup whether a Spring context starts it
	 * @param exclusive whether each partition is read by one container at a time
	 * @param ordered whether a partition's messages are handled one at a time in order
	 * @param blockingRetries whether an ordered listener retries in place
	 * @param discardExpired whether expired messages are discarded
	 * @param maxSnoozes how many snoozes a message may have
	 */
	public ListenerSettings(int concurrency, int prefetch, Duration visibilityTimeout, Duration leaseRenewalLimit,
			Duration pollTimeout, Duration shutdownTimeout, Duration trimInterval, Duration deadLetterRetention,
			Duration staleConsumerTimeout, RetryPolicy retryPolicy, Executor executor, boolean autoStartup,
			boolean exclusive, boolean ordered, boolean blockingRetries, boolean discardExpired, int maxSnoozes) {
		this(concurrency, prefetch, visibilityTimeout, leaseRenewalLimit, pollTimeout, shutdownTimeout, trimInterval,
				deadLetterRetention, staleConsumerTimeout, retryPolicy, executor, autoStartup, exclusive, ordered,
				blockingRetries, discardExpired, maxSnoozes, 100, Duration.ZERO);
	}

	/**
	 * @param partitions the queue's partition count
	 * @return how many messages the container holds at most:
	 * {@code concurrency + prefetch × partitions}
	 */
	public int limit(int partitions) {
		return this.concurrency + this.prefetch * partitions;
	}

	/**
	 * Starts building settings from the defaults.
	 * @return a builder
	 */
	public static Builder builder() {
		return new Builder();
	}

	/**
	 * Builds {@link ListenerSettings}.
	 */
	public static final class Builder extends ListenerSetters<Builder> {

		Builder() {
		}

		/**
		 * @return the settings
		 */
		public ListenerSettings build() {
			return buildSettings();
		}

	}

}
