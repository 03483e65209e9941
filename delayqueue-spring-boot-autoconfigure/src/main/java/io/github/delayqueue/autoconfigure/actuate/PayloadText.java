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

package io.github.delayqueue.autoconfigure.actuate;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * A payload as the endpoint and the dashboard show it: its UTF-8 text when it is text,
 * cut at a size limit on a character boundary (a cut through a multi-byte character
 * leaves that character out, the payload is still text), else the size of its binary
 * content.
 */
public final class PayloadText {

	private PayloadText() {
	}

	/**
	 * Shows a payload.
	 * @param payload the payload bytes
	 * @param maxBytes how many of its bytes to show at most
	 * @return its text, followed by {@code ... (<size> bytes)} when cut; or
	 * {@code (<size> bytes of binary content)} when it is not UTF-8 text
	 */
	public static String preview(byte[] payload, int maxBytes) {
		CharSequence text = text(payload, maxBytes);
		if (text == null) {
			return "(" + payload.length + " bytes of binary content)";
		}
		return (payload.length <= maxBytes) ? text.toString() : text + "... (" + payload.length + " bytes)";
	}

	/**
	 * Returns whether {@link #preview} shows a payload as binary content.
	 * @param payload the payload bytes
	 * @param maxBytes how many of its bytes a preview shows at most
	 * @return whether its first {@code maxBytes} are not UTF-8 text
	 */
	public static boolean isBinary(byte[] payload, int maxBytes) {
		return text(payload, maxBytes) == null;
	}

	/** The first {@code maxBytes} as text, or {@code null} when they are not UTF-8. */
	private static CharSequence text(byte[] payload, int maxBytes) {
		boolean whole = payload.length <= maxBytes;
		ByteBuffer in = ByteBuffer.wrap(payload, 0, whole ? payload.length : maxBytes);
		CharBuffer out = CharBuffer.allocate(in.remaining());
		CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
			.onMalformedInput(CodingErrorAction.REPORT)
			.onUnmappableCharacter(CodingErrorAction.REPORT);
		// not the end of the input when cut: a character cut at the end is left out, not
		// taken for binary
		CoderResult result = decoder.decode(in, out, whole);
		if (result.isError() || (whole && (in.hasRemaining() || decoder.flush(out).isError()))) {
			return null;
		}
		out.flip();
		return out;
	}

}
