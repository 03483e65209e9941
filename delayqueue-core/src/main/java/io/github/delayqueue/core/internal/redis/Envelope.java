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

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What is stored per message besides its id and due time: headers, the per-message
 * attempt limit, the expiry, and the encoded payload. A compact binary form (a version
 * byte, varint lengths) keeps Redis memory per scheduled message low; the Lua scripts
 * treat it as opaque bytes, but for the expiry.
 * <p>
 * A message without expiry or key is version 1. One with an expiry is version 2: after
 * the version byte come {@value #EXPIRY_DIGITS} ASCII digits the scripts read and rewrite
 * (see {@code prelude.lua}): while the message is scheduled, its time to live in
 * milliseconds counted from its due time; once it is due, the epoch millisecond (Redis
 * clock) at which it expires; all zeros for none (a replayed dead letter). Then the
 * fields of version 1. A message with a key (the one its sender set: per-key rate limits
 * need it) is version 3 (no expiry) or 4 (with): the key, as a varint length and UTF-8
 * bytes, comes after the version byte and the expiry digits, before the fields of version
 * 1. A message with a priority (1 to 9) is version 5 to 8 (versions 1 to 4 plus 4): one
 * ASCII digit, its priority, comes after the expiry digits, before the key. The version
 * is thus 1 + a bit field: 1 expiry, 2 key, 4 priority.
 *
 * @param headers the headers (never {@code null})
 * @param maxAttempts the per-message attempt limit, or 0 for the listener's
 * @param expiry the expiry as stored (see above), or 0 for none
 * @param key the message's key, or {@code null} when its sender set none
 * @param payload the encoded payload
 * @param priority the message's priority, 0 (none) to {@value #MAX_PRIORITY}
 */
public record Envelope(Map<String, String> headers, int maxAttempts, long expiry, String key, byte[] payload,
		int priority) {

	private static final int VERSION = 1;

	private static final int EXPIRY_BIT = 1;

	private static final int KEY_BIT = 2;

	private static final int PRIORITY_BIT = 4;

	private static final int LAST_VERSION = 1 + EXPIRY_BIT + KEY_BIT + PRIORITY_BIT;

	/** The highest priority. */
	public static final int MAX_PRIORITY = 9;

	/** The width of the expiry field of version 2. */
	public static final int EXPIRY_DIGITS = 13;

	/** The largest expiry the field holds (an epoch millisecond in the year 2286). */
	public static final long MAX_EXPIRY = 9_999_999_999_999L;

	/**
	 * An envelope without expiry.
	 * @param headers the headers
	 * @param maxAttempts the per-message attempt limit, or 0 for the listener's
	 * @param payload the encoded payload
	 */
	public Envelope(Map<String, String> headers, int maxAttempts, byte[] payload) {
		this(headers, maxAttempts, 0, null, payload);
	}

	/**
	 * An envelope without priority.
	 * @param headers the headers
	 * @param maxAttempts the per-message attempt limit, or 0 for the listener's
	 * @param expiry the expiry as stored, or 0 for none
	 * @param key the message's key, or {@code null}
	 * @param payload the encoded payload
	 */
	public Envelope(Map<String, String> headers, int maxAttempts, long expiry, String key, byte[] payload) {
		this(headers, maxAttempts, expiry, key, payload, 0);
	}

	public Envelope {
		if (expiry < 0 || expiry > MAX_EXPIRY) {
			throw new IllegalArgumentException("Expiry " + expiry + " is outside 0 to " + MAX_EXPIRY);
		}
		if (priority < 0 || priority > MAX_PRIORITY) {
			throw new IllegalArgumentException("Priority must be from 0 to " + MAX_PRIORITY + ", but was " + priority);
		}
	}

	/**
	 * Encodes the envelope.
	 * @return its bytes
	 */
	public byte[] encode() {
		ByteArrayOutputStream out = new ByteArrayOutputStream(this.payload.length + 8);
		out.write(VERSION + ((this.expiry > 0) ? EXPIRY_BIT : 0) + ((this.key != null) ? KEY_BIT : 0)
				+ ((this.priority > 0) ? PRIORITY_BIT : 0));
		if (this.expiry > 0) {
			String digits = Long.toString(this.expiry);
			out.writeBytes("0".repeat(EXPIRY_DIGITS - digits.length()).getBytes(StandardCharsets.US_ASCII));
			out.writeBytes(digits.getBytes(StandardCharsets.US_ASCII));
		}
		if (this.priority > 0) {
			out.write('0' + this.priority);
		}
		if (this.key != null) {
			writeString(out, this.key);
		}
		writeVarint(out, this.maxAttempts);
		writeVarint(out, this.headers.size());
		this.headers.forEach((name, value) -> {
			writeString(out, name);
			writeString(out, value);
		});
		out.writeBytes(this.payload);
		return out.toByteArray();
	}

	/**
	 * Decodes an envelope.
	 * @param bytes the bytes
	 * @return the envelope
	 * @throws IllegalArgumentException when the bytes are not an envelope
	 */
	public static Envelope decode(byte[] bytes) {
		Reader reader = new Reader(bytes);
		int version = reader.next();
		if (version < VERSION || version > LAST_VERSION) {
			throw new IllegalArgumentException("Unknown message envelope version " + version);
		}
		int flags = version - VERSION;
		long expiry = ((flags & EXPIRY_BIT) != 0) ? reader.digits(EXPIRY_DIGITS) : 0;
		int priority = ((flags & PRIORITY_BIT) != 0) ? reader.next() - '0' : 0;
		if ((flags & PRIORITY_BIT) != 0 && (priority < 1 || priority > MAX_PRIORITY)) {
			throw new IllegalArgumentException("Malformed priority in message envelope");
		}
		String key = ((flags & KEY_BIT) != 0) ? reader.string() : null;
		int maxAttempts = reader.varint();
		int count = reader.varint();
		Map<String, String> headers = (count == 0) ? Collections.emptyMap() : new LinkedHashMap<>();
		for (int i = 0; i < count; i++) {
			headers.put(reader.string(), reader.string());
		}
		byte[] payload = new byte[bytes.length - reader.position];
		System.arraycopy(bytes, reader.position, payload, 0, payload.length);
		return new Envelope(Collections.unmodifiableMap(headers), maxAttempts, expiry, key, payload, priority);
	}

	/**
	 * Reads the priority of an encoded envelope without decoding the rest.
	 * @param bytes the envelope
	 * @return its priority, 0 for none (or for bytes that are not an envelope: their
	 * decoding fails later, where it is reported)
	 */
	public static int priorityOf(byte[] bytes) {
		if (bytes == null || bytes.length == 0) {
			return 0;
		}
		int flags = (bytes[0] & 0xFF) - VERSION;
		if (flags < 0 || flags > LAST_VERSION - VERSION || (flags & PRIORITY_BIT) == 0) {
			return 0;
		}
		int at = 1 + (((flags & EXPIRY_BIT) != 0) ? EXPIRY_DIGITS : 0);
		int priority = (at < bytes.length) ? bytes[at] - '0' : 0;
		return (priority >= 1 && priority <= MAX_PRIORITY) ? priority : 0;
	}

	/**
	 * Returns the encoded size of the headers, for the size limit.
	 * @param headers the headers
	 * @return their size in bytes
	 */
	public static int headersSize(Map<String, String> headers) {
		int size = 0;
		for (Map.Entry<String, String> header : headers.entrySet()) {
			size += header.getKey().getBytes(StandardCharsets.UTF_8).length
					+ header.getValue().getBytes(StandardCharsets.UTF_8).length + 2;
		}
		return size;
	}

	private static void writeString(ByteArrayOutputStream out, String value) {
		byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
		writeVarint(out, bytes.length);
		out.writeBytes(bytes);
	}

	private static void writeVarint(ByteArrayOutputStream out, int value) {
		int remaining = value;
		while ((remaining & ~0x7F) != 0) {
			out.write((remaining & 0x7F) | 0x80);
			remaining >>>= 7;
		}
		out.write(remaining);
	}

	private static final class Reader {

		private final byte[] bytes;

		private int position;

		Reader(byte[] bytes) {
			this.bytes = bytes;
		}

		int next() {
			if (this.position >= this.bytes.length) {
				throw new IllegalArgumentException("Truncated message envelope");
			}
			return this.bytes[this.position++] & 0xFF;
		}

		long digits(int count) {
			long value = 0;
			for (int i = 0; i < count; i++) {
				int digit = next() - '0';
				if (digit < 0 || digit > 9) {
					throw new IllegalArgumentException("Malformed expiry in message envelope");
				}
				value = value * 10 + digit;
			}
			return value;
		}

		int varint() {
			int value = 0;
			for (int shift = 0; shift < 32; shift += 7) {
				int b = next();
				value |= (b & 0x7F) << shift;
				if ((b & 0x80) == 0) {
					return value;
				}
			}
			throw new IllegalArgumentException("Malformed varint in message envelope");
		}

		String string() {
			int length = varint();
			if (length < 0 || this.position + length > this.bytes.length) {
				throw new IllegalArgumentException("Truncated message envelope");
			}
			String value = new String(this.bytes, this.position, length, StandardCharsets.UTF_8);
			this.position += length;
			return value;
		}

	}

}
