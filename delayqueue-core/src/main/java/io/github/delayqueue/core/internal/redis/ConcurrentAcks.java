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

package io.github.delayqueue.core.internal.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.async.RedisStreamAsyncCommands;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.util.ClassUtils;

/**
 * Acknowledges the entries of several streams at once. The streams of a partitioned queue
 * lie in different slots, so on Redis Cluster no pipeline or script spans them: with
 * Lettuce the {@code XACK}s are sent together on its asynchronous API (each routed to its
 * slot's master) and awaited together, one round trip in all rather than one per stream.
 * Without Lettuce they run one after the other.
 */
public final class ConcurrentAcks {

	private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.api.async.RedisStreamAsyncCommands",
			ConcurrentAcks.class.getClassLoader());

	private ConcurrentAcks() {
	}

	/**
	 * Acknowledges entries of a group, stream by stream.
	 * @param connection the connection
	 * @param group the group
	 * @param idsByStream the entry ids to acknowledge, by stream key
	 */
	public static void ack(RedisConnection connection, String group, Map<String, List<RecordId>> idsByStream) {
		if (idsByStream.size() > 1 && LETTUCE && Lettuce.ack(connection, group, idsByStream)) {
			return;
		}
		idsByStream.forEach((stream, ids) -> connection.streamCommands()
			.xAck(QueueKeys.bytes(stream), group, ids.toArray(RecordId[]::new)));
	}

	/** Loaded only when Lettuce is on the class path. */
	private static final class Lettuce {

		@SuppressWarnings("unchecked")
		static boolean ack(RedisConnection connection, String group, Map<String, List<RecordId>> idsByStream) {
			if (!(connection.getNativeConnection() instanceof RedisStreamAsyncCommands<?, ?> commands)) {
				return false;
			}
			RedisStreamAsyncCommands<byte[], byte[]> async = (RedisStreamAsyncCommands<byte[], byte[]>) commands;
			byte[] groupBytes = QueueKeys.bytes(group);
			List<RedisFuture<Long>> replies = new ArrayList<>();
			idsByStream.forEach((stream, ids) -> replies.add(async.xack(QueueKeys.bytes(stream), groupBytes,
					ids.stream().map(RecordId::getValue).toArray(String[]::new))));
			for (RedisFuture<Long> reply : replies) {
				await(reply);
			}
			return true;
		}

		private static void await(RedisFuture<Long> reply) {
			try {
				reply.get();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while acknowledging", ex);
			}
			catch (ExecutionException ex) {
				throw (ex.getCause() instanceof RuntimeException runtime) ? runtime
						: new IllegalStateException(ex.getCause());
			}
		}

	}

}
