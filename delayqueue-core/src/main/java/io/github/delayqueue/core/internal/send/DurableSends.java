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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.internal.redis.RedisCalls;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.redis.ServerChecks;
import io.github.delayqueue.core.internal.redis.SlotRetries;

import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.ArrayOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;

import org.springframework.data.redis.RedisSystemException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisPipelineException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.util.ClassUtils;
import io.github.delayqueue.core.Durability;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.ServerCheck;
import io.github.delayqueue.core.UnconfirmedSendException;
import io.github.delayqueue.core.internal.routing.QueueLayouts;
import io.github.delayqueue.core.internal.runtime.Failures;

/**
 * The durable send: the send scripts and a {@code WAIT} / {@code WAITAOF}, pipelined. A
 * pipeline runs on a connection of its own (not the factory's shared one), so the wait
 * counts exactly these writes and a slow replica blocks nobody else.
 */
final class DurableSends {

	private static final boolean LETTUCE = ClassUtils.isPresent("io.lettuce.core.output.IntegerOutput",
			DurableSends.class.getClassLoader());

	/** {@code WAITAOF}, which this Lettuce version does not name. */
	private static final ProtocolKeyword WAITAOF = new ProtocolKeyword() {

		@Override
		public byte[] getBytes() {
			return "WAITAOF".getBytes(StandardCharsets.US_ASCII);
		}

		@Override
		public String toString() {
			return "WAITAOF";
		}

	};

	private DurableSends() {
	}

	/**
	 * Sends the chunks and waits.
	 * @return {replicas confirmed, local AOF confirmed (1/0) or -1 when not asked}
	 */
	static long[] send(QueueLayouts layouts, RedisConnection connection, List<SendChunk> chunks,
			Durability durability) {
		if (connection instanceof RedisClusterConnection cluster) {
			return sendOnCluster(layouts, cluster, chunks, durability);
		}
		if (durability.localAof()) {
			requireWaitAof(connection, chunks.get(0).keys.stream());
		}
		for (SendChunk chunk : chunks) {
			layouts.register(connection, chunk.keys);
		}
		List<Object> replies;
		try {
			replies = pipelined(connection, chunks, durability, false);
		}
		catch (RedisPipelineException ex) {
			if (!ScriptRunner.isNoScript(ex)) {
				throw refusal(ex, chunks.size());
			}
			// the server lost the script (a replica promoted by a failover, a restart,
			// SCRIPT FLUSH): every call of the script was refused, nothing written. Again
			// on the same connection, the script loaded first in the pipeline: a SCRIPT
			// LOAD on another connection may reach another server
			try {
				replies = pipelined(connection, chunks, durability, true);
			}
			catch (RedisPipelineException again) {
				throw refusal(again, chunks.size());
			}
		}
		for (int i = 0; i < chunks.size(); i++) {
			chunks.get(i).apply(asList(replies.get(i)));
		}
		Object wait = replies.get(replies.size() - 1);
		if (durability.localAof()) {
			List<Object> counts = asList(wait);
			return new long[] { ScriptRunner.asLong(counts.get(1)), ScriptRunner.asLong(counts.get(0)) };
		}
		return new long[] { ScriptRunner.asLong(wait), -1 };
	}

	/**
	 * Runs the chunks' scripts and the wait in one pipeline, on a connection of its own.
	 * @param load whether the script is loaded first ({@code SCRIPT LOAD}, its reply left
	 * out)
	 * @return each chunk's reply, then the wait's
	 */
	private static List<Object> pipelined(RedisConnection connection, List<SendChunk> chunks, Durability durability,
			boolean load) {
		connection.openPipeline();
		List<Object> replies;
		try {
			if (load) {
				connection.scriptingCommands()
					.scriptLoad(Scripts.SEND.getScriptAsString().getBytes(StandardCharsets.UTF_8));
			}
			for (SendChunk chunk : chunks) {
				ScriptRunner.run(connection, Scripts.SEND, chunk.scriptKeys(), chunk.args);
			}
			String timeout = String.valueOf(durability.timeout().toMillis());
			if (durability.localAof()) {
				execute(connection, "WAITAOF", true, bytes("1"), bytes(String.valueOf(durability.replicas())),
						bytes(timeout));
			}
			else {
				execute(connection, "WAIT", false, bytes(String.valueOf(durability.replicas())), bytes(timeout));
			}
		}
		finally {
			replies = connection.closePipeline();
		}
		return load ? replies.subList(1, replies.size()) : replies;
	}

	/**
	 * A failed pipeline (Spring Data Redis keeps no reply of it): when Redis refused a
	 * single call before running it, nothing was applied; with several, the calls before
	 * the refused one may have been.
	 */
	private static RuntimeException refusal(RedisPipelineException ex, int calls) {
		if (calls > 1 || !RedisCalls.refusedBeforeRunning(ex)) {
			return new RedisSystemException(Failures.describe(ex) + " (with " + calls
					+ " script calls in one pipeline: those before the failed one may have been applied)", ex);
		}
		return ex;
	}

	/**
	 * On Redis Cluster: each chunk's script runs on the master of its queue's slot (a
	 * {@code NOSCRIPT} falls back to {@code EVAL} there: no {@code SCRIPT LOAD} is sent
	 * to every node, replicas included), then one {@code WAIT} / {@code WAITAOF} per
	 * master written to, routed by a key of that master's slot. The confirmations are the
	 * smallest of those masters'.
	 */
	private static long[] sendOnCluster(QueueLayouts layouts, RedisClusterConnection cluster, List<SendChunk> chunks,
			Durability durability) {
		RedisAdvancedClusterAsyncCommands<byte[], byte[]> lettuce = lettuce(cluster);
		Map<String, RedisClusterAsyncCommands<byte[], byte[]>> writtenTo = new LinkedHashMap<>();
		if (durability.localAof()) {
			// every master written to must know WAITAOF, before anything is written
			for (SendChunk chunk : chunks) {
				requireWaitAof(cluster, chunk.keys.stream());
			}
		}
		for (SendChunk chunk : chunks) {
			layouts.register(cluster, chunk.keys);
			chunk.apply(asList(evalOnOwner(cluster, lettuce, chunk, writtenTo)));
		}
		long replicasConfirmed = Long.MAX_VALUE;
		long localConfirmed = durability.localAof() ? Long.MAX_VALUE : -1;
		for (RedisClusterAsyncCommands<byte[], byte[]> master : writtenTo.values()) {
			if (durability.localAof()) {
				List<Object> counts = asList(
						await(master.dispatch(WAITAOF, new NestedMultiOutput<>(ByteArrayCodec.INSTANCE),
								new CommandArgs<>(ByteArrayCodec.INSTANCE).add(1)
									.add(durability.replicas())
									.add(durability.timeout().toMillis())),
								"WAITAOF"));
				localConfirmed = Math.min(localConfirmed, ScriptRunner.asLong(counts.get(0)));
				replicasConfirmed = Math.min(replicasConfirmed, ScriptRunner.asLong(counts.get(1)));
			}
			else {
				replicasConfirmed = Math.min(replicasConfirmed, await(
						master.waitForReplication(durability.replicas(), durability.timeout().toMillis()), "WAIT"));
			}
		}
		return new long[] { replicasConfirmed, localConfirmed };
	}

	@SuppressWarnings("unchecked")
	private static RedisAdvancedClusterAsyncCommands<byte[], byte[]> lettuce(RedisClusterConnection cluster) {
		if (LETTUCE && cluster.getNativeConnection() instanceof RedisAdvancedClusterAsyncCommands<?, ?> lettuce) {
			return (RedisAdvancedClusterAsyncCommands<byte[], byte[]>) lettuce;
		}
		throw new UnsupportedOperationException("A durable send on Redis Cluster needs the Lettuce client: the wait "
				+ "must run on the connection that wrote to the queue's master");
	}

	/**
	 * Runs a chunk's script on the master that owns its queue's slot, on that master's
	 * one connection (the wait that follows counts the script's writes), and records the
	 * master in {@code writtenTo}. While the slot migrates the script may be refused
	 * ({@code TRYAGAIN}) or redirected ({@code ASK}: its keys already moved;
	 * {@code MOVED}: the slot did): it is retried within {@link SlotRetries#BUDGET}, on
	 * the master a {@code MOVED} names. Redis refuses or redirects before running
	 * anything, so no retry writes twice.
	 */
	private static Object evalOnOwner(RedisClusterConnection cluster,
			RedisAdvancedClusterAsyncCommands<byte[], byte[]> lettuce, SendChunk chunk,
			Map<String, RedisClusterAsyncCommands<byte[], byte[]>> writtenTo) {
		String[] movedTo = new String[1];
		return SlotRetries.call(() -> {
			String node = (movedTo[0] != null) ? movedTo[0]
					: cluster.clusterGetNodeForKey(bytes(chunk.keys.stream())).getId();
			RedisClusterAsyncCommands<byte[], byte[]> master = writtenTo.containsKey(node) ? writtenTo.get(node)
					: (movedTo[0] != null) ? lettuce.getConnection(hostOf(node), portOf(node))
							: lettuce.getConnection(node);
			try {
				Object reply = evalSend(master, chunk);
				writtenTo.putIfAbsent(node, master);
				return reply;
			}
			catch (RuntimeException ex) {
				String moved = redirection(ex, "MOVED ");
				if (moved != null) {
					movedTo[0] = moved;
				}
				throw ex;
			}
		}, (ex) -> SlotRetries.isMomentary(ex) || redirection(ex, "MOVED ") != null || redirection(ex, "ASK ") != null);
	}

	/** The {@code host:port} of a {@code MOVED} or {@code ASK} error, or {@code null}. */
	private static String redirection(Throwable ex, String kind) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			String message = cause.getMessage();
			if (message != null && message.startsWith(kind)) {
				String[] parts = message.trim().split(" ");
				return (parts.length == 3) ? parts[2] : null;
			}
		}
		return null;
	}

	private static String hostOf(String address) {
		return address.substring(0, address.lastIndexOf(':'));
	}

	private static int portOf(String address) {
		return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
	}

	/** Runs the send script by its digest, or by its source when the master lacks it. */
	private static Object evalSend(RedisClusterAsyncCommands<byte[], byte[]> master, SendChunk chunk) {
		byte[][] keys = chunk.scriptKeyBytes();
		byte[][] args = chunk.argBytes();
		return ScriptRunner.bySha(
				() -> await(master.evalsha(Scripts.SEND.getSha1(), ScriptOutputType.MULTI, keys, args),
						"the send script"),
				() -> await(master.eval(Scripts.SEND.getScriptAsString().getBytes(StandardCharsets.UTF_8),
						ScriptOutputType.MULTI, keys, args), "the send script"));
	}

	private static <T> T await(RedisFuture<T> future, String what) {
		try {
			return future.get();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new RedisSystemException("Interrupted while waiting for " + what, ex);
		}
		catch (java.util.concurrent.ExecutionException ex) {
			throw new RedisSystemException(what + " failed: " + ex.getCause().getMessage(), ex.getCause());
		}
	}

	/**
	 * Throws when the confirmations fall short of what was asked.
	 */
	static void check(Durability durability, long[] confirmed, List<SendResult> results, String queues) {
		boolean replicasShort = confirmed[0] < durability.replicas();
		boolean localShort = durability.localAof() && confirmed[1] < 1;
		if (!replicasShort && !localShort) {
			return;
		}
		StringBuilder message = new StringBuilder("Sent " + results.size() + " message(s) to queue(s) " + queues
				+ ", but within " + durability.timeout().toMillis() + "ms ");
		if (replicasShort) {
			message.append("only ")
				.append(confirmed[0])
				.append(" of ")
				.append(durability.replicas())
				.append(" replica(s) confirmed them");
		}
		if (localShort) {
			message.append(replicasShort ? " and " : "").append("the master's AOF fsync was not confirmed");
		}
		message.append(". They are scheduled on the master, and a failover or crash before replication "
				+ "catches up may lose them; sending them again with the same ids is deduplicated");
		throw new UnconfirmedSendException(message.toString(), results, (int) confirmed[0], (int) confirmed[1]);
	}

	/**
	 * Runs a command whose reply is an integer or an array. Spring Data Redis's Lettuce
	 * connection decodes unknown commands as bulk strings, so it needs the output type.
	 */
	private static void execute(RedisConnection connection, String command, boolean array, byte[]... args) {
		if (LETTUCE && connection instanceof LettuceConnection lettuce) {
			lettuce.execute(command,
					array ? new ArrayOutput<>(ByteArrayCodec.INSTANCE) : new IntegerOutput<>(ByteArrayCodec.INSTANCE),
					args);
		}
		else {
			connection.execute(command, args);
		}
	}

	private static void requireWaitAof(RedisConnection connection, String key) {
		String version = ServerChecks.version(connection, key);
		if (version != null && ServerChecks.compareVersions(version, "7.2") < 0) {
			throw new UnsupportedOperationException("A durable send that waits for the AOF needs WAITAOF, "
					+ "which Redis " + version + " does not have (Redis 7.2+); use Durability.replicas(...) instead");
		}
	}

	@SuppressWarnings("unchecked")
	private static List<Object> asList(Object reply) {
		return (List<Object>) reply;
	}

	private static byte[] bytes(String value) {
		return value.getBytes(StandardCharsets.UTF_8);
	}

}
