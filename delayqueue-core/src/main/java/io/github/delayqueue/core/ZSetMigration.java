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

import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.send.ZSetImport;

/**
 * Moves a hand-written delayed queue, the most common one on Redis, into a delayqueue
 * queue: a ZSET whose score is each message's due time (epoch milliseconds, or seconds)
 * and whose member is its payload, or its id with the payload in a hash. A poller that
 * runs meanwhile takes what it takes; each chunk moves in one script, written here and
 * removed there together, so a crash mid-way neither loses nor duplicates, and a run
 * again moves only what is left. See {@code docs/migrating-from-redisson.md}.
 * <pre class="code">
 * MigrationResult result = ZSetMigration.from("reminders")
 * 	.payloads("reminder-bodies")
 * 	.to("reminders")
 * 	.build()
 * 	.migrate(engine);
 * </pre>
 */
public final class ZSetMigration {

	private final Builder settings;

	private ZSetMigration(Builder settings) {
		this.settings = settings;
	}

	/**
	 * Starts a migration from a ZSET.
	 * @param zsetKey the ZSET's key
	 * @return the builder
	 */
	public static Builder from(String zsetKey) {
		return new Builder(zsetKey);
	}

	/**
	 * Moves the messages, chunk by chunk, until none is left or the time limit is
	 * reached.
	 * @param engine the engine whose queue receives them
	 * @return what was moved, and whether anything is left
	 * @throws IllegalArgumentException when a member has no payload in the hash, is not a
	 * valid message id, or its payload cannot be converted (its chunk stays)
	 * @throws DelayQueueException when Redis cannot be reached, or on a Redis Cluster
	 * when the ZSET (and hash) are not in the slot of the queue's partition 0 (give them
	 * the hash tag {@code {<queue>}})
	 */
	public MigrationResult migrate(DelayQueueEngine engine) {
		Builder s = this.settings;
		return new ZSetImport(engine.sends(), s.zset, s.hash, s.queue, s.payload::convert,
				(s.unit == TimeUnit.SECONDS) ? 1000 : 1, s.chunkSize)
			.run(System.nanoTime() + s.timeLimit.toNanos());
	}

	/**
	 * Builds a {@link ZSetMigration}.
	 */
	public static final class Builder extends MigrationBuilder<Builder> {

		private final String zset;

		private String hash;

		private String queue;

		private TimeUnit unit = TimeUnit.MILLISECONDS;

		private Builder(String zset) {
			if (zset == null || zset.isEmpty()) {
				throw new IllegalArgumentException("The ZSET's key must not be null or empty");
			}
			this.zset = zset;
		}

		/**
		 * Says that the members are ids and the payloads are in a hash, by id (default:
		 * the members are the payloads). The ids become the messages' ids.
		 * @param hashKey the hash's key
		 * @return this builder
		 */
		public Builder payloads(String hashKey) {
			if (hashKey == null || hashKey.isEmpty() || hashKey.equals(this.zset)) {
				throw new IllegalArgumentException(
						"The payloads' hash key must not be empty, nor the ZSET's, but was '" + hashKey + "'");
			}
			this.hash = hashKey;
			return this;
		}

		/**
		 * Sets the delayqueue queue that receives the messages (required).
		 * @param queue the queue
		 * @return this builder
		 */
		public Builder to(String queue) {
			this.queue = QueueNames.queue(queue);
			return this;
		}

		/**
		 * Sets the unit of the scores (default milliseconds since the epoch).
		 * @param unit {@link TimeUnit#MILLISECONDS} or {@link TimeUnit#SECONDS}
		 * @return this builder
		 */
		public Builder scoreUnit(TimeUnit unit) {
			if (unit != TimeUnit.MILLISECONDS && unit != TimeUnit.SECONDS) {
				throw new IllegalArgumentException(
						"Scores are epoch MILLISECONDS or SECONDS, but the unit given was " + unit);
			}
			this.unit = unit;
			return this;
		}

		/**
		 * @return the migration
		 * @throws IllegalArgumentException when no queue was set
		 */
		public ZSetMigration build() {
			if (this.queue == null) {
				throw new IllegalArgumentException(
						"Say which queue receives the messages of ZSET '" + this.zset + "': to(queue)");
			}
			return new ZSetMigration(this);
		}

	}

}
