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

import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.send.RedissonImport;

/**
 * Moves the messages of a Redisson delayed queue ({@code RDelayedQueue} over a
 * destination queue) into a delayqueue queue, keeping each one's due time and payload:
 * those still waiting in Redisson's timeout ZSET become scheduled messages, those already
 * due and waiting in the destination list become ready ones. Each chunk moves in one
 * script: a message is written here and removed there together, so a crash mid-way
 * neither loses nor duplicates, and a run again moves only what is left. A Redisson
 * application may keep running meanwhile: what it takes is not moved. See
 * {@code docs/migrating-from-redisson.md}. <pre class="code">
 * MigrationResult result = RedissonMigration.from("order-timeout")
 * 	.payload(MigrationPayload.json())
 * 	.build()
 * 	.migrate(engine);
 * </pre>
 */
public final class RedissonMigration {

	private final String source;

	private final String queue;

	private final MigrationPayload payload;

	private final int chunkSize;

	private final Duration timeLimit;

	private RedissonMigration(Builder builder) {
		this.source = builder.source;
		this.queue = (builder.queue != null) ? builder.queue : builder.source;
		this.payload = builder.payload;
		this.chunkSize = builder.chunkSize;
		this.timeLimit = builder.timeLimit;
	}

	/**
	 * Starts a migration from a Redisson delayed queue.
	 * @param redissonQueue the name of its destination queue: what the application passed
	 * to {@code getBlockingQueue(...)} (or {@code getQueue}) before
	 * {@code getDelayedQueue(...)}
	 * @return the builder
	 */
	public static Builder from(String redissonQueue) {
		return new Builder(redissonQueue);
	}

	/**
	 * Moves the messages, chunk by chunk, until none is left or the time limit is
	 * reached.
	 * @param engine the engine whose queue receives them
	 * @return what was moved, and whether anything is left
	 * @throws IllegalArgumentException when a stored entry is not in Redisson's format,
	 * or a payload cannot be converted (the chunk holding it is left where it was)
	 * @throws DelayQueueException when Redis cannot be reached, or on a Redis Cluster
	 * when the queue's partition 0 is not in the Redisson queue's slot (give the queue
	 * the Redisson queue's name)
	 */
	public MigrationResult migrate(DelayQueueEngine engine) {
		return new RedissonImport(engine.sends(), this.source, this.queue, this.payload::convert, this.chunkSize)
			.run(System.nanoTime() + this.timeLimit.toNanos());
	}

	/**
	 * Builds a {@link RedissonMigration}.
	 */
	public static final class Builder extends MigrationBuilder<Builder> {

		private final String source;

		private String queue;

		private Builder(String source) {
			if (source == null || source.isEmpty()) {
				throw new IllegalArgumentException("The Redisson queue's name must not be null or empty");
			}
			this.source = source;
		}

		/**
		 * Sets the delayqueue queue that receives the messages (default: the Redisson
		 * queue's name, which a Redis Cluster needs: its keys share the slot).
		 * @param queue the queue
		 * @return this builder
		 */
		public Builder to(String queue) {
			this.queue = QueueNames.queue(queue);
			return this;
		}

		/**
		 * @return the migration
		 */
		public RedissonMigration build() {
			QueueNames.queue((this.queue != null) ? this.queue : this.source);
			return new RedissonMigration(this);
		}

	}

}
