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

package io.github.delayqueue.core.internal.scheduling;

import java.time.Instant;
import java.time.ZoneId;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * What docs/recurring.md says of daylight saving, checked on the ticks a schedule plans.
 */
class TicksTests {

	private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");

	@Test
	void aDailyTimeSkippedInSpringDoesNotFireThatDay() {
		List<Instant> ticks = ticks(Ticks.cron("0 30 2 * * *", BERLIN), "2026-03-28T00:00:00Z", 2);
		assertThat(ticks).containsExactly(Instant.parse("2026-03-28T01:30:00Z"), Instant.parse("2026-03-30T00:30:00Z"));
	}

	@Test
	void aDailyTimeRepeatedInAutumnFiresTwiceThatDay() {
		List<Instant> ticks = ticks(Ticks.cron("0 30 2 * * *", BERLIN), "2026-10-25T00:00:00Z", 3);
		assertThat(ticks).containsExactly(Instant.parse("2026-10-25T00:30:00Z"), Instant.parse("2026-10-25T01:30:00Z"),
				Instant.parse("2026-10-26T01:30:00Z"));
	}

	@Test
	void anExpressionThatMatchedOnceButNeverAgainIsReadBackButRefusedFromNowOn() {
		Ticks skipped = Ticks.cron("0 30 2 25-31 3 SUN", BERLIN);
		assertThat(ticks(skipped, "1970-01-01T00:00:00Z", 1)).as("before summer time").isNotEmpty();
		assertThat(ticks(skipped, "2026-01-01T00:00:00Z", 1)).isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> skipped.requireTickAfter(System.currentTimeMillis()))
			.withMessageStartingWith("it matches no time from now on in time zone Europe/Berlin");
		assertThat(Ticks.parse(skipped.definition()).definition()).isEqualTo(skipped.definition());
	}

	private static List<Instant> ticks(Ticks ticks, String after, int count) {
		return ticks.after(Instant.parse(after).toEpochMilli(), count).stream().map(Instant::ofEpochMilli).toList();
	}

}
