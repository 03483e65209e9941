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
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import io.github.delayqueue.core.internal.redis.QueueNames;

/**
 * Bytes another queue stored, as a migration reads them: decoded as UTF-8 only when they
 * are UTF-8 (never with replacement characters), and shown in an error message so that
 * their entry can be found.
 */
public final class StoredBytes {

	private static final int SHOWN = 40;

	private StoredBytes() {
	}

	/**
	 * Decodes UTF-8, refusing what is not.
	 * @param stored the bytes
	 * @return the text
	 * @throws IllegalArgumentException naming the first byte that is not UTF-8
	 */
	public static String utf8(byte[] stored) {
		CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
			.onMalformedInput(CodingErrorAction.REPORT)
			.onUnmappableCharacter(CodingErrorAction.REPORT);
		ByteBuffer in = ByteBuffer.wrap(stored);
		CharBuffer out = CharBuffer.allocate(stored.length);
		CoderResult result = decoder.decode(in, out, true);
		if (result.isError()) {
			throw new IllegalArgumentException("it is not UTF-8 text: byte " + in.position() + " is "
					+ String.format("0x%02x", stored[in.position()] & 0xff)
					+ " (MigrationPayload.bytes() keeps the bytes as they are)");
		}
		decoder.flush(out);
		return out.flip().toString();
	}

	/**
	 * Shows stored bytes in an error message: UTF-8 text as its first 40 characters,
	 * other bytes as printable ASCII and {@code \xNN} escapes, shortened likewise.
	 * @param stored the bytes
	 * @return how the message shows them, quoted
	 */
	public static String show(byte[] stored) {
		try {
			return "'" + QueueNames.abbreviate(utf8(stored)) + "'";
		}
		catch (IllegalArgumentException ex) {
			StringBuilder shown = new StringBuilder("'");
			for (int i = 0; i < Math.min(stored.length, SHOWN); i++) {
				int b = stored[i] & 0xff;
				if (b >= 0x20 && b < 0x7f && b != '\\') {
					shown.append((char) b);
				}
				else {
					shown.append(String.format("\\x%02x", b));
				}
			}
			return shown.append((stored.length > SHOWN) ? "...'" : "'").toString();
		}
	}

	/**
	 * Shows a score: as a whole number when it is one (a due time in ms or s).
	 * @param score the score
	 * @return how the message shows it
	 */
	public static String score(double score) {
		return (score == Math.rint(score) && Math.abs(score) < 1e18) ? Long.toString((long) score)
				: Double.toString(score);
	}

}
