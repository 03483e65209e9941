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

import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;

import io.github.delayqueue.core.internal.InputText;
import io.github.delayqueue.core.DelaySchedule;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringUtils;

/**
 * Reads the {@link Recurring} declarations of a {@link DelayListener} method into
 * schedules of the listener's queue, resolving placeholders; bad values fail here, naming
 * the attribute.
 */
final class RecurringDeclarations {

	private RecurringDeclarations() {
	}

	static List<DelaySchedule> of(Method method, String queue, UnaryOperator<String> resolve) {
		List<DelaySchedule> schedules = new ArrayList<>();
		for (Recurring recurring : AnnotatedElementUtils.findMergedRepeatableAnnotations(method, Recurring.class)) {
			schedules.add(schedule(recurring, queue, resolve));
		}
		return schedules;
	}

	private static DelaySchedule schedule(Recurring recurring, String queue, UnaryOperator<String> resolve) {
		String name = resolve.apply(recurring.name());
		try {
			DelaySchedule.Builder builder = DelaySchedule.builder(name, queue)
				.payload(resolve.apply(recurring.payload()).getBytes(StandardCharsets.UTF_8));
			String cron = resolve.apply(recurring.cron());
			String zone = resolve.apply(recurring.zone());
			String every = resolve.apply(recurring.every());
			if (StringUtils.hasText(cron)) {
				builder.cron(cron, StringUtils.hasText(zone) ? ZoneId.of(zone) : java.time.ZoneOffset.UTC);
			}
			else if (StringUtils.hasText(zone)) {
				throw new IllegalArgumentException(
						"zone " + InputText.quote(zone) + " is set without a cron expression");
			}
			if (StringUtils.hasText(every)) {
				builder.every(ListenerAttributes.duration(every));
			}
			for (String header : recurring.headers()) {
				String resolved = resolve.apply(header);
				int equals = resolved.indexOf('=');
				if (equals < 1) {
					throw new IllegalArgumentException("header " + InputText.quote(resolved) + " is not name=value");
				}
				builder.header(resolved.substring(0, equals).trim(), resolved.substring(equals + 1).trim());
			}
			String missedTicks = resolve.apply(recurring.missedTicks());
			if (StringUtils.hasText(missedTicks)) {
				try {
					builder.missedTicks(DelaySchedule.MissedTicks.valueOf(missedTicks.toUpperCase(Locale.ROOT)));
				}
				catch (IllegalArgumentException ex) {
					throw new IllegalArgumentException(
							"missedTicks " + InputText.quote(missedTicks) + " is not FIRE_ONCE or SKIP");
				}
			}
			String missedAfter = resolve.apply(recurring.missedAfter());
			if (StringUtils.hasText(missedAfter)) {
				builder.missedAfter(ListenerAttributes.duration(missedAfter));
			}
			return builder.build();
		}
		catch (RuntimeException ex) {
			throw InputText.refusal("@Recurring " + InputText.quote(name), ex);
		}
	}

}
