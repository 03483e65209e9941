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
import java.util.Objects;

/**
 * The settings {@link RedissonMigration} and {@link ZSetMigration} share: how payloads
 * are converted, how many messages move per script call, how long a run may take.
 *
 * @param <B> the builder
 */
public abstract class MigrationBuilder<B extends MigrationBuilder<B>> {

	MigrationPayload payload = MigrationPayload.string();

	int chunkSize = 100;

	Duration timeLimit = Duration.ofMinutes(5);

	MigrationBuilder() {
	}

	/**
	 * Sets how a stored payload becomes a message's payload (default
	 * {@link MigrationPayload#string()}).
	 * @param payload the conversion
	 * @return this builder
	 */
	public B payload(MigrationPayload payload) {
		this.payload = Objects.requireNonNull(payload, "The payload conversion must not be null");
		return self();
	}

	/**
	 * Sets how many messages move per script call (default 100).
	 * @param size from 1 to 1,000
	 * @return this builder
	 */
	public B chunkSize(int size) {
		if (size < 1 || size > 1000) {
			throw new IllegalArgumentException("Chunk size must be from 1 to 1000, but was " + size);
		}
		this.chunkSize = size;
		return self();
	}

	/**
	 * Sets how long one run may take (default 5 minutes): it stops after the chunk under
	 * way (a run moves one chunk at least), and a run again goes on where it stopped.
	 * @param limit positive
	 * @return this builder
	 */
	public B timeLimit(Duration limit) {
		if (limit == null || limit.isNegative() || limit.isZero()) {
			throw new IllegalArgumentException("Time limit must be positive, but was " + limit);
		}
		this.timeLimit = limit;
		return self();
	}

	@SuppressWarnings("unchecked")
	private B self() {
		return (B) this;
	}

}
