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

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.QueueFullException;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.routing.QueueLayouts;
import io.github.delayqueue.core.internal.send.SendBatch.Prepared;

import org.springframework.data.redis.connection.RedisConnection;

/**
 * One call of the send script: messages of one partition, with the script's keys and
 * arguments, and how its reply becomes their results.
 */
final class SendChunk {

	final QueueKeys keys;

	final List<Prepared> messages;

	final Object[] args;

	final int partitions;

	/**
	 * A chunk of a queue's messages of one partition.
	 * @param context the send path's settings
	 * @param keys the partition's keys
	 * @param messages at most {@code sendBatchSize} messages
	 * @return the chunk
	 */
	static SendChunk of(SendContext context, QueueKeys keys, List<Prepared> messages) {
		String queue = keys.queue();
		return new SendChunk(keys, messages, context.layouts().partitions(queue), context.fairShare().test(queue),
				context.compactArgument());
	}

	private SendChunk(QueueKeys keys, List<Prepared> messages, int partitions, boolean fairShare, String compact) {
		this.keys = keys;
		this.messages = messages;
		this.partitions = partitions;
		List<Object> args = new ArrayList<>(3 + messages.size() * 5);
		args.add(keys.wakeChannel());
		args.add(messages.size());
		args.add(partitions);
		args.add(fairShare ? "1" : "0");
		args.add(compact);
		for (Prepared prepared : messages) {
			args.add(prepared.id);
			args.add(prepared.envelope);
			args.add(prepared.kind);
			args.add(prepared.value);
			args.add(prepared.mode);
		}
		this.args = args.toArray();
	}

	/**
	 * Sends the messages: registers the queue's layout, runs the script, applies its
	 * reply.
	 */
	void send(QueueLayouts layouts, RedisConnection connection) {
		layouts.register(connection, this.keys);
		apply(run(connection));
	}

	/** Runs the script (by source when the server lost it) and returns its reply. */
	List<Object> run(RedisConnection connection) {
		return ScriptRunner.run(connection, Scripts.SEND, scriptKeys(), this.args);
	}

	List<String> scriptKeys() {
		return List.of(this.keys.delayed(), this.keys.messages(), this.keys.stream(), this.keys.retired(),
				this.keys.sizeLimit(), this.keys.urgent(), this.keys.fair(), this.keys.fairState(), this.keys.far(),
				this.keys.farState());
	}

	/** The script's keys, encoded for a client's own API. */
	byte[][] scriptKeyBytes() {
		return scriptKeys().stream().map(QueueKeys::bytes).toArray(byte[][]::new);
	}

	/** The script's arguments, encoded for a client's own API. */
	byte[][] argBytes() {
		byte[][] bytes = new byte[this.args.length][];
		for (int i = 0; i < bytes.length; i++) {
			bytes[i] = ScriptRunner.encode(this.args[i]);
		}
		return bytes;
	}

	void apply(List<Object> reply) {
		for (int i = 0; i < this.messages.size(); i++) {
			Prepared prepared = this.messages.get(i);
			SendResult.Status status = SendResult.Status.values()[(int) ScriptRunner.asLong(reply.get(2 * i)) - 1];
			long value = ScriptRunner.asLong(reply.get(2 * i + 1));
			if (status == SendResult.Status.REFUSED) {
				// the value is the queue's size limit
				prepared.result = new SendResult(this.keys.queue(), prepared.id, status, null);
				prepared.refusal = new QueueFullException(this.keys.queue(), prepared.id, value, this.partitions,
						this.keys.partition());
			}
			else {
				prepared.result = new SendResult(this.keys.queue(), prepared.id, status, Instant.ofEpochMilli(value));
			}
		}
	}

}
