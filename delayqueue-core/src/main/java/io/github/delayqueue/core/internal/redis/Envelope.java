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
 * 1.
 *
 * @param headers the headers (never {@code null})
 * @param maxAttempts the per-message attempt limit, or 0 for the listener's
 * @param expiry the expiry as stored (see above), or 0 for none
 * @param key the message's key, or {@code null} when its sender set none
 * @param payload the encoded payload
 */
public record Envelope(Map<String, String> headers, int maxAttempts, long expiry, String key, byte[] payload) {

	private static final int VERSION = 1;

	private static final int VERSION_WITH_EXPIRY = 2;

	private static final int VERSION_WITH_KEY = 3;

	private static final int VERSION_WITH_EXPIRY_AND_KEY = 4;

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

	public Envelope {
		if (expiry < 0 || expiry > MAX_EXPIRY) {
			throw new IllegalArgumentException("Expiry " + expiry + " is outside 0 to " + MAX_EXPIRY);
		}
	}

	/**
	 * Encodes the envelope.
	 * @return its bytes
	 */
	public byte[] encode() {
		ByteArrayOutputStream out = new ByteArrayOutputStream(this.payload.length + 8);
		if (this.key != null) {
			out.write((this.expiry > 0) ? VERSION_WITH_EXPIRY_AND_KEY : VERSION_WITH_KEY);
		}
		else {
			out.write((this.expiry > 0) ? VERSION_WITH_EXPIRY : VERSION);
		}
		if (this.expiry > 0) {
			String digits = Long.toString(this.expiry);
			out.writeBytes("0".repeat(EXPIRY_DIGITS - digits.length()).getBytes(StandardCharsets.US_ASCII));
			out.writeBytes(digits.getBytes(StandardCharsets.US_ASCII));
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
		if (version < VERSION || version > VERSION_WITH_EXPIRY_AND_KEY) {
			throw new IllegalArgumentException("Unknown message envelope version " + version);
		}
		long expiry = (version == VERSION_WITH_EXPIRY || version == VERSION_WITH_EXPIRY_AND_KEY)
				? reader.digits(EXPIRY_DIGITS) : 0;
		String key = (version >= VERSION_WITH_KEY) ? reader.string() : null;
		int maxAttempts = reader.varint();
		int count = reader.varint();
		Map<String, String> headers = (count == 0) ? Collections.emptyMap() : new LinkedHashMap<>();
		for (int i = 0; i < count; i++) {
			headers.put(reader.string(), reader.string());
		}
		byte[] payload = new byte[bytes.length - reader.position];
		System.arraycopy(bytes, reader.position, payload, 0, payload.length);
		return new Envelope(Collections.unmodifiableMap(headers), maxAttempts, expiry, key, payload);
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
