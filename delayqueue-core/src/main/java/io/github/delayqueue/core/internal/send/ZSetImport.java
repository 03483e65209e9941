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

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.delayqueue.core.MigrationResult;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.WireFormat;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.zset.Tuple;

/**
 * Moves a hand-written delayed queue into a queue's partition 0, chunk by chunk
 * ({@link SourceImport}): a ZSET whose score is the due time and whose member is the
 * payload, or the id of a payload kept in a hash (then the message's id too).
 */
public final class ZSetImport {

	private final SendContext context;

	private final String zset;

	private final String hash;

	private final String queue;

	private final Function<byte[], Object> convert;

	private final long millisPerScore;

	private final int chunkSize;

	/**
	 * @param hash the hash of payloads by member, or {@code null} when the members are
	 * the payloads
	 * @param millisPerScore 1 for scores in epoch ms, 1000 in epoch seconds
	 */
	public ZSetImport(SendContext context, String zset, String hash, String queue, Function<byte[], Object> convert,
			long millisPerScore, int chunkSize) {
		this.context = context;
		this.zset = zset;
		this.hash = hash;
		this.queue = queue;
		this.convert = convert;
		this.millisPerScore = millisPerScore;
		this.chunkSize = chunkSize;
	}

	/**
	 * Moves chunks until none is left or the deadline passed.
	 * @param deadlineNanos when to stop, by {@link System#nanoTime()}
	 */
	public MigrationResult run(long deadlineNanos) {
		List<String> sourceKeys = List.of(this.zset, (this.hash != null) ? this.hash : this.zset, this.zset);
		SourceImport chunks = new SourceImport(this.context, "ZSET '" + this.zset + "'", this.queue, this.convert);
		String what = "move ZSET '" + this.zset + "' into queue '" + this.queue + "'";
		QueueKeys keys = chunks.step(what, chunks::target);
		while (chunks.before(deadlineNanos)
				&& chunks.step(what, (connection) -> move(connection, keys, chunks, sourceKeys))) {
			// next chunk
		}
		Long left = chunks.step(what, (connection) -> connection.zSetCommands().zCard(QueueKeys.bytes(this.zset)));
		return new MigrationResult(this.zset, this.queue, chunks.counts[0], chunks.counts[1], chunks.counts[2],
				(left != null) ? left : 0);
	}

	private boolean move(RedisConnection connection, QueueKeys keys, SourceImport chunks, List<String> sourceKeys) {
		List<Tuple> chunk = new ArrayList<>(
				connection.zSetCommands().zRangeWithScores(QueueKeys.bytes(this.zset), 0, this.chunkSize - 1));
		if (chunk.isEmpty()) {
			return false;
		}
		List<byte[]> payloads = null;
		if (this.hash != null) {
			payloads = connection.hashCommands()
				.hMGet(QueueKeys.bytes(this.hash), chunk.stream().map(Tuple::getValue).toArray(byte[][]::new));
		}
		List<Object> sources = new ArrayList<>();
		List<List<Object>> messages = new ArrayList<>();
		for (int i = 0; i < chunk.size(); i++) {
			byte[] member = chunk.get(i).getValue();
			double score = chunk.get(i).getScore();
			long due = chunks.dueAt(score, this.millisPerScore, () -> "Member " + StoredBytes.show(member));
			Supplier<String> entry = () -> "member " + StoredBytes.show(member) + " (score " + StoredBytes.score(score)
					+ ")";
			if (payloads != null) {
				if (payloads.get(i) == null) {
					throw new IllegalArgumentException("Member " + StoredBytes.show(member) + " of ZSET '" + this.zset
							+ "' has no payload in hash '" + this.hash + "': nothing of its chunk was moved");
				}
				messages.add(chunks.message(payloads.get(i), messageId(member), WireFormat.DUE_AT, due, entry));
			}
			else {
				messages.add(chunks.message(member, null, WireFormat.DUE_AT, due, entry));
			}
			sources.add("h");
			sources.add(member);
		}
		chunks.send(connection, keys, messages, sources, sourceKeys);
		return true;
	}

	/**
	 * A member that becomes a message's id, refused naming the ZSET when it cannot: one
	 * that is not UTF-8 too, which would become another id.
	 */
	private String messageId(byte[] member) {
		try {
			return QueueNames.messageId(StoredBytes.utf8(member));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Member " + StoredBytes.show(member) + " of ZSET '" + this.zset
					+ "' cannot be a message id (" + ex.getMessage() + "): nothing of its chunk was moved", ex);
		}
	}

}
