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
package io.github.delayqueue.core.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Repeatable;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a recurring message to the queue of the {@link DelayListener} method it sits
 * on: on every tick of {@link #cron()} (or {@link #every()}) the queue receives one
 * message with {@link #payload()}, however many instances of the application run. The
 * schedule is registered in Redis when the application starts (every instance declares
 * the same one; an unchanged declaration changes nothing), see
 * {@link io.github.delayqueue.core.DelaySchedules}. Attributes accept {@code ${...}}
 * placeholders.
 *
 * <pre class="code">
 * &#64;DelayListener(queue = "reports")
 * &#64;Recurring(name = "nightly", cron = "0 0 2 * * *", zone = "Europe/Paris", payload = "{\"kind\":\"daily\"}")
 * void report(ReportRequest request) { ... }
 * </pre>
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Repeatable(Recurrings.class)
public @interface Recurring {

	/**
	 * The schedule's name, unique in its queue.
	 * @return the name
	 */
	String name();

	/**
	 * A cron expression of six fields (second, minute, hour, day of month, month, day of
	 * week), as Spring's {@code CronExpression} reads it. Give this or {@link #every()}.
	 * @return the expression
	 */
	String cron() default "";

	/**
	 * The time zone the cron expression is read in (default UTC).
	 * @return a zone id, e.g. {@code Europe/Paris}
	 */
	String zone() default "";

	/**
	 * A fixed interval, counted from the epoch ({@code 30s}, {@code 5m}, {@code PT1H},
	 * {@code 500ms}). Give this or {@link #cron()}.
	 * @return the interval
	 */
	String every() default "";

	/**
	 * The payload, as text: the bytes the listener's payload type is decoded from (JSON
	 * for an object with the default codec; the text itself for a {@code String}).
	 * @return the payload
	 */
	String payload() default "";

	/**
	 * Headers of every message, each {@code name=value}.
	 * @return the headers
	 */
	String[] headers() default {};

	/**
	 * What happens to ticks missed while nothing ran: {@code FIRE_ONCE} (default) or
	 * {@code SKIP}.
	 * @return the policy
	 */
	String missedTicks() default "";

	/**
	 * How late a tick may fire before it counts as missed (default 1 minute).
	 * @return a duration
	 */
	String missedAfter() default "";

}
