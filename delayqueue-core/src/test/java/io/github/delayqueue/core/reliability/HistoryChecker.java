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

package io.github.delayqueue.core.reliability;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Records every delivery of a run and checks the history against the contract: every sent
 * message ends acknowledged or dead as its handler outcomes dictate, none is delivered
 * before its due time by the Redis clock, attempts count up from 1 without gaps, and an
 * attempt is delivered twice only when a lease expired in between (never, in runs without
 * crashes).
 */
final class HistoryChecker {

	private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();

	/**
	 * One delivery.
	 *
	 * @param id the message id
	 * @param attempt the attempt number
	 * @param consumer which consumer instance got it
	 * @param dueMillis the due time of this attempt (Redis clock)
	 * @param receivedMillis when the handler got it (Redis clock)
	 * @param succeeded whether the handler returned normally
	 */
	record Event(String id, int attempt, int consumer, long dueMillis, long receivedMillis, boolean succeeded) {
	}

	void record(Event event) {
		this.events.add(event);
	}

	int size() {
		return this.events.size();
	}

	/**
	 * Checks the history.
	 * @param sent the ids of every message whose send returned
	 * @param dead the ids found in the dead-letter stream
	 * @param maxAttempts the attempt limit
	 * @param leaseExpiries whether leases could expire in this run (duplicates then
	 * allowed)
	 * @return the violations, empty when the history keeps the contract
	 */
	List<String> violations(Collection<String> sent, Set<String> dead, int maxAttempts, boolean leaseExpiries) {
		Map<String, List<Event>> byId = new TreeMap<>();
		for (Event event : this.events) {
			byId.computeIfAbsent(event.id(), (id) -> new ArrayList<>()).add(event);
		}
		List<String> violations = new ArrayList<>();
		for (String id : sent) {
			List<Event> history = byId.getOrDefault(id, List.of());
			if (history.isEmpty()) {
				violations.add(id + ": lost (never delivered)");
				continue;
			}
			history.sort((a, b) -> Integer.compare(a.attempt(), b.attempt()));
			boolean acked = history.stream().anyMatch(Event::succeeded);
			int lastAttempt = history.get(history.size() - 1).attempt();
			for (int i = 0; i < history.size(); i++) {
				Event event = history.get(i);
				if (event.receivedMillis() < event.dueMillis()) {
					violations.add(id + ": attempt " + event.attempt() + " delivered "
							+ (event.dueMillis() - event.receivedMillis()) + "ms before its due time");
				}
				if (i > 0 && history.get(i - 1).attempt() == event.attempt() && !leaseExpiries) {
					violations.add(id + ": attempt " + event.attempt() + " delivered twice without a lease expiry");
				}
			}
			long distinctAttempts = history.stream().mapToInt(Event::attempt).distinct().count();
			if (distinctAttempts != lastAttempt) {
				violations.add(id + ": attempts have gaps " + history.stream().map(Event::attempt).toList());
			}
			if (acked && dead.contains(id)) {
				violations.add(id + ": acknowledged and dead-lettered");
			}
			if (!acked && lastAttempt >= maxAttempts && !dead.contains(id)) {
				violations.add(id + ": exhausted " + maxAttempts + " attempts but is not dead-lettered");
			}
			if (!acked && lastAttempt < maxAttempts) {
				violations.add(id + ": stuck after " + lastAttempt + " failed attempt(s)");
			}
			if (dead.contains(id) && (acked || lastAttempt < maxAttempts)) {
				violations.add(id + ": dead-lettered without exhausting its attempts");
			}
		}
		for (String id : byId.keySet()) {
			if (!sent.contains(id)) {
				violations.add(id + ": delivered but never sent");
			}
		}
		return violations;
	}

}
