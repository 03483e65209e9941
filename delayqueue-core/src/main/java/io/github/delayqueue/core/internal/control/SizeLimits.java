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

package io.github.delayqueue.core.internal.control;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalLong;

import org.springframework.data.redis.connection.RedisConnection;

import io.github.delayqueue.core.internal.redis.QueueKeys;

/**
 * A queue's size limit: its maximum of waiting (scheduled or ready) messages, stored in
 * each partition's slot ({@link QueueKeys#sizeLimit()}) where the send script reads it.
 * Each partition takes its share (the maximum divided by the partition count, rounded
 * up); see {@code docs/flow-control.md}.
 */
public final class SizeLimits {

	/** The largest size limit. */
	static final long MAX = 1_000_000_000_000L;

	private SizeLimits() {
	}

	/**
	 * Checks a size limit.
	 * @param queue the queue
	 * @param max the maximum of waiting messages
	 * @return it
	 * @throws IllegalArgumentException when out of range
	 */
	public static long check(String queue, long max) {
		if (max < 1 || max > MAX) {
			throw new IllegalArgumentException("Size limit of queue '" + queue + "' must be from 1 to " + MAX
					+ " waiting messages, but was " + max);
		}
		return max;
	}

	/**
	 * Writes (or, with {@code null}, removes) a queue's size limit in each of its
	 * partitions.
	 * @param connection a connection
	 * @param partitions the queue's partitions
	 * @param max the limit, or {@code null} for none
	 */
	public static void write(RedisConnection connection, List<QueueKeys> partitions, Long max) {
		for (QueueKeys keys : partitions) {
			byte[] key = QueueKeys.bytes(keys.sizeLimit());
			if (max != null) {
				connection.stringCommands().set(key, QueueKeys.bytes(Long.toString(max)));
			}
			else {
				connection.keyCommands().del(key);
			}
		}
	}

	/**
	 * Reads a queue's size limit from one of its partitions.
	 * @param connection a connection
	 * @param keys the partition
	 * @return the limit, empty for none
	 */
	public static OptionalLong read(RedisConnection connection, QueueKeys keys) {
		byte[] value = connection.stringCommands().get(QueueKeys.bytes(keys.sizeLimit()));
		return (value != null) ? OptionalLong.of(Long.parseLong(new String(value, StandardCharsets.UTF_8)))
				: OptionalLong.empty();
	}

}
