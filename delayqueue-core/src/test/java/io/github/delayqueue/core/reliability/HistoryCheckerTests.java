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

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The history checker itself: it must flag each kind of broken history, or the randomized
 * run proves nothing.
 */
class HistoryCheckerTests {

	private static HistoryChecker.Event ok(String id, int attempt) {
		return new HistoryChecker.Event(id, attempt, 1, 1000, 1001, true);
	}

	private static HistoryChecker.Event failed(String id, int attempt) {
		return new HistoryChecker.Event(id, attempt, 1, 1000, 1001, false);
	}

	private static List<String> check(List<String> sent, Set<String> dead, HistoryChecker.Event... events) {
		HistoryChecker checker = new HistoryChecker();
		for (HistoryChecker.Event event : events) {
			checker.record(event);
		}
		return checker.violations(sent, dead, 3, false);
	}

	@Test
	void acceptsAGoodHistory() {
		assertThat(check(List.of("a", "b"), Set.of("b"), ok("a", 1), failed("b", 1), failed("b", 2), failed("b", 3)))
			.isEmpty();
	}

	@Test
	void flagsALostMessage() {
		assertThat(check(List.of("a", "b"), Set.of(), ok("a", 1))).containsExactly("b: lost (never delivered)");
	}

	@Test
	void flagsAnEarlyDelivery() {
		assertThat(check(List.of("a"), Set.of(), new HistoryChecker.Event("a", 1, 1, 1000, 990, true)))
			.containsExactly("a: attempt 1 delivered 10ms before its due time");
	}

	@Test
	void flagsADuplicateWithoutLeaseExpiry() {
		assertThat(check(List.of("a"), Set.of(), ok("a", 1), ok("a", 1)))
			.containsExactly("a: attempt 1 delivered twice without a lease expiry");
	}

	@Test
	void flagsStuckAndWronglyDeadMessages() {
		assertThat(check(List.of("a", "b", "c"), Set.of("c"), failed("a", 1), failed("b", 1), failed("b", 2),
				failed("b", 3), ok("c", 1)))
			.containsExactlyInAnyOrder("a: stuck after 1 failed attempt(s)",
					"b: exhausted 3 attempts but is not dead-lettered", "c: acknowledged and dead-lettered",
					"c: dead-lettered without exhausting its attempts");
	}

	@Test
	void flagsGapsAndUnsentDeliveries() {
		assertThat(check(List.of("a"), Set.of(), failed("a", 1), ok("a", 3), ok("x", 1)))
			.containsExactlyInAnyOrder("a: attempts have gaps [1, 3]", "x: delivered but never sent");
	}

}
