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
package io.github.delayqueue.core;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Map;

import io.github.delayqueue.core.internal.scheduling.ScheduleStore;

/**
 * A recurring schedule as Redis holds it: its definition and where it stands.
 *
 * @param queue the queue its messages go to
 * @param name its name
 * @param cron its cron expression, or {@code null} for an interval (both {@code null}: a
 * definition this version cannot read)
 * @param zone the cron expression's time zone, or {@code null}
 * @param interval its interval, or {@code null} for a cron expression
 * @param missedTicks what happens to missed ticks
 * @param missedAfter how late a tick may fire before it counts as missed
 * @param paused whether it is paused (no tick pending)
 * @param nextTick the time of its pending tick, or {@code null} (paused, or being
 * planned)
 * @param lastTick the time of the last tick that came due (fired or skipped), or
 * {@code null}
 * @param fired how many ticks fired since it was created
 * @param skipped how many ticks were skipped (cancelled, or missed under
 * {@link DelaySchedule.MissedTicks#SKIP})
 * @param updated when it was created or last changed, paused or resumed
 * @param headers the headers of its messages
 * @param payload the encoded payload of its messages
 */
public record ScheduleInfo(String queue, String name, String cron, ZoneId zone, Duration interval,
		DelaySchedule.MissedTicks missedTicks, Duration missedAfter, boolean paused, Instant nextTick, Instant lastTick,
		long fired, long skipped, Instant updated, Map<String, String> headers, byte[] payload) {

	/**
	 * The id of the message a tick of this schedule sends.
	 * @param tick the tick's time
	 * @return the message id, {@code schedule/<name>/<tick epoch ms>}
	 */
	public String tickId(Instant tick) {
		return ScheduleStore.tickId(this.name, tick.toEpochMilli());
	}

	/**
	 * @return how it ticks, e.g. {@code "cron 0 0 2 * * * (Europe/Paris)"} or
	 * {@code "every PT5M"}; {@code "unreadable definition"} for one written by a version
	 * that ticks in ways this one cannot read
	 */
	public String description() {
		if (this.cron != null) {
			return "cron " + this.cron + " (" + this.zone + ")";
		}
		return (this.interval != null) ? "every " + this.interval : "unreadable definition";
	}

}
