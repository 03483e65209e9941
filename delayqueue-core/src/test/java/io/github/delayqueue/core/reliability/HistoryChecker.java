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
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Records every delivery of a run (for one consumer group) and checks the history against
 * the contract:
 * <ul>
 * <li>none lost: every sent message was delivered;</li>
 * <li>none early: every attempt was received at or after its due time, both by the Redis
 * clock, and (without lease expiries) a retry was due at least the backoff after the
 * failed attempt was received;</li>
 * <li>none stuck: every message ends acknowledged (a handler returned) or failed on its
 * last attempt;</li>
 * <li>dead exactly when every attempt failed: a message is in the dead-letter stream
 * (once) if and only if its handler failed {@code maxAttempts} times;</li>
 * <li>no duplicate without a lease expiry: each attempt is delivered once, attempts count
 * up from 1 without gaps, nothing is delivered after an acknowledged attempt, and no
 * attempt beyond {@code maxAttempts} reaches the handler.</li>
 * </ul>
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

	List<Event> events() {
		return List.copyOf(this.events);
	}

	/**
	 * Returns whether every sent message reached an end in the handler's view:
	 * acknowledged, or failed on its last attempt.
	 * @param sent the ids sent
	 * @param maxAttempts the attempt limit
	 * @return whether all are finished
	 */
	boolean allFinished(Collection<String> sent, int maxAttempts) {
		Set<String> finished = new HashSet<>();
		for (Event event : this.events) {
			if (event.succeeded() || event.attempt() >= maxAttempts) {
				finished.add(event.id());
			}
		}
		return finished.containsAll(sent);
	}

	/**
	 * Checks the history.
	 * @param sent the ids of every message whose send returned
	 * @param deadLetters the message id of every entry of the dead-letter stream for this
	 * group (an id twice when it was dead-lettered twice)
	 * @param maxAttempts the attempt limit
	 * @param minBackoffMillis the least delay between a failed attempt and the next
	 * @param leaseExpiries whether leases could expire in this run (duplicates then
	 * allowed)
	 * @return the violations, empty when the history keeps the contract
	 */
	List<String> violations(Collection<String> sent, Collection<String> deadLetters, int maxAttempts,
			long minBackoffMillis, boolean leaseExpiries) {
		Map<String, List<Event>> byId = new TreeMap<>();
		for (Event event : this.events) {
			byId.computeIfAbsent(event.id(), (id) -> new ArrayList<>()).add(event);
		}
		Map<String, Integer> deadCounts = new TreeMap<>();
		deadLetters.forEach((id) -> deadCounts.merge(id, 1, Integer::sum));
		Set<String> sentIds = new HashSet<>(sent);
		List<String> violations = new ArrayList<>();
		for (String id : sent) {
			List<Event> history = byId.getOrDefault(id, List.of());
			int deadCount = deadCounts.getOrDefault(id, 0);
			if (history.isEmpty()) {
				violations.add(id + ": lost (never delivered)");
				continue;
			}
			// by attempt, then in the order received
			history.sort(Comparator.comparingInt(Event::attempt).thenComparingLong(Event::receivedMillis));
			boolean acked = history.stream().anyMatch(Event::succeeded);
			int lastAttempt = history.get(history.size() - 1).attempt();
			boolean sawSuccess = false;
			for (int i = 0; i < history.size(); i++) {
				Event event = history.get(i);
				if (event.receivedMillis() < event.dueMillis()) {
					violations.add(id + ": attempt " + event.attempt() + " delivered "
							+ (event.dueMillis() - event.receivedMillis()) + "ms before its due time");
				}
				if (event.attempt() > maxAttempts) {
					violations
						.add(id + ": attempt " + event.attempt() + " reached the handler (limit " + maxAttempts + ")");
				}
				if (!leaseExpiries) {
					if (i > 0 && history.get(i - 1).attempt() == event.attempt()) {
						violations.add(id + ": attempt " + event.attempt() + " delivered twice without a lease expiry");
					}
					else if (sawSuccess) {
						violations.add(id + ": attempt " + event.attempt()
								+ " delivered after an acknowledged attempt without a lease expiry");
					}
				}
				// a retry is due the backoff after the nack, which follows the failed
				// attempt (a recovery after a lease expiry keeps the old due time)
				if (!leaseExpiries && i > 0 && history.get(i - 1).attempt() == event.attempt() - 1
						&& !history.get(i - 1).succeeded()
						&& event.dueMillis() < history.get(i - 1).receivedMillis() + minBackoffMillis) {
					violations.add(id + ": attempt " + event.attempt() + " was due "
							+ (event.dueMillis() - history.get(i - 1).receivedMillis())
							+ "ms after the failed attempt before it, less than the backoff of " + minBackoffMillis
							+ "ms");
				}
				sawSuccess |= event.succeeded();
			}
			long distinctAttempts = history.stream().mapToInt(Event::attempt).distinct().count();
			if (distinctAttempts != lastAttempt) {
				violations.add(id + ": attempts have gaps " + history.stream().map(Event::attempt).toList());
			}
			boolean exhausted = !acked && lastAttempt >= maxAttempts;
			if (!acked && lastAttempt < maxAttempts) {
				violations.add(id + ": stuck after " + lastAttempt + " failed attempt(s)");
			}
			if (exhausted && deadCount == 0) {
				violations.add(id + ": exhausted " + maxAttempts + " attempts but is not dead-lettered");
			}
			if (deadCount > 0 && !exhausted) {
				violations.add(id + ": dead-lettered without exhausting its attempts"
						+ (acked ? " (it was acknowledged)" : ""));
			}
			if (deadCount > 1) {
				violations.add(id + ": dead-lettered " + deadCount + " times");
			}
		}
		for (String id : byId.keySet()) {
			if (!sentIds.contains(id)) {
				violations.add(id + ": delivered but never sent");
			}
		}
		for (String id : deadCounts.keySet()) {
			if (!sentIds.contains(id)) {
				violations.add(id + ": dead-lettered but never sent");
			}
		}
		return violations;
	}

}
