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
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.RedisCalls;
import io.github.delayqueue.core.internal.redis.DueTimes;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * One chunk of messages moved from another queue into a queue's partition 0: written by
 * the send script together with the removal of their entries there (see
 * {@code send.lua}), counted by what became of them.
 */
final class SourceImport {

	private final SendContext context;

	private final String source;

	private final String queue;

	private final Function<byte[], Object> convert;

	/** Scheduled, ready, gone. */
	final long[] counts = new long[3];

	SourceImport(SendContext context, String source, String queue, Function<byte[], Object> convert) {
		this.context = context;
		this.source = source;
		this.queue = queue;
		this.convert = convert;
	}

	/**
	 * A message's five script arguments.
	 * @param id its id, or {@code null} for a generated one (nothing to dedup against)
	 * @param entry the entry, as an error names it ("member 'x' (score 5)"), worked out
	 * only then
	 */
	List<Object> message(byte[] stored, String id, String kind, long value, Supplier<String> entry) {
		Object payload;
		try {
			payload = this.convert.apply(stored);
		}
		catch (RuntimeException ex) {
			throw new IllegalArgumentException(
					"Cannot convert the payload of " + entry.get() + " of " + this.source + " (" + stored.length
							+ " bytes): " + ex.getMessage()
							+ "; choose the payload conversion it was written with: nothing of its chunk was moved",
					ex);
		}
		byte[] envelope;
		try {
			envelope = SendBatch.envelope(this.context, this.queue, payload, Map.of(), Map.of(), 0,
					this.context.expireAfter().apply(this.queue), null, 0);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException("Cannot move " + entry.get() + " of " + this.source + ": "
					+ ex.getMessage() + "; nothing of its chunk was moved", ex);
		}
		return List.of((id != null) ? id : SendBatch.generateId(), envelope, kind, value, (id != null) ? "0" : "2");
	}

	/**
	 * The due time of an entry scored {@code score}: refused past the latest time a
	 * message may be due (an infinite score too), so that the migration does not write
	 * what a send would refuse; a score before any time is due now.
	 * @param score the entry's score
	 * @param millisPerScore milliseconds a score counts
	 * @param entry the entry, as named in the error (worked out only then)
	 * @return the due time in epoch milliseconds
	 */
	long dueAt(double score, long millisPerScore, Supplier<String> entry) {
		double millis = score * millisPerScore;
		if (!(millis <= DueTimes.MAX.toEpochMilli())) {
			throw new IllegalArgumentException(
					entry.get() + " of " + this.source + " has score " + score + ", due after " + DueTimes.MAX
							+ ", the latest time a message may be due: nothing of its chunk was moved; give it"
							+ " an earlier score or remove it, then run the migration again");
		}
		return Math.round(millis);
	}

	/**
	 * Runs the send script for a chunk.
	 * @param sources per message where it comes from and its member there
	 * @param sourceKeys the other queue's three keys (see {@code send.lua})
	 */
	void send(RedisConnection connection, QueueKeys keys, List<List<Object>> messages, List<Object> sources,
			List<String> sourceKeys) {
		List<Object> args = new ArrayList<>();
		args.add(keys.wakeChannel());
		args.add(messages.size());
		args.add(this.context.layouts().partitions(this.queue));
		args.add(this.context.fairShare().test(this.queue) ? "1" : "0");
		args.add(this.context.compactArgument());
		messages.forEach(args::addAll);
		args.addAll(sources);
		List<String> scriptKeys = new ArrayList<>(
				List.of(keys.delayed(), keys.messages(), keys.stream(), keys.retired(), keys.sizeLimit(), keys.urgent(),
						keys.fair(), keys.fairState(), keys.far(), keys.farState()));
		scriptKeys.addAll(sourceKeys);
		List<Object> reply;
		try {
			reply = ScriptRunner.run(connection, Scripts.SEND, scriptKeys, args.toArray());
		}
		catch (RuntimeException ex) {
			if (String.valueOf(ex.getMessage()).contains("CROSSSLOT")
					|| (ex.getCause() != null && String.valueOf(ex.getCause().getMessage()).contains("CROSSSLOT"))) {
				throw new IllegalArgumentException("On a Redis Cluster, the keys of " + this.source
						+ " must share a slot with those of queue '" + this.queue + "' (partition 0, hash tag {"
						+ this.queue + "}): give the queue the Redisson queue's name, or a ZSET and hash keys with"
						+ " that hash tag; nothing was moved", ex);
			}
			throw ex;
		}
		this.sent = true;
		for (int i = 0; i < messages.size(); i++) {
			long status = ScriptRunner.asLong(reply.get(2 * i));
			if (status == 5) {
				throw new IllegalStateException("Queue '" + this.queue + "' is full (its size limit, "
						+ ScriptRunner.asLong(reply.get(2 * i + 1)) + "): the messages not moved yet stay in "
						+ this.source);
			}
			this.counts[(status == 6) ? 2 : (status == 2) ? 1 : 0]++;
		}
	}

	/** Whether a chunk was sent: a run always moves one, so that it makes progress. */
	private boolean sent;

	/**
	 * Whether another chunk may start: until one was sent, always; then before the
	 * deadline.
	 * @param deadlineNanos by {@link System#nanoTime()}
	 */
	boolean before(long deadlineNanos) {
		return !this.sent || System.nanoTime() - deadlineNanos < 0;
	}

	/**
	 * Runs one step of a move (a chunk, a look-up) as one operation, bounded by the
	 * operation timeout: a run of many chunks takes as long as it needs, and a hung Redis
	 * fails it within one bound.
	 */
	<T> T step(String what, Function<RedisConnection, T> step) {
		return RedisCalls.inRedis(what, () -> this.context.scripts().execute(step));
	}

	/** The keys of the queue's partition 0, registered, its layout checked. */
	QueueKeys target(RedisConnection connection) {
		this.context.layouts().verifyPartitions(connection, this.queue);
		QueueKeys keys = this.context.layouts().partitionKeys(this.queue).get(0);
		this.context.layouts().register(connection, keys);
		return keys;
	}

}
