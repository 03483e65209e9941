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

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.core.internal.InputText;

/**
 * Validates queue names, group names, message ids and dead-letter entry ids before
 * anything reaches Redis. A name becomes part of a key (inside its hash tag), so braces,
 * spaces, wildcards and control characters are refused with a clear
 * {@link IllegalArgumentException}.
 */
public final class QueueNames {

	/** The longest queue or group name accepted. */
	public static final int MAX_NAME_LENGTH = 100;

	/** The longest message id accepted, in UTF-8 bytes. */
	public static final int MAX_ID_BYTES = 256;

	private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]+");

	private static final Pattern ENTRY_ID = Pattern.compile("([0-9]{1,20})-([0-9]{1,20})");

	private QueueNames() {
	}

	/**
	 * Checks a queue name.
	 * @param queue the name
	 * @return the name
	 * @throws IllegalArgumentException when it is not a valid queue name
	 */
	public static String queue(String queue) {
		return name("Queue", queue);
	}

	/**
	 * Checks a consumer group name.
	 * @param group the name
	 * @return the name
	 * @throws IllegalArgumentException when it is not a valid group name
	 */
	public static String group(String group) {
		return name("Group", group);
	}

	/**
	 * Checks a consumer name (a consumer of a group).
	 * @param consumer the name
	 * @return the name
	 * @throws IllegalArgumentException when it is not a valid consumer name
	 */
	public static String consumer(String consumer) {
		return name("Consumer", consumer);
	}

	/**
	 * Returns a new default consumer name: this instance's host name (cut to 40 of the
	 * characters a name may hold) and process id, and a random suffix, so that an
	 * operator sees which instance holds a message.
	 * @return the name, {@code <host>-<pid>-<8 hex>}
	 */
	public static String defaultConsumer() {
		return Host.NAME + "-" + ProcessHandle.current().pid() + "-"
				+ java.util.UUID.randomUUID().toString().substring(0, 8);
	}

	/** This instance's host name, read once: from the environment, else the resolver. */
	private static final class Host {

		static final String NAME = read();

		private static String read() {
			String host = System.getenv("HOSTNAME");
			if (host == null || host.isBlank()) {
				host = System.getenv("COMPUTERNAME");
			}
			if (host == null || host.isBlank()) {
				try {
					host = java.net.InetAddress.getLocalHost().getHostName();
				}
				catch (java.io.IOException | RuntimeException ex) {
					host = "";
				}
			}
			host = host.replaceAll("[^A-Za-z0-9._-]", "");
			return host.isEmpty() ? "host" : host.substring(0, Math.min(40, host.length()));
		}

	}

	/**
	 * Checks a recurring schedule's name.
	 * @param schedule the name
	 * @return the name
	 * @throws IllegalArgumentException when it is not a valid schedule name
	 */
	public static String schedule(String schedule) {
		return name("Schedule", schedule);
	}

	private static String name(String what, String name) {
		if (name == null || name.isEmpty()) {
			throw new IllegalArgumentException(what + " name must not be null or empty");
		}
		if (name.length() > MAX_NAME_LENGTH) {
			throw new IllegalArgumentException(what + " name must be at most " + MAX_NAME_LENGTH
					+ " characters, but is " + name.length() + " ('" + abbreviate(name) + "')");
		}
		if (!NAME.matcher(name).matches()) {
			throw new IllegalArgumentException(what + " name '" + abbreviate(name)
					+ "' may only contain letters, digits and '.', '_', ':', '-' (no braces, spaces, wildcards or control characters)");
		}
		return name;
	}

	/**
	 * Checks a message id.
	 * @param id the id
	 * @return the id
	 * @throws IllegalArgumentException when it is empty, too long, has control characters
	 * or a lone UTF-16 surrogate
	 */
	public static String messageId(String id) {
		return idLike("Message id", id);
	}

	/**
	 * Validates a message key (the partition key): the rules of an id.
	 * @param key the key
	 * @return the key
	 * @throws IllegalArgumentException when it is null, empty, too long or not valid text
	 */
	public static String messageKey(String key) {
		return idLike("Message key", key);
	}

	private static String idLike(String what, String id) {
		if (id == null || id.isEmpty()) {
			throw new IllegalArgumentException(what + " must not be null or empty");
		}
		int lone = loneSurrogate(id);
		if (lone >= 0) {
			throw new IllegalArgumentException(
					what + " '" + abbreviate(id) + "' must be valid UTF-16: it has a lone surrogate at index " + lone
							+ ", which UTF-8 cannot encode (it would become '?')");
		}
		if (id.getBytes(StandardCharsets.UTF_8).length > MAX_ID_BYTES) {
			throw new IllegalArgumentException(
					what + " must be at most " + MAX_ID_BYTES + " bytes in UTF-8 ('" + abbreviate(id) + "')");
		}
		if (id.chars().anyMatch(Character::isISOControl)) {
			throw new IllegalArgumentException(what + " '" + abbreviate(id) + "' must not contain control characters");
		}
		return id;
	}

	/**
	 * Checks the entry id of a dead letter: a stream id {@code <ms>-<seq>}, two unsigned
	 * 64-bit decimal numbers.
	 * @param entryId the entry id
	 * @return the entry id
	 * @throws IllegalArgumentException when it is not a stream id
	 */
	public static String deadLetterId(String entryId) {
		if (entryId == null) {
			throw new IllegalArgumentException("Dead-letter entry id must not be null");
		}
		int slash = entryId.indexOf(':');
		String streamId = (slash < 0) ? entryId : entryId.substring(slash + 1);
		Matcher matcher = ENTRY_ID.matcher(streamId);
		if (!matcher.matches() || !isUnsignedLong(matcher.group(1)) || !isUnsignedLong(matcher.group(2))
				|| (slash >= 0 && !isPartition(entryId.substring(0, slash)))) {
			throw new IllegalArgumentException("Dead-letter entry id must be a stream id '<ms>-<seq>' "
					+ "(two unsigned 64-bit decimal numbers, e.g. '1700000000000-0'), prefixed with its partition "
					+ "in a partitioned queue ('3:1700000000000-0'), but was '" + abbreviate(entryId) + "'");
		}
		return entryId;
	}

	private static boolean isPartition(String digits) {
		return digits.matches("[1-9][0-9]{0,3}") && Integer.parseInt(digits) < QueueKeys.MAX_PARTITIONS;
	}

	/**
	 * Returns the dead-letter entry id of a dead letter: its stream id, prefixed with its
	 * partition ({@code 3:1700000000000-0}, a character that a URL path segment keeps)
	 * unless in partition 0.
	 * @param partition the partition of its dead-letter stream
	 * @param streamId its id in that stream
	 * @return the dead-letter entry id
	 */
	public static String deadLetterId(int partition, String streamId) {
		return (partition == 0) ? streamId : partition + ":" + streamId;
	}

	/**
	 * Returns the partition of a valid dead-letter entry id.
	 * @param entryId the entry id
	 * @return its partition, 0 when it has no prefix
	 */
	public static int deadLetterPartition(String entryId) {
		int slash = entryId.indexOf(':');
		return (slash < 0) ? 0 : Integer.parseInt(entryId.substring(0, slash));
	}

	/**
	 * Returns the stream id of a valid dead-letter entry id.
	 * @param entryId the entry id
	 * @return its id in its partition's dead-letter stream
	 */
	public static String deadLetterStreamId(String entryId) {
		return entryId.substring(entryId.indexOf(':') + 1);
	}

	private static boolean isUnsignedLong(String digits) {
		try {
			Long.parseUnsignedLong(digits);
			return true;
		}
		catch (NumberFormatException ex) {
			return false;
		}
	}

	/**
	 * Checks text that is encoded as UTF-8 as it is (a header's name or value): a lone
	 * UTF-16 surrogate would become '?', and two values one.
	 * @param what what the text is, for the message
	 * @param value the text
	 * @return the text
	 * @throws IllegalArgumentException when it has a lone surrogate
	 */
	public static String utf16(String what, String value) {
		int lone = loneSurrogate(value);
		if (lone >= 0) {
			throw new IllegalArgumentException(
					what + " '" + abbreviate(value) + "' must be valid UTF-16: it has a lone surrogate at index " + lone
							+ ", which UTF-8 cannot encode (it would become '?')");
		}
		return value;
	}

	// the index of the first surrogate that is not part of a pair, or -1 (queue, group
	// and consumer names are ASCII only, so only ids and headers can have one)
	private static int loneSurrogate(String value) {
		for (int i = 0; i < value.length(); i++) {
			char c = value.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < value.length()
					&& Character.isLowSurrogate(value.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return i;
			}
		}
		return -1;
	}

	/**
	 * Shows a value in an error message: its first characters, control characters
	 * escaped.
	 * @param value the value
	 * @return how the message shows it
	 * @see InputText#abbreviate(String)
	 */
	public static String abbreviate(String value) {
		return InputText.abbreviate(value);
	}

}
