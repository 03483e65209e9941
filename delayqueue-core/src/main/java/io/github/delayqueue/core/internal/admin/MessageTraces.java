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

package io.github.delayqueue.core.internal.admin;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.MessageTrace;
import io.github.delayqueue.core.MessageTrace.State;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.RedisCalls;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.WireFormat;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStreamCommands.XPendingOptions;
import org.springframework.data.redis.connection.stream.ByteRecord;
import org.springframework.data.redis.connection.stream.PendingMessage;
import org.springframework.data.redis.connection.stream.PendingMessages;
import org.springframework.data.redis.connection.zset.Tuple;

/**
 * Finds what Redis still shows of a message that is not scheduled
 * ({@code DelayQueueAdmin.messageTrace}): per group, whether it is ready, in flight,
 * retrying, handled (its stream entry not yet trimmed) or a dead letter. Bounded work,
 * per partition until one shows the id: the newest {@value #DEAD_READ} dead letters, the
 * newest {@value #STREAM_READ} entries of the queue's streams and of each group's retry
 * stream, the first {@value #WAITING_READ} of each group's retry schedule and of the
 * fair-share waiting line, 1,000 per read; then one {@code XPENDING} per entry found.
 */
public final class MessageTraces {

	/** How many of a partition's newest dead letters are read, at most. */
	static final int DEAD_READ = 2_000;

	/** How many of a stream's newest entries are read, at most. */
	static final int STREAM_READ = 2_000;

	/** How many of a retry schedule's or waiting line's first members are read. */
	static final int WAITING_READ = 2_000;

	private static final int READ = 1000;

	private final AdminContext context;

	public MessageTraces(AdminContext context) {
		this.context = context;
	}

	public List<MessageTrace> find(String queue, String id) {
		QueueNames.queue(queue);
		QueueNames.messageId(id);
		return RedisCalls.inRedis("trace message '" + id + "' in queue '" + queue + "'",
				() -> this.context.scripts().execute((connection) -> {
					this.context.layouts().verifyPartitions(connection, queue);
					for (QueueKeys keys : this.context.lookUpOrder(queue, id)) {
						List<MessageTrace> found = partition(connection, keys, id);
						if (!found.isEmpty()) {
							return found;
						}
					}
					return List.<MessageTrace>of();
				}));
	}

	private static List<MessageTrace> partition(RedisConnection connection, QueueKeys keys, String id) {
		byte[] idBytes = id.getBytes(StandardCharsets.UTF_8);
		// each group's newest dead letter of the id
		Map<String, MessageTrace> dead = new LinkedHashMap<>();
		for (ByteRecord record : newest(connection, keys.dead(), DEAD_READ)) {
			Map<String, byte[]> fields = WireFormat.fields(record.getValue());
			if (java.util.Arrays.equals(fields.get(WireFormat.ID), idBytes)) {
				List<Object> flat = new ArrayList<>();
				fields.forEach((name, value) -> {
					flat.add(name);
					flat.add(value);
				});
				DeadLetter letter = WireFormat.deadLetter(keys.queue(), keys.partition(),
						List.of(record.getId().getValue(), flat));
				dead.putIfAbsent(String.valueOf(letter.group()),
						new MessageTrace(keys.queue(), id, letter.group(), keys.partition(), State.DEAD,
								letter.deadTime(), letter.attempts(), letter.errorClass(), letter.errorMessage(), null,
								letter.entryId()));
			}
		}
		Map<String, Map<String, Object>> groups = new LinkedHashMap<>();
		List<String> shared = new ArrayList<>();
		for (String stream : List.of(keys.stream(), keys.urgent())) {
			if (!Boolean.TRUE.equals(connection.keyCommands().exists(QueueKeys.bytes(stream)))) {
				continue;
			}
			shared.add(stream);
			for (Map<String, Object> info : QueueInspection.groupInfo(connection, stream)) {
				groups.putIfAbsent(ScriptRunner.asString(info.get("name")), new LinkedHashMap<>());
				groups.get(ScriptRunner.asString(info.get("name"))).put(stream, info.get("last-delivered-id"));
			}
		}
		Map<String, List<String>> entries = new LinkedHashMap<>();
		for (String stream : shared) {
			entries.put(stream, entriesOf(connection, stream, idBytes));
		}
		Set<String> names = new LinkedHashSet<>(groups.keySet());
		names.addAll(dead.keySet());
		List<MessageTrace> traces = new ArrayList<>();
		for (String group : names) {
			MessageTrace trace = retrying(connection, keys, group, id, idBytes);
			// the retry stream, then the queue's streams: the newest entry decides
			List<String> streams = new ArrayList<>();
			String retryStream = keys.retryStream(group);
			if (Boolean.TRUE.equals(connection.keyCommands().exists(QueueKeys.bytes(retryStream)))) {
				for (Map<String, Object> info : QueueInspection.groupInfo(connection, retryStream)) {
					if (group.equals(ScriptRunner.asString(info.get("name")))) {
						groups.computeIfAbsent(group, (g) -> new LinkedHashMap<>())
							.put(retryStream, info.get("last-delivered-id"));
						entries.put(retryStream, entriesOf(connection, retryStream, idBytes));
						streams.add(retryStream);
					}
				}
			}
			streams.addAll(shared);
			MessageTrace read = null;
			for (String stream : streams) {
				Object last = groups.getOrDefault(group, Map.of()).get(stream);
				for (String entry : entries.getOrDefault(stream, List.of())) {
					MessageTrace found = entryState(connection, keys, group, id, stream, entry, last);
					if (found != null && (read == null || rank(found) < rank(read))) {
						read = found;
					}
				}
			}
			MessageTrace decided = best(best(trace, read), dead.get(group));
			if (decided != null) {
				traces.add(decided);
			}
		}
		// a due message of a fair-share queue waits for its key's turn before any group
		// reads it
		byte[] fair = QueueKeys.bytes(keys.fair());
		for (Tuple tuple : connection.zSetCommands().zRangeWithScores(fair, 0, WAITING_READ - 1)) {
			String member = new String(tuple.getValue(), StandardCharsets.ISO_8859_1);
			String[] parts = member.split(":", 4);
			if (parts.length == 4 && parts[3].startsWith(new String(idBytes, StandardCharsets.ISO_8859_1))
					&& Integer.parseInt(parts[2]) == idBytes.length) {
				traces.add(new MessageTrace(keys.queue(), id, null, keys.partition(), State.READY,
						Instant.ofEpochMilli(Long.parseLong(parts[1])), 0, null, null, null, null));
			}
		}
		return traces;
	}

	/** Which of two states counts: the one furthest from done. */
	private static MessageTrace best(MessageTrace a, MessageTrace b) {
		if (a == null) {
			return b;
		}
		if (b == null) {
			return a;
		}
		return (rank(b) < rank(a)) ? b : a;
	}

	private static int rank(MessageTrace trace) {
		return switch (trace.state()) {
			case IN_FLIGHT -> 0;
			case RETRYING -> 1;
			case READY -> 2;
			case DEAD -> 3;
			case HANDLED -> 4;
		};
	}

	/** The id in a group's retry schedule (a retry or a replayed dead letter waiting). */
	private static MessageTrace retrying(RedisConnection connection, QueueKeys keys, String group, String id,
			byte[] idBytes) {
		for (Tuple tuple : connection.zSetCommands()
			.zRangeWithScores(QueueKeys.bytes(keys.retryDelayed(group)), 0, WAITING_READ - 1)) {
			RetryMember member = RetryMember.parse(tuple.getValue());
			if (member != null && java.util.Arrays.equals(member.id(), idBytes)) {
				return new MessageTrace(keys.queue(), id, group, keys.partition(), State.RETRYING,
						Instant.ofEpochMilli((long) tuple.getScore().doubleValue()), member.attempt(),
						member.errorClass(), member.errorMessage(), null, null);
			}
		}
		return null;
	}

	/** Where an entry of a group's stream is: in flight, unread, or acknowledged. */
	private static MessageTrace entryState(RedisConnection connection, QueueKeys keys, String group, String id,
			String stream, String entry, Object lastDelivered) {
		Instant due = Instant.ofEpochMilli(Long.parseLong(entry.substring(0, entry.indexOf('-'))));
		PendingMessages pending = connection.streamCommands()
			.xPending(QueueKeys.bytes(stream), group, XPendingOptions.range(Range.closed(entry, entry), 1L));
		if (pending != null) {
			for (PendingMessage message : pending) {
				return new MessageTrace(keys.queue(), id, group, keys.partition(), State.IN_FLIGHT, due,
						message.getTotalDeliveryCount(), null, null, message.getConsumerName(), entry);
			}
		}
		if (lastDelivered == null || compare(entry, ScriptRunner.asString(lastDelivered)) > 0) {
			return new MessageTrace(keys.queue(), id, group, keys.partition(), State.READY, due, 0, null, null, null,
					entry);
		}
		return new MessageTrace(keys.queue(), id, group, keys.partition(), State.HANDLED, due, 0, null, null, null,
				entry);
	}

	private static int compare(String a, String b) {
		int da = a.indexOf('-');
		int db = b.indexOf('-');
		int byTime = Long.compareUnsigned(Long.parseUnsignedLong(a.substring(0, da)),
				Long.parseUnsignedLong(b.substring(0, db)));
		return (byTime != 0) ? byTime : Long.compareUnsigned(Long.parseUnsignedLong(a.substring(da + 1)),
				Long.parseUnsignedLong(b.substring(db + 1)));
	}

	/** The entry ids of a stream's newest entries that carry the id, newest first. */
	private static List<String> entriesOf(RedisConnection connection, String stream, byte[] idBytes) {
		List<String> found = new ArrayList<>();
		for (ByteRecord record : newest(connection, stream, STREAM_READ)) {
			for (Map.Entry<byte[], byte[]> field : record.getValue().entrySet()) {
				if (WireFormat.ID.equals(new String(field.getKey(), StandardCharsets.UTF_8))
						&& java.util.Arrays.equals(field.getValue(), idBytes)) {
					found.add(record.getId().getValue());
				}
			}
		}
		return found;
	}

	/** A stream's newest entries, at most {@code max}, newest first. */
	private static List<ByteRecord> newest(RedisConnection connection, String stream, int max) {
		byte[] key = QueueKeys.bytes(stream);
		List<ByteRecord> all = new ArrayList<>();
		String before = null;
		while (all.size() < max) {
			// from the last entry read on (inclusive: it is passed over)
			int ask = Math.min(READ, max - all.size()) + ((before != null) ? 1 : 0);
			Range<String> range = (before != null) ? Range.leftUnbounded(Range.Bound.inclusive(before))
					: Range.unbounded();
			List<ByteRecord> records = connection.streamCommands().xRevRange(key, range, Limit.limit().count(ask));
			if (records == null || records.isEmpty()) {
				break;
			}
			for (ByteRecord record : records) {
				if (!record.getId().getValue().equals(before) && all.size() < max) {
					all.add(record);
				}
			}
			if (records.size() < ask) {
				break;
			}
			before = records.get(records.size() - 1).getId().getValue();
		}
		return all;
	}

	/**
	 * A retry schedule member: {@code <origin>:<attempt>[f<size>]:<id length>:<id>}, then
	 * the failure ({@code <class length>:<message length>:<class><message><trace>}) when
	 * it carries one, then the envelope.
	 */
	private record RetryMember(byte[] id, long attempt, String errorClass, String errorMessage) {

		static RetryMember parse(byte[] member) {
			try {
				int c0 = indexOf(member, 0);
				int c1 = indexOf(member, c0 + 1);
				int c2 = indexOf(member, c1 + 1);
				String attempt = ascii(member, c0 + 1, c1);
				int length = Integer.parseInt(ascii(member, c1 + 1, c2));
				byte[] id = java.util.Arrays.copyOfRange(member, c2 + 1, c2 + 1 + length);
				int f = attempt.indexOf('f');
				if (f < 0) {
					return new RetryMember(id, Long.parseLong(attempt), null, null);
				}
				int start = c2 + 1 + length;
				int a = indexOf(member, start);
				int b = indexOf(member, a + 1);
				int classLength = Integer.parseInt(ascii(member, start, a));
				int messageLength = Integer.parseInt(ascii(member, a + 1, b));
				String errorClass = new String(member, b + 1, classLength, StandardCharsets.UTF_8);
				String errorMessage = new String(member, b + 1 + classLength, messageLength, StandardCharsets.UTF_8);
				return new RetryMember(id, Long.parseLong(attempt.substring(0, f)), errorClass, errorMessage);
			}
			catch (RuntimeException ex) {
				// not a member this engine reads: passed over
				return null;
			}
		}

		private static int indexOf(byte[] bytes, int from) {
			for (int i = from; i < bytes.length; i++) {
				if (bytes[i] == ':') {
					return i;
				}
			}
			throw new IllegalArgumentException("no ':'");
		}

		private static String ascii(byte[] bytes, int from, int to) {
			return new String(bytes, from, to - from, StandardCharsets.US_ASCII);
		}

	}

}
