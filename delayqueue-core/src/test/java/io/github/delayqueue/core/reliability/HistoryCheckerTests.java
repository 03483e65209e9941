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

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The history checker itself: it must flag each kind of broken history, or the randomized
 * run proves nothing.
 */
class HistoryCheckerTests {

	private static final long BACKOFF = 100;

	private static HistoryChecker.Event ok(String id, int attempt) {
		return new HistoryChecker.Event(id, attempt, 1, 1000L * attempt, 1000L * attempt + 1, true);
	}

	private static HistoryChecker.Event failed(String id, int attempt) {
		return new HistoryChecker.Event(id, attempt, 1, 1000L * attempt, 1000L * attempt + 1, false);
	}

	private static List<String> check(List<String> sent, List<String> dead, HistoryChecker.Event... events) {
		return check(false, sent, dead, events);
	}

	private static List<String> check(boolean leaseExpiries, List<String> sent, List<String> dead,
			HistoryChecker.Event... events) {
		HistoryChecker checker = new HistoryChecker();
		for (HistoryChecker.Event event : events) {
			checker.record(event);
		}
		return checker.violations(sent, dead, 3, BACKOFF, leaseExpiries);
	}

	@Test
	void acceptsAGoodHistory() {
		assertThat(check(List.of("a", "b", "c"), List.of("b"), ok("a", 1), failed("b", 1), failed("b", 2),
				failed("b", 3), failed("c", 1), ok("c", 2)))
			.isEmpty();
	}

	@Test
	void flagsALostMessage() {
		assertThat(check(List.of("a", "b"), List.of(), ok("a", 1))).containsExactly("b: lost (never delivered)");
	}

	@Test
	void flagsAnEarlyDelivery() {
		assertThat(check(List.of("a"), List.of(), new HistoryChecker.Event("a", 1, 1, 1000, 990, true)))
			.containsExactly("a: attempt 1 delivered 10ms before its due time");
	}

	@Test
	void flagsARetryDueBeforeItsBackoff() {
		assertThat(check(List.of("a"), List.of(), new HistoryChecker.Event("a", 1, 1, 1000, 1000, false),
				new HistoryChecker.Event("a", 2, 2, 1050, 1060, true)))
			.containsExactly("a: attempt 2 was due 50ms after the failed attempt before it, less than the backoff of "
					+ BACKOFF + "ms");
	}

	@Test
	void flagsADuplicateWithoutLeaseExpiry() {
		assertThat(check(List.of("a"), List.of(), ok("a", 1), ok("a", 1)))
			.containsExactly("a: attempt 1 delivered twice without a lease expiry");
	}

	@Test
	void flagsADeliveryAfterAnAcknowledgedAttempt() {
		assertThat(check(List.of("a"), List.of(), ok("a", 1), ok("a", 2)))
			.containsExactly("a: attempt 2 delivered after an acknowledged attempt without a lease expiry");
	}

	@Test
	void allowsDuplicatesWhenLeasesCanExpire() {
		assertThat(check(true, List.of("a"), List.of(), ok("a", 1), ok("a", 1), ok("a", 2))).isEmpty();
	}

	@Test
	void flagsAnAttemptBeyondTheLimit() {
		assertThat(check(true, List.of("a"), List.of(), failed("a", 1), failed("a", 2), failed("a", 3), ok("a", 4)))
			.containsExactly("a: attempt 4 reached the handler (limit 3)");
	}

	@Test
	void flagsStuckAndWronglyDeadMessages() {
		assertThat(check(List.of("a", "b", "c", "d"), List.of("c", "d", "e"), failed("a", 1), failed("b", 1),
				failed("b", 2), failed("b", 3), ok("c", 1), failed("d", 1)))
			.containsExactlyInAnyOrder("a: stuck after 1 failed attempt(s)",
					"b: exhausted 3 attempts but is not dead-lettered",
					"c: dead-lettered without exhausting its attempts (it was acknowledged)",
					"d: stuck after 1 failed attempt(s)", "d: dead-lettered without exhausting its attempts",
					"e: dead-lettered but never sent");
	}

	@Test
	void flagsAMessageDeadLetteredTwice() {
		assertThat(check(List.of("a"), List.of("a", "a"), failed("a", 1), failed("a", 2), failed("a", 3)))
			.containsExactly("a: dead-lettered 2 times");
	}

	@Test
	void flagsGapsAndUnsentDeliveries() {
		assertThat(check(List.of("a"), List.of(), failed("a", 1), ok("a", 3), ok("x", 1)))
			.containsExactlyInAnyOrder("a: attempts have gaps [1, 3]", "x: delivered but never sent");
	}

	@Test
	void knowsWhenEveryMessageFinished() {
		HistoryChecker checker = new HistoryChecker();
		checker.record(ok("a", 1));
		checker.record(failed("b", 1));
		checker.record(failed("b", 2));
		assertThat(checker.allFinished(List.of("a", "b"), 3)).isFalse();
		checker.record(failed("b", 3));
		assertThat(checker.allFinished(List.of("a", "b"), 3)).isTrue();
	}

}
