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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.RateLimit;

/**
 * Reads a queue's flow controls from the fields {@code control.lua} writes into the meta
 * hash (and publishes): pause, paused groups, rate limits. A rate limit that cannot be
 * read (written by hand) is ignored, said once.
 */
final class ControlStates {

	private static final Log logger = LogFactory.getLog(ControlStates.class);

	/** Rate limits found unreadable in Redis and said so, by queue and text. */
	private static final Set<String> UNREADABLE_RATES = ConcurrentHashMap.newKeySet();

	private ControlStates() {
	}

	/**
	 * Reads the state held in the meta hash's fields (or published with them).
	 * @param queue the queue
	 * @param paused the {@code paused} field ({@code 1}), or {@code null}
	 * @param groups the {@code paused-groups} field, or {@code null}
	 * @param rate the {@code rate-limit} field, or {@code null}
	 * @param groupRates the {@code rate-limits} field, or {@code null}
	 * @return the state
	 */
	static QueueControlState read(String queue, String paused, String groups, String rate, String groupRates) {
		Set<String> names = new TreeSet<>(words(groups));
		Map<String, RateLimit> rates = new TreeMap<>();
		for (String entry : words(groupRates)) {
			int equals = entry.indexOf('=');
			RateLimit limit = rateLimit(queue, entry.substring(equals + 1));
			if (equals > 0 && limit != null) {
				rates.put(entry.substring(0, equals), limit);
			}
		}
		return new QueueControlState(queue, "1".equals(paused), names, rateLimit(queue, rate), rates);
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
	private static RateLimit rateLimit(String queue, String text) {
		if (text == null || text.isEmpty()) {
			return null;
		}
		try {
			return RateLimit.parse(text);
		}
		catch (IllegalArgumentException ex) {
			// read every poll: said once per text
			if (UNREADABLE_RATES.add(queue + "\n" + text)) {
				logger.warn(
						"Ignoring the rate limit '" + text + "' of queue '" + queue + "' in Redis: " + ex.getMessage());
			}
			return null;
		}
	}

}
