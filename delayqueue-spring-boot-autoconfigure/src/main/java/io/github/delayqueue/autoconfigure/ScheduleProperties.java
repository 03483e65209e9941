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
package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.core.DelaySchedule;

/**
 * A recurring message declared in configuration ({@code delayqueue.schedules.<name>.*}),
 * registered in Redis at start-up; see {@code docs/recurring.md}.
 */
public class ScheduleProperties {

	/**
	 * The queue the schedule's messages go to.
	 */
	private String queue;

	/**
	 * A cron expression of six fields (second, minute, hour, day of month, month, day of
	 * week). Give this or every.
	 */
	private String cron;

	/**
	 * The time zone the cron expression is read in.
	 */
	private ZoneId zone;

	/**
	 * A fixed interval, counted from the epoch. Give this or cron.
	 */
	private Duration every;

	/**
	 * The payload, as text: what the listener's payload type is decoded from (JSON for an
	 * object with the default codec).
	 */
	private String payload = "";

	/**
	 * Headers of every message.
	 */
	private Map<String, String> headers = new LinkedHashMap<>();

	/**
	 * What happens to ticks missed while nothing ran: fire-once or skip.
	 */
	private DelaySchedule.MissedTicks missedTicks = DelaySchedule.MissedTicks.FIRE_ONCE;

	/**
	 * How late a tick may fire before it counts as missed.
	 */
	private Duration missedAfter = DelaySchedule.DEFAULT_MISSED_AFTER;

	/**
	 * Builds the schedule.
	 * @param name its name (the key under delayqueue.schedules)
	 * @return the schedule
	 * @throws IllegalStateException naming the property when a value is invalid
	 */
	DelaySchedule toSchedule(String name) {
		try {
			if (this.queue == null) {
				throw new IllegalArgumentException("queue is not set");
			}
			DelaySchedule.Builder builder = DelaySchedule.builder(name, this.queue)
				.payload(this.payload.getBytes(java.nio.charset.StandardCharsets.UTF_8))
				.headers(this.headers)
				.missedTicks(this.missedTicks)
				.missedAfter(this.missedAfter);
			if (this.cron != null) {
				builder.cron(this.cron, (this.zone != null) ? this.zone : java.time.ZoneOffset.UTC);
			}
			else if (this.zone != null) {
				throw new IllegalArgumentException("zone is set without a cron expression");
			}
			if (this.every != null) {
				builder.every(this.every);
			}
			return builder.build();
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException("delayqueue.schedules." + name + " is invalid: " + ex.getMessage(), ex);
		}
	}

	public String getQueue() {
		return this.queue;
	}

	public void setQueue(String queue) {
		this.queue = queue;
	}

	public String getCron() {
		return this.cron;
	}

	public void setCron(String cron) {
		this.cron = cron;
	}

	public ZoneId getZone() {
		return this.zone;
	}

	public void setZone(ZoneId zone) {
		this.zone = zone;
	}

	public Duration getEvery() {
		return this.every;
	}

	public void setEvery(Duration every) {
		this.every = every;
	}

	public String getPayload() {
		return this.payload;
	}

	public void setPayload(String payload) {
		this.payload = payload;
	}

	public Map<String, String> getHeaders() {
		return this.headers;
	}

	public void setHeaders(Map<String, String> headers) {
		this.headers = headers;
	}

	public DelaySchedule.MissedTicks getMissedTicks() {
		return this.missedTicks;
	}

	public void setMissedTicks(DelaySchedule.MissedTicks missedTicks) {
		this.missedTicks = missedTicks;
	}

	public Duration getMissedAfter() {
		return this.missedAfter;
	}

	public void setMissedAfter(Duration missedAfter) {
		this.missedAfter = missedAfter;
	}

}
