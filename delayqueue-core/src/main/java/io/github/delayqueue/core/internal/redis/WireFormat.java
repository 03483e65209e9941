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

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.DeadLetter;

/**
 * The one owner of what delayqueue writes into Redis streams: the field names of a ready
 * entry and of a dead letter, the due-time kinds a script takes, and the retry-member
 * format. Java reads entries here only; the Lua scripts write and read them through the
 * prelude ({@code prelude.lua}), whose names are filled in from these constants when the
 * scripts are loaded.
 */
public final class WireFormat {

	/** Field: the message id. */
	public static final String ID = "i";

	/** Field: the envelope (headers, max attempts, payload). */
	public static final String ENVELOPE = "e";

	/** Field: the due time, epoch ms (Redis clock). */
	public static final String DUE = "d";

	/** Field: the attempt this entry starts (dead letter: the attempts made). */
	public static final String ATTEMPT = "a";

	/** Dead-letter field: the group that gave up. */
	public static final String GROUP = "g";

	/** Dead-letter field: the class of the last failure. */
	public static final String ERROR_CLASS = "x";

	/** Dead-letter field: the message of the last failure. */
	public static final String ERROR_MESSAGE = "r";

	/** Dead-letter field: when it was dead-lettered, epoch ms (Redis clock). */
	public static final String DEAD_TIME = "t";

	/** Dead-letter field: the stack trace of the last failure, truncated. */
	public static final String STACK_TRACE = "s";

	/** Due-time kind: a delay in ms from Redis now. */
	public static final String DUE_IN = "d";

	/** Due-time kind: an absolute epoch ms. */
	public static final String DUE_AT = "a";

	/**
	 * The start of the id of every message a recurring schedule sends:
	 * {@code schedule/<name>/<tick epoch ms>} for a tick,
	 * {@code schedule/<name>/now-<epoch
	 * µs>} for a trigger.
	 */
	public static final String TICK_PREFIX = "schedule/";

	/** How many upcoming ticks of a schedule the JVM plans ahead. */
	public static final int PLAN_AHEAD = 8;

	/** Below how many upcoming ticks a schedule asks the JVM for more. */
	public static final int PLAN_LOW = PLAN_AHEAD / 2;

	private WireFormat() {
	}

	/**
	 * Returns the prelude of every script, its names filled in.
	 * @return the prelude's source
	 */
	static String prelude() {
		String path = "META-INF/delayqueue/scripts/prelude.lua";
		try (InputStream in = WireFormat.class.getClassLoader().getResourceAsStream(path)) {
			if (in == null) {
				throw new IllegalStateException("Missing script " + path);
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("{{ID}}", ID)
				.replace("{{ENVELOPE}}", ENVELOPE)
				.replace("{{DUE}}", DUE)
				.replace("{{ATTEMPT}}", ATTEMPT)
				.replace("{{GROUP}}", GROUP)
				.replace("{{ERROR_CLASS}}", ERROR_CLASS)
				.replace("{{ERROR_MESSAGE}}", ERROR_MESSAGE)
				.replace("{{DEAD_TIME}}", DEAD_TIME)
				.replace("{{STACK_TRACE}}", STACK_TRACE)
				.replace("{{TICK_PREFIX}}", TICK_PREFIX)
				.replace("{{PLAN_LOW}}", Integer.toString(PLAN_LOW))
				.replace("{{MAX_DUE}}", Long.toString(DueTimes.MAX.toEpochMilli()));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read script " + path, ex);
		}
	}

	/**
	 * Reads a stream entry's fields from a script reply's flat list.
	 * @param flat name, value, name, value...
	 * @return the fields by name
	 */
	public static Map<String, byte[]> fields(List<?> flat) {
		Map<String, byte[]> fields = new LinkedHashMap<>();
		for (int i = 0; i + 1 < flat.size(); i += 2) {
			Object value = flat.get(i + 1);
			fields.put(ScriptRunner.asString(flat.get(i)), (value instanceof byte[] bytes) ? bytes
					: ScriptRunner.asString(value).getBytes(StandardCharsets.UTF_8));
		}
		return fields;
	}

	/**
	 * Reads a stream entry's fields from a client reply.
	 * @param raw the fields
	 * @return the fields by name
	 */
	public static Map<String, byte[]> fields(Map<byte[], byte[]> raw) {
		Map<String, byte[]> fields = new LinkedHashMap<>();
		raw.forEach((name, value) -> fields.put(new String(name, StandardCharsets.UTF_8), value));
		return fields;
	}

	/**
	 * A message ready for delivery: an entry of a queue's stream or a group's retry
	 * stream.
	 *
	 * @param messageId the message id
	 * @param envelope the envelope bytes; for an entry with no envelope (written by
	 * another program), its fields as text, which its dead letter keeps
	 * @param dueMillis the due time
	 * @param attempt the attempt this delivery is
	 * @param unreadable why the entry is no message of this library, or {@code null}
	 * @param lastFailure for a retry, the failure of the attempt before it; {@code null}
	 * for none
	 */
	public record Ready(String messageId, byte[] envelope, long dueMillis, int attempt, String unreadable,
			Failure lastFailure) {

		/**
		 * Reads an entry.
		 * @param fields its fields
		 * @param deliveries its delivery count in the group once this delivery took it
		 * @return the entry
		 */
		public static Ready parse(Map<String, byte[]> fields, long deliveries) {
			byte[] envelope = fields.get(ENVELOPE);
			String unreadable = null;
			if (envelope == null) {
				String what = (fields.get(ID) != null)
						? "The stream entry of message '" + text(fields.get(ID), "") + "' has no envelope (field '"
								+ ENVELOPE + "'): another program wrote it, or its envelope was lost"
						: "The stream entry is not a message of this library: it has no field '" + ENVELOPE + "'";
				unreadable = what + " (fields: " + String.join(", ", fields.keySet())
						+ "); its dead letter's payload is its fields as name=value lines";
				envelope = asText(fields);
			}
			Failure lastFailure = (fields.get(ERROR_CLASS) != null) ? new Failure(text(fields.get(ERROR_CLASS), ""),
					text(fields.get(ERROR_MESSAGE), ""), text(fields.get(STACK_TRACE), "")) : null;
			return new Ready(text(fields.get(ID), ""), envelope, number(fields.get(DUE), 0),
					(int) (number(fields.get(ATTEMPT), 1) + deliveries - 1), unreadable, lastFailure);
		}

		private static byte[] asText(Map<String, byte[]> fields) {
			java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
			fields.forEach((name, value) -> {
				out.writeBytes(name.getBytes(StandardCharsets.UTF_8));
				out.write('=');
				out.writeBytes(value);
				out.write('\n');
			});
			return out.toByteArray();
		}

	}

	/**
	 * A failure as Redis keeps it: in a dead letter, and in a retry for its next attempt.
	 *
	 * @param errorClass the exception's class name
	 * @param message its message (truncated)
	 * @param stackTrace its stack trace (truncated)
	 */
	public record Failure(String errorClass, String message, String stackTrace) {

		/** No failure: a retry that carries none. */
		public static final Failure NONE = new Failure("", "", "");

	}

	/**
	 * Reads a dead letter from a script reply.
	 * @param queue its queue
	 * @param entry its entry: {@code [entry id, [name, value, ...]]}
	 * @return the dead letter
	 */
	public static DeadLetter deadLetter(String queue, List<?> entry) {
		return deadLetter(queue, 0, entry);
	}

	/**
	 * Reads a dead-letter stream entry of a partition; its entry id carries the partition
	 * (see {@link QueueNames#deadLetterId(int, String)}).
	 * @param queue the queue
	 * @param partition the partition whose dead-letter stream it is in
	 * @param entry the entry: id and flat field list
	 * @return the dead letter
	 */
	public static DeadLetter deadLetter(String queue, int partition, List<?> entry) {
		return deadLetter(queue, QueueNames.deadLetterId(partition, ScriptRunner.asString(entry.get(0))),
				fields((List<?>) entry.get(1)));
	}

	private static DeadLetter deadLetter(String queue, String entryId, Map<String, byte[]> fields) {
		byte[] raw = (fields.get(ENVELOPE) != null) ? fields.get(ENVELOPE) : new byte[0];
		Map<String, String> headers = Map.of();
		byte[] payload = raw;
		try {
			Envelope envelope = Envelope.decode(raw);
			headers = envelope.headers();
			payload = envelope.payload();
		}
		catch (IllegalArgumentException ex) {
			// an unreadable envelope is shown raw
		}
		return new DeadLetter(entryId, queue, text(fields.get(GROUP), null), text(fields.get(ID), null),
				(int) number(fields.get(ATTEMPT), 0), text(fields.get(ERROR_CLASS), null),
				text(fields.get(ERROR_MESSAGE), null), Instant.ofEpochMilli(number(fields.get(DUE), 0)),
				Instant.ofEpochMilli(number(fields.get(DEAD_TIME), 0)), headers, payload,
				text(fields.get(STACK_TRACE), null));
	}

	private static String text(byte[] value, String fallback) {
		return (value != null) ? new String(value, StandardCharsets.UTF_8) : fallback;
	}

	private static long number(byte[] value, long fallback) {
		if (value == null) {
			return fallback;
		}
		try {
			return (long) Double.parseDouble(new String(value, StandardCharsets.UTF_8));
		}
		catch (NumberFormatException ex) {
			return fallback;
		}
	}

}
