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

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.delayqueue.core.internal.runtime.BoundedCalls;
import io.github.delayqueue.core.internal.runtime.Failures;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Runs the engine's scripts with EVALSHA, falling back to EVAL when the server lost them
 * ({@code NOSCRIPT} after a restart, a failover or {@code SCRIPT FLUSH}), and runs plain
 * commands, on connections from the application's {@link RedisConnectionFactory}.
 */
public final class ScriptRunner {

	private final RedisConnectionFactory connectionFactory;

	private volatile boolean scriptFlagsUnsupported;

	private final Duration bound;

	/**
	 * Creates a runner whose calls are not bounded beyond the client's command timeout.
	 * @param connectionFactory the connection factory
	 */
	public ScriptRunner(RedisConnectionFactory connectionFactory) {
		this(connectionFactory, null);
	}

	/**
	 * Creates a runner.
	 * @param connectionFactory the connection factory
	 * @param bound the longest one call ({@link #run}, {@link #execute}) waits for Redis,
	 * or {@code null} for the client's command timeout
	 */
	public ScriptRunner(RedisConnectionFactory connectionFactory, Duration bound) {
		this.connectionFactory = connectionFactory;
		this.bound = bound;
	}

	/**
	 * @return the longest one call waits for Redis, or {@code null} for the client's
	 * command timeout
	 */
	public Duration bound() {
		return this.bound;
	}

	/**
	 * Returns the connection factory.
	 * @return the connection factory
	 */
	public RedisConnectionFactory connectionFactory() {
		return this.connectionFactory;
	}

	/**
	 * Runs a script.
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments: {@code byte[]} as is, anything else as its UTF-8 string
	 * @return the reply: {@code Long}, {@code byte[]} or nested {@code List}s
	 */
	public List<Object> run(RedisScript<?> script, List<String> keys, Object... args) {
		return execute((connection) -> run(connection, script, keys, args));
	}

	/**
	 * Runs a script that has a variant with script flags ({@code #!lua flags=…}, Redis
	 * 7+): the flagged one, unless the server rejected flags before (Redis 6.2), then the
	 * plain one.
	 * @param flagged the variant with flags
	 * @param plain the variant without
	 * @param keys its keys
	 * @param args its arguments
	 * @return the reply
	 */
	public List<Object> run(RedisScript<?> flagged, RedisScript<?> plain, List<String> keys, Object... args) {
		if (!this.scriptFlagsUnsupported) {
			try {
				return run(flagged, keys, args);
			}
			catch (DataAccessException ex) {
				if (!Failures.hasMessage(ex, "Error compiling script")) {
					throw ex;
				}
				this.scriptFlagsUnsupported = true;
			}
		}
		return run(plain, keys, args);
	}

	/**
	 * Runs a script on a connection the caller holds; a momentary refusal of Redis
	 * Cluster ({@code TRYAGAIN}, {@code CLUSTERDOWN}) is retried (see
	 * {@link SlotRetries}).
	 * @param connection the connection
	 * @param script the script
	 * @param keys its keys
	 * @param args its arguments
	 * @return the reply
	 */
	@SuppressWarnings("unchecked")
	public static List<Object> run(RedisConnection connection, RedisScript<?> script, List<String> keys,
			Object... args) {
		byte[][] keysAndArgs = new byte[keys.size() + args.length][];
		int i = 0;
		for (String key : keys) {
			keysAndArgs[i++] = key.getBytes(StandardCharsets.UTF_8);
		}
		for (Object arg : args) {
			keysAndArgs[i++] = encode(arg);
		}
		long started = System.nanoTime();
		Object result;
		try {
			result = SlotRetries.call(() -> bySha(
					() -> connection.scriptingCommands()
						.evalSha(script.getSha1(), ReturnType.MULTI, keys.size(), keysAndArgs),
					() -> connection.scriptingCommands()
						.eval(script.getScriptAsString().getBytes(StandardCharsets.UTF_8), ReturnType.MULTI,
								keys.size(), keysAndArgs)));
		}
		catch (RuntimeException ex) {
			if (!keys.isEmpty() && SlotRetries.isMomentary(ex) && !(ex instanceof SlotRefusedException)) {
				throw SlotRefusedException.of(keys.get(0), System.nanoTime() - started, ex);
			}
			throw ex;
		}
		return (result != null) ? (List<Object>) result : new ArrayList<>();
	}

	/**
	 * Encodes a script argument: {@code byte[]} as is, anything else as its UTF-8 string.
	 * @param arg the argument
	 * @return its bytes
	 */
	public static byte[] encode(Object arg) {
		return (arg instanceof byte[] bytes) ? bytes : String.valueOf(arg).getBytes(StandardCharsets.UTF_8);
	}

	/**
	 * Runs a script by its digest and, when the server does not have it
	 * ({@code NOSCRIPT}: a restarted or flushed server, a new cluster node), by its
	 * source.
	 * @param bySha the call by digest
	 * @param bySource the call by source
	 * @param <T> the reply type
	 * @return the reply
	 */
	public static <T> T bySha(Supplier<T> bySha, Supplier<T> bySource) {
		try {
			return bySha.get();
		}
		catch (RuntimeException ex) {
			if (!isNoScript(ex)) {
				throw ex;
			}
			return bySource.get();
		}
	}

	/**
	 * Runs a callback with a connection from the factory, closing it after.
	 * @param callback the callback
	 * @param <T> the result type
	 * @return the callback's result
	 */
	public <T> T execute(Function<RedisConnection, T> callback) {
		return bounded(this.bound, () -> executeUnbounded(callback));
	}

	/**
	 * Runs a callback with a connection from the factory, closing it after, with no bound
	 * of its own: for a callback that bounds each of its calls with
	 * {@link #bounded(Duration, Supplier)} (e.g. a send of many chunks). Getting the
	 * connection is bounded (a new connection's handshake with a hung server would wait
	 * for the client's timeout).
	 * @param callback the callback
	 * @param <T> the result type
	 * @return the callback's result
	 */
	public <T> T executeUnbounded(Function<RedisConnection, T> callback) {
		RedisConnection acquired = (BoundedCalls.nanosLeft() == Long.MAX_VALUE)
				? bounded(this.bound, this.connectionFactory::getConnection) : this.connectionFactory.getConnection();
		try (RedisConnection connection = acquired) {
			return callback.apply(connection);
		}
	}

	/**
	 * Runs a call bounded in time (see {@link BoundedCalls}).
	 * @param bound the bound, or {@code null} for none
	 * @param call the call
	 * @param <T> the result type
	 * @return its result
	 * @throws BoundedCalls.TimeoutException when Redis did not answer in time
	 */
	public static <T> T bounded(Duration bound, Supplier<T> call) {
		return BoundedCalls.call(bound, call);
	}

	/**
	 * Whether a failure is the server's {@code NOSCRIPT}: it does not have the script.
	 * @param ex the failure
	 * @return whether the script did not run for that reason
	 */
	public static boolean isNoScript(Throwable ex) {
		return Failures.hasMessage(ex, "NOSCRIPT");
	}

	/**
	 * Reads a reply element as a {@code long}.
	 * @param value a {@code Long} or {@code byte[]}
	 * @return the number
	 */
	public static long asLong(Object value) {
		if (value instanceof Long number) {
			return number;
		}
		return Long.parseLong(asString(value));
	}

	/**
	 * Reads a reply element as a string.
	 * @param value a {@code byte[]} or any object
	 * @return the string
	 */
	public static String asString(Object value) {
		if (value instanceof byte[] bytes) {
			return new String(bytes, StandardCharsets.UTF_8);
		}
		return String.valueOf(value);
	}

}
