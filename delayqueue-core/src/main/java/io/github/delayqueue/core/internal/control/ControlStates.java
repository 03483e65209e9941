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

package io.github.delayqueue.core.internal.control;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.InputText;
import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;

/**
 * Reads a queue's flow controls from the fields {@code control.lua} writes into the meta
 * hash (and publishes): pause, paused groups, rate and concurrency limits. A limit that
 * cannot be read (written by hand) is ignored, said once.
 */
final class ControlStates {

	private static final Log logger = LogFactory.getLog(ControlStates.class);

	/** Limits found unreadable in Redis and said so, by queue and text. */
	private static final Set<String> UNREADABLE = ConcurrentHashMap.newKeySet();

	private static final byte[][] FIELDS = fields("paused", "paused-groups", "control-version", "rate-limit",
			"rate-limits", "concurrency-limit", "concurrency-limits");

	private ControlStates() {
	}

	private static byte[][] fields(String... names) {
		byte[][] fields = new byte[names.length][];
		for (int i = 0; i < names.length; i++) {
			fields[i] = names[i].getBytes(StandardCharsets.UTF_8);
		}
		return fields;
	}

	/**
	 * Reads a queue's state from its meta hash (one {@code HMGET}).
	 * @param scripts the script runner
	 * @param keys the queue's keys
	 * @return the state with its version
	 */
	static Versioned fetch(ScriptRunner scripts, QueueKeys keys) {
		List<byte[]> values = scripts
			.execute((connection) -> connection.hashCommands().hMGet(QueueKeys.bytes(keys.meta()), FIELDS));
		String version = text(values, 2);
		return new Versioned(read(keys.queue(), text(values, 0), text(values, 1), text(values, 3), text(values, 4),
				text(values, 5), text(values, 6)), (version != null) ? Long.parseLong(version) : 0);
	}

	private static String text(List<byte[]> values, int index) {
		byte[] value = (values != null && values.size() > index) ? values.get(index) : null;
		return (value != null) ? new String(value, StandardCharsets.UTF_8) : null;
	}

	/**
	 * Reads the state held in the meta hash's fields (or published with them).
	 * @param queue the queue
	 * @param paused the {@code paused} field ({@code 1}), or {@code null}
	 * @param groups the {@code paused-groups} field, or {@code null}
	 * @param rate the {@code rate-limit} field, or {@code null}
	 * @param groupRates the {@code rate-limits} field, or {@code null}
	 * @param concurrency the {@code concurrency-limit} field, or {@code null}
	 * @param groupConcurrency the {@code concurrency-limits} field, or {@code null}
	 * @return the state
	 */
	static QueueControlState read(String queue, String paused, String groups, String rate, String groupRates,
			String concurrency, String groupConcurrency) {
		Set<String> names = new TreeSet<>(words(groups));
		return new QueueControlState(queue, "1".equals(paused), names, limit(queue, rate, RateLimit::parse),
				byGroup(queue, groupRates, RateLimit::parse), limit(queue, concurrency, ConcurrencyLimit::parse),
				byGroup(queue, groupConcurrency, ConcurrencyLimit::parse));
	}

	private static <T> Map<String, T> byGroup(String queue, String field, Function<String, T> parse) {
		Map<String, T> limits = new TreeMap<>();
		for (String entry : words(field)) {
			int equals = entry.indexOf('=');
			T limit = limit(queue, entry.substring(equals + 1), parse);
			if (equals > 0 && limit != null) {
				limits.put(entry.substring(0, equals), limit);
			}
		}
		return limits;
	}

	private static List<String> words(String text) {
		List<String> words = new ArrayList<>();
		if (text != null) {
			for (String word : text.trim().split(" +")) {
				if (!word.isEmpty()) {
					words.add(word);
				}
			}
		}
		return words;
	}

	/**
	 * A limit as stored; one that cannot be read (written by hand) is ignored, said once.
	 */
	private static <T> T limit(String queue, String text, Function<String, T> parse) {
		if (text == null || text.isEmpty()) {
			return null;
		}
		try {
			return parse.apply(text);
		}
		catch (IllegalArgumentException ex) {
			// read every poll: said once per text
			if (UNREADABLE.add(queue + "\n" + text)) {
				logger.warn("Ignoring the limit " + InputText.quote(text) + " of queue '" + queue + "' in Redis: "
						+ ex.getMessage());
			}
			return null;
		}
	}

	/**
	 * A state read from Redis with its version.
	 *
	 * @param state the state
	 * @param version its version (0: never changed)
	 */
	record Versioned(QueueControlState state, long version) {
	}

}
