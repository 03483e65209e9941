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

import java.time.Instant;
import java.util.Map;

import io.github.delayqueue.core.ScheduleInfo;
import org.jspecify.annotations.Nullable;

/**
 * A recurring schedule as shown by the endpoint.
 *
 * @param name its name
 * @param ticks how it ticks ({@code cron ... (zone)} or {@code every ...})
 * @param missedTicks what happens to missed ticks
 * @param paused whether it is paused
 * @param nextTick its pending tick, or {@code null}
 * @param lastTick its last tick, or {@code null}
 * @param fired the ticks fired
 * @param skipped the ticks skipped
 * @param headers the headers of its messages
 * @param payload its payload as text, as for dead letters
 */
public record ScheduleDescriptor(String name, String ticks, String missedTicks, boolean paused,
		@Nullable Instant nextTick, @Nullable Instant lastTick, long fired, long skipped, Map<String, String> headers,
		String payload) {

	static ScheduleDescriptor of(ScheduleInfo schedule) {
		return new ScheduleDescriptor(schedule.name(), schedule.description(), schedule.missedTicks().name(),
				schedule.paused(), schedule.nextTick(), schedule.lastTick(), schedule.fired(), schedule.skipped(),
				schedule.headers(), DeadLetterDescriptor.text(schedule.payload()));
	}

}
