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

import java.time.Duration;

import io.github.delayqueue.core.internal.QueueDeclarations;

/**
 * What an engine declares about one queue, through
 * {@link DelayQueueEngineBuilder#queue(String, java.util.function.Consumer)}:
 * <pre class="code">
 * DelayQueueEngine engine = DelayQueueEngine.builder(connectionFactory)
 * 	.queue("payments", (queue) -> queue.partitions(12).fairShare().sizeLimit(100_000))
 * 	.build();
 * </pre>
 */
public final class QueueDeclaration {

	private final QueueDeclarations settings;

	private final String queue;

	QueueDeclaration(QueueDeclarations settings, String queue) {
		this.settings = settings;
		this.queue = queue;
	}

	/**
	 * Declares how many partitions the queue has (default 1): each partition is a slot of
	 * its own on Redis Cluster, so one queue spreads over several masters. The count is
	 * stored in Redis on first use; an engine whose declaration differs from Redis's
	 * refuses the queue, naming both counts. A change is made in Redis first, with
	 * {@link DelayQueueAdmin#changePartitions(String, int)}. See {@code docs/scaling.md}.
	 * @param count the partition count, 1 to
	 * {@value io.github.delayqueue.core.internal.redis.QueueKeys#MAX_PARTITIONS}
	 * @return this declaration
	 */
	public QueueDeclaration partitions(int count) {
		this.settings.setPartitions(this.queue, count);
		return this;
	}

	/**
	 * Declares the queue paused at start-up: the first listener of the queue on this
	 * engine writes the pause to Redis (as {@link DelayQueueAdmin#pause(String)}) before
	 * any of its handlers starts, and again whenever such an engine starts; it holds for
	 * every instance until resumed (see {@code docs/flow-control.md}).
	 * @return this declaration
	 */
	public QueueDeclaration pausedAtStartup() {
		this.settings.addPausedAtStartup(this.queue);
		return this;
	}

	/**
	 * Declares how long after its due time a message this engine sends to the queue
	 * expires, unless the message says otherwise
	 * ({@link DelayMessage.Builder#expireAfter}).
	 * @param expireAfter at least 1 ms, at most ten years
	 * @return this declaration
	 */
	public QueueDeclaration expireAfter(Duration expireAfter) {
		this.settings.setExpireAfter(this.queue, expireAfter);
		return this;
	}

	/**
	 * Declares the queue fair-share: its due messages are handed out key by key in turn
	 * ({@link DelayMessage.Builder#key}; messages without a key count as one key), each
	 * key's messages in due order; priority wins over fair share. Declare it on every
	 * engine that sends to or listens on the queue. See {@code docs/fairness.md} for the
	 * bound it keeps and its cost.
	 * @return this declaration
	 */
	public QueueDeclaration fairShare() {
		this.settings.addFairShare(this.queue);
		return this;
	}

	/**
	 * Declares the queue's size limit (see {@link DelayQueueAdmin#limitSize}): written to
	 * Redis, for every producer, when this engine first uses the queue.
	 * @param max the maximum of waiting messages, from 1
	 * @return this declaration
	 */
	public QueueDeclaration sizeLimit(long max) {
		this.settings.setSizeLimit(this.queue, max);
		return this;
	}

	/**
	 * Declares the queue's rate limit (see {@link DelayQueueAdmin#limitRate}): written to
	 * Redis, for every instance, before this engine's first listener of the queue starts
	 * a handler.
	 * @param limit the limit
	 * @return this declaration
	 */
	public QueueDeclaration rateLimit(RateLimit limit) {
		this.settings.setRateLimit(this.queue, limit);
		return this;
	}

	/**
	 * Declares the queue's concurrency limit, for each of its groups (see
	 * {@link DelayQueueAdmin#limitConcurrency(String, ConcurrencyLimit)}): written to
	 * Redis, for every instance, before this engine's first listener of the queue starts
	 * a handler.
	 * @param limit the limit
	 * @return this declaration
	 */
	public QueueDeclaration concurrencyLimit(ConcurrencyLimit limit) {
		this.settings.setConcurrencyLimit(this.queue, limit);
		return this;
	}

}
