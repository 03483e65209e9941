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

package io.github.delayqueue.core.internal;

/**
 * How an error message shows what a user gave: never whole. A property, a request body or
 * an annotation attribute may be megabytes long; the message that refuses it quotes its
 * first {@value #SHOWN} characters, control characters escaped, and a parser's own
 * message (which often echoes its input whole) is cut as well.
 */
public final class InputText {

	/** How many characters of a value a message shows. */
	public static final int SHOWN = 40;

	/** How long a cause's message may be before it is cut and the cause left off. */
	static final int MAX_CAUSE_MESSAGE = 200;

	/** How much of a cut cause's message is shown. */
	static final int SHOWN_CAUSE_MESSAGE = 100;

	private InputText() {
	}

	/**
	 * Shows a value in an error message: its first {@value #SHOWN} characters, then
	 * {@code ...}, control characters escaped.
	 * @param value the value
	 * @return how the message shows it
	 */
	public static String abbreviate(String value) {
		String shown = (value.length() > SHOWN) ? value.substring(0, SHOWN) + "..." : value;
		StringBuilder printable = new StringBuilder();
		shown.codePoints()
			.forEach((c) -> printable.append((Character.isISOControl(c) || Character.getType(c) == Character.SURROGATE)
					? String.format("\\u%04x", c) : Character.toString(c)));
		return printable.toString();
	}

	/**
	 * Quotes a value for an error message, abbreviated.
	 * @param value the value, or {@code null}
	 * @return {@code 'value'} abbreviated, or {@code null}
	 */
	public static String quote(String value) {
		return (value != null) ? "'" + abbreviate(value) + "'" : "null";
	}

	/**
	 * Refuses input with a message of ours followed by the parser's reason, cut. The
	 * parser's exception is kept as the cause only when its own message is short: one
	 * that echoes a huge input whole would print it again in every stack trace.
	 * @param message what was refused, its values already quoted
	 * @param reason what the parser threw
	 * @return the exception to throw
	 */
	public static IllegalArgumentException refusal(String message, Throwable reason) {
		String said = String.valueOf(reason.getMessage());
		if (said.length() <= MAX_CAUSE_MESSAGE) {
			return new IllegalArgumentException(message + ": " + said, reason);
		}
		return new IllegalArgumentException(message + ": " + said.substring(0, SHOWN_CAUSE_MESSAGE) + "... ("
				+ reason.getClass().getSimpleName() + ", " + said.length() + " characters in all)");
	}

}
