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
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.github.delayqueue.core.internal.InputText;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.scheduling.Ticks;

/**
 * A recurring message: a payload and headers sent to a queue on every tick of a cron
 * expression or a fixed interval. Registered with {@link DelaySchedules}, stored in
 * Redis: it outlives restarts, any instance consuming the queue fires it, and each tick
 * is one message whatever the number of instances (see {@code docs/recurring.md}).
 *
 * <pre class="code">
 * DelaySchedule.builder("nightly-report", "reports")
 *     .cron("0 0 2 * * *", ZoneId.of("Europe/Paris"))
 *     .payload(new ReportRequest("daily"))
 *     .build();
 * </pre>
 */
public final class DelaySchedule {

	/** How long after its time a tick still counts as on time, unless set otherwise. */
	public static final Duration DEFAULT_MISSED_AFTER = Duration.ofMinutes(1);

	private final String name;

	private final String queue;

	private final Ticks ticks;

	private final Object payload;

	private final Map<String, String> headers;

	private final MissedTicks missedTicks;

	private final Duration missedAfter;

	private DelaySchedule(Builder builder) {
		this.name = builder.name;
		this.queue = builder.queue;
		if (builder.cron != null && builder.interval != null) {
			throw new IllegalArgumentException(
					"Schedule '" + this.name + "' has both a cron expression and an interval: give one");
		}
		if (builder.cron == null && builder.interval == null) {
			throw new IllegalArgumentException(
					"Schedule '" + this.name + "' needs a cron expression (cron(...)) or an interval (every(...))");
		}
		if (builder.cron != null) {
			try {
				this.ticks = Ticks.cron(builder.cron, builder.zone).requireTickAfter(System.currentTimeMillis());
			}
			catch (IllegalArgumentException | java.time.DateTimeException ex) {
				throw InputText.refusal("Invalid cron expression " + InputText.quote(builder.cron) + " of schedule "
						+ InputText.quote(this.name), ex);
			}
		}
		else {
			this.ticks = Ticks.every(builder.interval);
		}
		this.payload = Objects.requireNonNull(builder.payload,
				"Payload of schedule '" + this.name + "' must not be null");
		this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(builder.headers));
		this.missedTicks = builder.missedTicks;
		this.missedAfter = builder.missedAfter;
	}

	/**
	 * Starts a schedule.
	 * @param name its name, unique in its queue: 1–100 letters, digits, '.', '_', ':' or
	 * '-'
	 * @param queue the queue its messages go to
	 * @return a builder
	 */
	public static Builder builder(String name, String queue) {
		return new Builder(QueueNames.schedule(name), QueueNames.queue(queue));
	}

	/**
	 * @return the schedule's name
	 */
	public String name() {
		return this.name;
	}

	/**
	 * @return the queue its messages go to
	 */
	public String queue() {
		return this.queue;
	}

	/**
	 * @return the cron expression, or {@code null} for a fixed interval
	 */
	public String cron() {
		return this.ticks.cronExpression();
	}

	/**
	 * @return the cron expression's time zone, or {@code null} for a fixed interval
	 */
	public ZoneId zone() {
		return this.ticks.zone();
	}

	/**
	 * @return the interval, or {@code null} for a cron expression
	 */
	public Duration interval() {
		return this.ticks.interval();
	}

	/**
	 * @return the payload of every message
	 */
	public Object payload() {
		return this.payload;
	}

	/**
	 * @return the headers of every message
	 */
	public Map<String, String> headers() {
		return this.headers;
	}

	/**
	 * @return what happens to ticks missed while nothing ran
	 */
	public MissedTicks missedTicks() {
		return this.missedTicks;
	}

	/**
	 * @return how late a tick may fire before it counts as missed
	 */
	public Duration missedAfter() {
		return this.missedAfter;
	}

	Ticks ticks() {
		return this.ticks;
	}

	@Override
	public String toString() {
		return "DelaySchedule[" + this.queue + "/" + this.name + ", " + this.ticks.definition() + "]";
	}

	/**
	 * What happens to the ticks of a schedule that could not fire on time because no
	 * instance consuming its queue ran (or all were paused, or Redis was down) for longer
	 * than the schedule's {@link #missedAfter() missedAfter}.
	 */
	public enum MissedTicks {

		/**
		 * The missed ticks fire once, together, as one message as soon as an instance
		 * runs again; the schedule goes on with its next tick.
		 */
		FIRE_ONCE,

		/** The missed ticks do not fire; the schedule goes on with its next tick. */
		SKIP

	}

	/**
	 * Builds a {@link DelaySchedule}.
	 */
	public static final class Builder {

		private final String name;

		private final String queue;

		private String cron;

		private ZoneId zone = ZoneOffset.UTC;

		private Duration interval;

		private Object payload;

		private final Map<String, String> headers = new LinkedHashMap<>();

		private MissedTicks missedTicks = MissedTicks.FIRE_ONCE;

		private Duration missedAfter = DEFAULT_MISSED_AFTER;

		private Builder(String name, String queue) {
			this.name = name;
			this.queue = queue;
		}

		/**
		 * Ticks on a cron expression read in UTC.
		 * @param expression six fields (second, minute, hour, day of month, month, day of
		 * week), as Spring's {@code CronExpression} reads them, e.g.
		 * {@code "0 0 2 * * *"}
		 * @return this builder
		 */
		public Builder cron(String expression) {
			return cron(expression, ZoneOffset.UTC);
		}

		/**
		 * Ticks on a cron expression read in a time zone (its daylight-saving changes
		 * included).
		 * @param expression six fields, as Spring's {@code CronExpression} reads them
		 * @param zone the time zone
		 * @return this builder
		 */
		public Builder cron(String expression, ZoneId zone) {
			if (expression == null || expression.isBlank()) {
				throw new IllegalArgumentException("Cron expression of schedule '" + this.name + "' must not be empty");
			}
			this.cron = expression.trim();
			this.zone = Objects.requireNonNull(zone, "Time zone of schedule '" + this.name + "' must not be null");
			return this;
		}

		/**
		 * Ticks every interval, counted from the epoch: every 5 minutes ticks at :00,
		 * :05, :10, ... on every instance alike.
		 * @param interval a whole number of milliseconds, at least one
		 * @return this builder
		 */
		public Builder every(Duration interval) {
			if (interval == null || interval.isNegative() || interval.toMillis() < 1
					|| !interval.equals(Duration.ofMillis(interval.toMillis()))) {
				throw new IllegalArgumentException("Interval of schedule '" + this.name
						+ "' must be a positive whole number of milliseconds, but was " + interval);
			}
			this.interval = interval;
			return this;
		}

		/**
		 * Sets the payload of every message, encoded with the engine's codec.
		 * @param payload the payload
		 * @return this builder
		 */
		public Builder payload(Object payload) {
			this.payload = payload;
			return this;
		}

		/**
		 * Adds a header to every message.
		 * @param name the header's name
		 * @param value its value
		 * @return this builder
		 */
		public Builder header(String name, String value) {
			this.headers.put(Objects.requireNonNull(name, "Header name must not be null"),
					Objects.requireNonNull(value, "Value of header '" + name + "' must not be null"));
			return this;
		}

		/**
		 * Adds headers to every message.
		 * @param headers the headers
		 * @return this builder
		 */
		public Builder headers(Map<String, String> headers) {
			headers.forEach(this::header);
			return this;
		}

		/**
		 * Sets what happens to missed ticks ({@link MissedTicks#FIRE_ONCE} unless set).
		 * @param missedTicks the policy
		 * @return this builder
		 */
		public Builder missedTicks(MissedTicks missedTicks) {
			this.missedTicks = Objects.requireNonNull(missedTicks, "Missed ticks policy must not be null");
			return this;
		}

		/**
		 * Sets how late a tick may fire before it counts as missed (1 minute unless set).
		 * A tick later than that, because nothing ran, is handled by the
		 * {@link #missedTicks(MissedTicks) policy}; a tick less late fires late.
		 * @param missedAfter at least one millisecond
		 * @return this builder
		 */
		public Builder missedAfter(Duration missedAfter) {
			if (missedAfter == null || missedAfter.toMillis() < 1) {
				throw new IllegalArgumentException(
						"Missed after of schedule '" + this.name + "' must be at least 1 ms, but was " + missedAfter);
			}
			this.missedAfter = missedAfter;
			return this;
		}

		/**
		 * Builds the schedule.
		 * @return the schedule
		 * @throws IllegalArgumentException when it has no cron expression nor interval,
		 * or both, or an invalid cron expression
		 */
		public DelaySchedule build() {
			return new DelaySchedule(this);
		}

	}

}
