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

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import io.github.delayqueue.core.internal.InputText;

import org.springframework.scheduling.support.CronExpression;

/**
 * When a recurring schedule ticks: a cron expression in a time zone (Spring's
 * {@link CronExpression}), or a fixed interval counted from the epoch (every 5 minutes
 * ticks at :00, :05, ..., on every instance alike). Its {@link #definition() definition}
 * is what Redis stores and what every instance reads back.
 */
public final class Ticks {

	private static final String CRON = "cron ";

	private static final String EVERY = "every ";

	private final String definition;

	private final CronExpression cron;

	private final ZoneId zone;

	private final long intervalMillis;

	private Ticks(String definition, CronExpression cron, ZoneId zone, long intervalMillis) {
		this.definition = definition;
		this.cron = cron;
		this.zone = zone;
		this.intervalMillis = intervalMillis;
	}

	/**
	 * Ticks of a cron expression, which may match no time any more (a stored schedule
	 * read back: see {@link #requireTickAfter(long)} for a new one).
	 * @param expression six fields, as {@link CronExpression#parse(String)} takes them
	 * @param zone the time zone the fields are read in
	 * @return the ticks
	 * @throws IllegalArgumentException when the expression is invalid
	 */
	public static Ticks cron(String expression, ZoneId zone) {
		CronExpression cron = CronExpression.parse(expression);
		return new Ticks(CRON + zone.getId() + " " + expression, cron, zone, 0);
	}

	/**
	 * Checks that the ticks go on after a time: a schedule that could never fire again is
	 * refused when it is defined, not accepted to sit in Redis.
	 * @param afterMillis epoch ms, now
	 * @return these ticks
	 * @throws IllegalArgumentException when no tick comes after that time
	 */
	public Ticks requireTickAfter(long afterMillis) {
		if (after(afterMillis, 1).isEmpty()) {
			String when = (this.zone == null) ? ""
					: " in time zone " + (java.time.ZoneOffset.UTC.equals(this.zone) ? "UTC" : this.zone.getId());
			throw new IllegalArgumentException("it matches no time from now on" + when
					+ " (a date and time that does not exist there, such as a local time skipped by a "
					+ "daylight-saving change, never fires)");
		}
		return this;
	}

	/**
	 * Ticks of a fixed interval.
	 * @param interval at least one millisecond, in whole milliseconds
	 * @return the ticks
	 */
	public static Ticks every(Duration interval) {
		return new Ticks(EVERY + interval.toMillis(), null, null, interval.toMillis());
	}

	/**
	 * Reads a definition back.
	 * @param definition what {@link #definition()} returned
	 * @return the ticks
	 */
	public static Ticks parse(String definition) {
		if (definition.startsWith(EVERY)) {
			return every(Duration.ofMillis(Long.parseLong(definition.substring(EVERY.length()))));
		}
		if (definition.startsWith(CRON)) {
			String rest = definition.substring(CRON.length());
			int space = rest.indexOf(' ');
			return cron(rest.substring(space + 1), ZoneId.of(rest.substring(0, space)));
		}
		throw new IllegalArgumentException("Unknown schedule definition " + InputText.quote(definition));
	}

	/**
	 * @return the definition, as Redis stores it
	 */
	public String definition() {
		return this.definition;
	}

	/**
	 * @return the cron expression, or {@code null} for an interval
	 */
	public String cronExpression() {
		return (this.cron != null) ? this.cron.toString() : null;
	}

	/**
	 * @return the time zone of the cron expression, or {@code null} for an interval
	 */
	public ZoneId zone() {
		return this.zone;
	}

	/**
	 * @return the interval, or {@code null} for a cron expression
	 */
	public Duration interval() {
		return (this.cron != null) ? null : Duration.ofMillis(this.intervalMillis);
	}

	/**
	 * Returns the first ticks strictly after a time.
	 * @param afterMillis epoch ms
	 * @param count how many, at most
	 * @return their epoch ms, ascending (fewer when the expression runs out)
	 */
	public List<Long> after(long afterMillis, int count) {
		List<Long> ticks = new ArrayList<>(count);
		if (this.cron == null) {
			long next = Math.floorDiv(afterMillis, this.intervalMillis) * this.intervalMillis;
			for (int i = 0; i < count; i++) {
				next += this.intervalMillis;
				ticks.add(next);
			}
			return ticks;
		}
		ZonedDateTime at = Instant.ofEpochMilli(afterMillis).atZone(this.zone);
		while (ticks.size() < count) {
			at = this.cron.next(at);
			if (at == null) {
				break;
			}
			ticks.add(at.toInstant().toEpochMilli());
		}
		return ticks;
	}

	/**
	 * Joins tick times as the schedules hash stores them.
	 * @param ticks epoch ms
	 * @return comma-separated
	 */
	public static String join(List<Long> ticks) {
		return ticks.stream().map(String::valueOf).collect(Collectors.joining(","));
	}

}
