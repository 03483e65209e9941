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
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.Consumer;

/**
 * Where every listener setting is set and validated; {@link ListenerSettings.Builder} and
 * {@link DelayQueueListenerContainer.Builder} share it.
 *
 * @param <B> the builder type, returned by each setter
 */
public abstract class ListenerSetters<B extends ListenerSetters<B>> {

	/** The largest batch size. */
	public static final int MAX_BATCH_SIZE = 10_000;

	private final ListenerDraft draft = new ListenerDraft();

	ListenerSetters() {
	}

	@SuppressWarnings("unchecked")
	private B self() {
		return (B) this;
	}

	/**
	 * Takes every setting of another builder, those it left to their default included (a
	 * prefetch left unset stays equal to the concurrency, whatever the concurrency
	 * becomes).
	 * @param template the other builder
	 * @return this builder
	 */
	public B from(ListenerSetters<?> template) {
		Objects.requireNonNull(template, "Template must not be null");
		this.draft.copyFrom(template.draft);
		return self();
	}

	/**
	 * Applies a customization, e.g. one layer of settings (a queue's properties, an
	 * annotation's attributes).
	 * @param customizer the customization
	 * @return this builder
	 */
	public B apply(Consumer<? super ListenerSetters<?>> customizer) {
		customizer.accept(this);
		return self();
	}

	/**
	 * Sets how many handlers run at once (default 4), whatever the queue's partition
	 * count.
	 * @param concurrency at least 1
	 * @return this builder
	 */
	public B concurrency(int concurrency) {
		this.draft.concurrency = ListenerDraft.atLeastOne("Concurrency", concurrency);
		return self();
	}

	/**
	 * Sets how many read messages may wait for a free worker (default: concurrency), per
	 * partition of the queue: each partition's reader reads ahead in batches.
	 * @param prefetch at least 1
	 * @return this builder
	 */
	public B prefetch(int prefetch) {
		this.draft.prefetch = ListenerDraft.atLeastOne("Prefetch", prefetch);
		return self();
	}

	/**
	 * Sets the lease of a delivery (default 30s): a message whose consumer neither acks
	 * nor renews within it is redelivered to another consumer.
	 * @param timeout the visibility timeout
	 * @return this builder
	 */
	public B visibilityTimeout(Duration timeout) {
		this.draft.visibilityTimeout = ListenerDraft.positive("Visibility timeout", timeout);
		return self();
	}

	/**
	 * Sets how long the watchdog renews a running handler's lease (default 10 visibility
	 * timeouts); past it (and any {@link DelayMessageContext#extendLease(Duration)}) the
	 * container gives the message up with a {@link HandlerTimeoutException} and replaces
	 * the handler's thread.
	 * @param limit the limit
	 * @return this builder
	 */
	public B leaseRenewalLimit(Duration limit) {
		this.draft.leaseRenewalLimit = ListenerDraft.positive("Lease renewal limit", limit);
		return self();
	}

	/**
	 * Sets how long one blocking read waits for messages (default 5s; kept below the
	 * Redis client's command timeout).
	 * @param timeout the poll timeout
	 * @return this builder
	 */
	public B pollTimeout(Duration timeout) {
		this.draft.pollTimeout = ListenerDraft.positive("Poll timeout", timeout);
		return self();
	}

	/**
	 * Sets how long {@code stop} waits for running handlers (default 30s).
	 * @param timeout the shutdown timeout
	 * @return this builder
	 */
	public B shutdownTimeout(Duration timeout) {
		this.draft.shutdownTimeout = ListenerDraft.positive("Shutdown timeout", timeout);
		return self();
	}

	/**
	 * Sets how often acknowledged entries are trimmed from the streams and stale
	 * consumers pruned (default 30s).
	 * @param interval the interval
	 * @return this builder
	 */
	public B trimInterval(Duration interval) {
		this.draft.trimInterval = ListenerDraft.positive("Trim interval", interval);
		return self();
	}

	/**
	 * Sets how long dead letters are kept (default 7 days).
	 * @param retention the retention
	 * @return this builder
	 */
	public B deadLetterRetention(Duration retention) {
		this.draft.deadLetterRetention = ListenerDraft.positive("Dead-letter retention", retention);
		return self();
	}

	/**
	 * Sets how long a consumer of the group that holds nothing may stay idle before the
	 * trimming pass removes it from the group (default 10 minutes): consumers of crashed
	 * containers do not pile up in {@code XINFO CONSUMERS}. A container removes its own
	 * consumer on a clean stop.
	 * @param timeout the timeout
	 * @return this builder
	 */
	public B staleConsumerTimeout(Duration timeout) {
		this.draft.staleConsumerTimeout = ListenerDraft.positive("Stale consumer timeout", timeout);
		return self();
	}

	/**
	 * Sets the whole retry policy (default {@link RetryPolicy#DEFAULT}).
	 * @param policy the policy
	 * @return this builder
	 */
	public B retryPolicy(RetryPolicy policy) {
		Objects.requireNonNull(policy, "Retry policy must not be null");
		this.draft.maxAttempts = policy.maxAttempts();
		this.draft.initialBackoff = policy.initialBackoff();
		this.draft.backoffMultiplier = policy.multiplier();
		this.draft.maxBackoff = policy.maxBackoff();
		this.draft.jitter = policy.jitter();
		this.draft.nonRetryable = new LinkedHashSet<>(policy.nonRetryable());
		return self();
	}

	/**
	 * Sets how many attempts a message gets (default 5), unless the message says.
	 * @param attempts at least 1
	 * @return this builder
	 */
	public B maxAttempts(int attempts) {
		this.draft.maxAttempts = ListenerDraft.atLeastOne("Max attempts", attempts);
		return self();
	}

	/**
	 * Sets the backoff before the second attempt (default 1s).
	 * @param backoff the backoff, not negative
	 * @return this builder
	 */
	public B initialBackoff(Duration backoff) {
		this.draft.initialBackoff = Objects.requireNonNull(backoff, "Initial backoff must not be null");
		return self();
	}

	/**
	 * Sets the factor each backoff grows by (default 2).
	 * @param multiplier at least 1
	 * @return this builder
	 */
	public B backoffMultiplier(double multiplier) {
		this.draft.backoffMultiplier = multiplier;
		return self();
	}

	/**
	 * Sets the longest backoff (default 10 minutes).
	 * @param backoff the backoff
	 * @return this builder
	 */
	public B maxBackoff(Duration backoff) {
		this.draft.maxBackoff = Objects.requireNonNull(backoff, "Max backoff must not be null");
		return self();
	}

	/**
	 * Sets the random spread of each backoff, as a fraction (default 0.2).
	 * @param jitter between 0 and 1
	 * @return this builder
	 */
	public B jitter(double jitter) {
		this.draft.jitter = jitter;
		return self();
	}

	/**
	 * Sets the exception types that are dead-lettered at once, never retried (default
	 * none; undecodable messages never are).
	 * @param types the types
	 * @return this builder
	 */
	public B nonRetryable(Collection<Class<? extends Throwable>> types) {
		this.draft.nonRetryable = new LinkedHashSet<>(Objects.requireNonNull(types, "Types must not be null"));
		return self();
	}

	/**
	 * Sets the executor the workers run on (default: the container's own threads); e.g. a
	 * virtual-thread executor.
	 * @param executor the executor, or {@code null} for own threads
	 * @return this builder
	 */
	public B executor(Executor executor) {
		this.draft.executor = executor;
		return self();
	}

	/**
	 * Sets whether a Spring context starts the container (default {@code true}).
	 * @param autoStartup whether to start automatically
	 * @return this builder
	 */
	public B autoStartup(boolean autoStartup) {
		this.draft.autoStartup = autoStartup;
		return self();
	}

	/**
	 * Sets whether each partition of the queue is consumed by one container of the group
	 * at a time (default {@code false}: every container reads every partition). The
	 * containers of the group share the partitions fairly through leases in Redis, and
	 * rebalance as containers start and stop.
	 * @param exclusive whether partitions are owned
	 * @return this builder
	 */
	public B exclusive(boolean exclusive) {
		this.draft.exclusive = exclusive;
		return self();
	}

	/**
	 * Sets whether the messages of a partition, so all the messages of a key, are handled
	 * one at a time, in due order (default {@code false}). Implies
	 * {@link #exclusive(boolean) exclusive}: each partition is owned by one container of
	 * the group. Messages of different partitions still run in parallel, up to the
	 * concurrency.
	 * @param ordered whether to handle each partition's messages in order
	 * @return this builder
	 */
	public B ordered(boolean ordered) {
		this.draft.ordered = ordered;
		return self();
	}

	/**
	 * Sets, in ordered mode, whether a failed message is retried in place after its
	 * backoff, holding back the messages of its partition until it succeeds or is
	 * dead-lettered (default {@code true}, as a Kafka consumer does); with {@code false}
	 * it is retried through the group's retry stream and the messages behind it pass it.
	 * @param blocking whether retries block the partition
	 * @return this builder
	 */
	public B blockingRetries(boolean blocking) {
		this.draft.blockingRetries = blocking;
		return self();
	}

	/**
	 * Sets whether a message that expired before it was handled (see
	 * {@link io.github.delayqueue.core.DelayMessage.Builder#expireAfter}) is discarded
	 * (default {@code false}: it becomes a dead letter naming
	 * {@link MessageExpiredException}). Either way it is counted
	 * ({@link io.github.delayqueue.core.DelayQueueObserver#expired}).
	 * @param discard whether to discard expired messages
	 * @return this builder
	 */
	public B discardExpired(boolean discard) {
		this.draft.discardExpired = discard;
		return self();
	}

	/**
	 * Sets how many times a message may be snoozed (see {@link SnoozeException}) before
	 * its next snooze makes it a dead letter instead (default 1,000; its expiry, if any,
	 * ends the snoozes too).
	 * @param snoozes at least 1
	 * @return this builder
	 */
	public B maxSnoozes(int snoozes) {
		this.draft.maxSnoozes = ListenerDraft.atLeastOne("Max snoozes", snoozes);
		return self();
	}

	/**
	 * Sets, for a batch listener ({@link DelayBatchHandler}), the most messages per call
	 * (default 100). A batch listener reads ahead at least one batch per partition.
	 * Listeners of one message at a time ignore it.
	 * @param size from 1 to {@value #MAX_BATCH_SIZE}
	 * @return this builder
	 */
	public B batchSize(int size) {
		if (size < 1 || size > MAX_BATCH_SIZE) {
			throw new IllegalArgumentException("Batch size must be from 1 to " + MAX_BATCH_SIZE + ", but was " + size);
		}
		this.draft.batchSize = size;
		return self();
	}

	/**
	 * Sets, for a batch listener ({@link DelayBatchHandler}), how long a worker holding
	 * fewer than the batch size waits for more messages before it calls the handler
	 * (default zero: it takes the messages waiting and calls at once). A wait makes
	 * fuller batches at the price of that much lateness at low rates. Listeners of one
	 * message at a time ignore it.
	 * @param wait from zero to 1 minute
	 * @return this builder
	 */
	public B batchWait(Duration wait) {
		if (wait == null || wait.isNegative() || wait.compareTo(Duration.ofMinutes(1)) > 0) {
			throw new IllegalArgumentException("Batch wait must be from 0 to 1 minute, but was " + wait);
		}
		this.draft.batchWait = wait;
		return self();
	}

	/**
	 * Sets after how long without a message the container publishes a
	 * {@link io.github.delayqueue.core.event.ContainerIdleEvent} to the engine's event
	 * listeners, and again after each further interval while it stays idle (default
	 * none). Measured by the container's watchdog, so the event comes up to a second
	 * late.
	 * @param interval at least 1 second, or {@code null} for no idle events
	 * @return this builder
	 */
	public B idleEventInterval(Duration interval) {
		if (interval != null && interval.compareTo(Duration.ofSeconds(1)) < 0) {
			throw new IllegalArgumentException("Idle event interval must be at least 1 second, but was " + interval);
		}
		this.draft.idleEventInterval = interval;
		return self();
	}

	/**
	 * Builds the settings: validates the retry settings together.
	 * @return the settings
	 */
	protected ListenerSettings buildSettings() {
		return this.draft.build();
	}

}
