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

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.delayqueue.core.MigrationResult;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.WireFormat;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.zset.Tuple;

/**
 * Moves a Redisson delayed queue's messages into a queue's partition 0, chunk by chunk
 * ({@link SourceImport}): first its timeout ZSET (members in the format Redisson 3.x
 * writes: the length of a random id in one byte, the id, the value's length in 8
 * little-endian bytes, the value; the score the due time in epoch ms), then its
 * destination list (the values themselves, due already).
 */
public final class RedissonImport {

	private final SendContext context;

	private final String source;

	private final String queue;

	private final Function<byte[], Object> convert;

	private final int chunkSize;

	public RedissonImport(SendContext context, String source, String queue, Function<byte[], Object> convert,
			int chunkSize) {
		this.context = context;
		this.source = source;
		this.queue = queue;
		this.convert = convert;
		this.chunkSize = chunkSize;
	}

	/**
	 * Moves chunks until none is left or the deadline passed.
	 * @param deadlineNanos when to stop, by {@link System#nanoTime()}
	 */
	public MigrationResult run(long deadlineNanos) {
		String timeouts = "redisson_delay_queue_timeout:{" + this.source + "}";
		List<String> sourceKeys = List.of(timeouts, "redisson_delay_queue:{" + this.source + "}", this.source);
		SourceImport chunks = new SourceImport(this.context, "Redisson queue '" + this.source + "'", this.queue,
				this.convert);
		String what = "move Redisson queue '" + this.source + "' into queue '" + this.queue + "'";
		QueueKeys keys = chunks.step(what, chunks::target);
		while (chunks.before(deadlineNanos) && chunks.step(what,
				(connection) -> moveScheduled(connection, keys, QueueKeys.bytes(timeouts), chunks, sourceKeys))) {
			// next chunk
		}
		while (chunks.before(deadlineNanos) && chunks.step(what,
				(connection) -> moveReady(connection, keys, QueueKeys.bytes(this.source), chunks, sourceKeys))) {
			// next chunk
		}
		long left = chunks.step(what, (connection) -> {
			Long waiting = connection.zSetCommands().zCard(QueueKeys.bytes(timeouts));
			Long ready = connection.listCommands().lLen(QueueKeys.bytes(this.source));
			return ((waiting != null) ? waiting : 0) + ((ready != null) ? ready : 0);
		});
		return new MigrationResult(this.source, this.queue, chunks.counts[0], chunks.counts[1], chunks.counts[2], left);
	}

	/** Moves the first chunk of the timeout ZSET; whether it found any. */
	private boolean moveScheduled(RedisConnection connection, QueueKeys keys, byte[] timeouts, SourceImport chunks,
			List<String> sourceKeys) {
		List<Tuple> chunk = new ArrayList<>(
				connection.zSetCommands().zRangeWithScores(timeouts, 0, this.chunkSize - 1));
		if (chunk.isEmpty()) {
			return false;
		}
		List<Object> sources = new ArrayList<>();
		List<List<Object>> messages = new ArrayList<>();
		for (Tuple tuple : chunk) {
			byte[] value = value(tuple);
			Supplier<String> entry = () -> "the entry of value " + StoredBytes.show(value) + " (score "
					+ StoredBytes.score(tuple.getScore()) + ")";
			messages.add(chunks.message(value, null, WireFormat.DUE_AT,
					chunks.dueAt(tuple.getScore(), 1, () -> "The entry of value " + StoredBytes.show(value)), entry));
			sources.add("z");
			sources.add(tuple.getValue());
		}
		chunks.send(connection, keys, messages, sources, sourceKeys);
		return true;
	}

	/**
	 * Moves the first chunk of the destination list (due already); whether it found any.
	 */
	private boolean moveReady(RedisConnection connection, QueueKeys keys, byte[] destination, SourceImport chunks,
			List<String> sourceKeys) {
		List<byte[]> chunk = connection.listCommands().lRange(destination, 0, this.chunkSize - 1);
		if (chunk == null || chunk.isEmpty()) {
			return false;
		}
		List<Object> sources = new ArrayList<>();
		List<List<Object>> messages = new ArrayList<>();
		for (byte[] value : chunk) {
			messages.add(chunks.message(value, null, WireFormat.DUE_IN, 0,
					() -> "the entry " + StoredBytes.show(value) + " (due already, in its destination list)"));
			sources.add("l");
			sources.add(value);
		}
		chunks.send(connection, keys, messages, sources, sourceKeys);
		return true;
	}

	/** The value of a member of Redisson's timeout ZSET. */
	private byte[] value(Tuple tuple) {
		byte[] member = tuple.getValue();
		ByteBuffer buffer = ByteBuffer.wrap(member).order(ByteOrder.LITTLE_ENDIAN);
		if (buffer.remaining() >= 1) {
			int idLength = buffer.get() & 0xff;
			if (buffer.remaining() >= idLength + 8) {
				buffer.position(1 + idLength);
				long length = buffer.getLong();
				if (length == buffer.remaining()) {
					byte[] value = new byte[(int) length];
					buffer.get(value);
					return value;
				}
			}
		}
		throw new IllegalArgumentException("The entry " + StoredBytes.show(member) + " (score "
				+ StoredBytes.score(tuple.getScore()) + ", " + member.length + " bytes) of Redisson queue '"
				+ this.source
				+ "' is not in the format of Redisson's delayed queue (a random id, then the value's length and the"
				+ " value): the migration supports Redisson 3.x; nothing of its chunk was moved");
	}

}
