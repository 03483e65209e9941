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
package io.github.delayqueue.core.internal.send;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;

import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.util.ClassUtils;
import io.github.delayqueue.core.internal.routing.QueueLayouts;

/**
 * Sends the script calls of a {@code sendAll} to a single server without waiting for each
 * reply before writing the next call: Redis runs them back to back while the client
 * encodes the next ones and reads the replies. Each call keeps its own bound of the
 * operation timeout, counted from the previous reply. Only with Lettuce, and not on a
 * Cluster (whose calls go to several masters); elsewhere the calls run one after another.
 */
final class PipelinedSends {

	private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.RedisFuture",
			PipelinedSends.class.getClassLoader());

	/** Calls written ahead of the reply awaited, at most. */
	static final int WINDOW = 16;

	private PipelinedSends() {
	}

	/**
	 * Whether the calls can be pipelined on this connection.
	 * @param connection the connection
	 * @param chunks the calls
	 * @return whether {@link #send} applies
	 */
	static boolean applies(RedisConnection connection, List<SendChunk> chunks) {
		return chunks.size() > 1 && LETTUCE && !(connection instanceof RedisClusterConnection)
				&& connection instanceof LettuceConnection;
	}

	/**
	 * Runs the calls, each chunk's results applied to its messages. At the first call
	 * that fails, the failure is thrown: the calls before it took effect, those written
	 * after it may have.
	 * @param layouts the queues' partition layouts
	 * @param connection a Lettuce connection to a single server
	 * @param chunks the calls, in order
	 * @param bound the bound of each call, or {@code null}
	 */
	@SuppressWarnings("unchecked")
	static void send(QueueLayouts layouts, RedisConnection connection, List<SendChunk> chunks, Duration bound) {
		RedisClusterAsyncCommands<byte[], byte[]> async = (RedisClusterAsyncCommands<byte[], byte[]>) connection
			.getNativeConnection();
		List<RedisFuture<Object>> written = new ArrayList<>();
		int next = 0;
		for (int i = 0; i < chunks.size(); i++) {
			while (next < chunks.size() && next - i < WINDOW) {
				SendChunk chunk = chunks.get(next++);
				// a queue not used yet is registered first: a Redis call too, bounded as
				// the replies are
				ScriptRunner.bounded(bound, () -> {
					layouts.register(connection, chunk.keys);
					return null;
				});
				written.add(evalSha(async, chunk));
			}
			SendChunk chunk = chunks.get(i);
			RedisFuture<Object> reply = written.get(i);
			written.set(i, null);
			chunk.apply((List<Object>) ScriptRunner.bounded(bound, () -> {
				try {
					return await(reply);
				}
				catch (RuntimeException ex) {
					if (!ScriptRunner.isNoScript(ex)) {
						throw ex;
					}
					// the server lost its scripts (restart, flush): by source, which
					// loads it for the calls after
					return chunk.run(connection);
				}
			}));
		}
	}

	private static RedisFuture<Object> evalSha(RedisClusterAsyncCommands<byte[], byte[]> async, SendChunk chunk) {
		return async.evalsha(Scripts.SEND.getSha1(), ScriptOutputType.MULTI, chunk.scriptKeyBytes(), chunk.argBytes());
	}

	private static Object await(RedisFuture<Object> future) {
		try {
			return future.get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisSystemException("Interrupted while waiting for the send script", ex);
		}
		catch (ExecutionException ex) {
			throw new RedisSystemException("The send script failed: " + ex.getCause().getMessage(), ex.getCause());
		}
	}

}
