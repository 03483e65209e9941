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

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.core.internal.InputText;

import org.springframework.beans.factory.config.BeanExpressionContext;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.util.StringUtils;

/**
 * Reads the attributes of the listener annotations: {@code ${...}} placeholders and SpEL
 * resolved, then parsed, a value that cannot be read refused naming the attribute and
 * quoting the value (cut, see {@link InputText}).
 */
final class ListenerAttributes {

	private static final Pattern SIMPLE_DURATION = Pattern.compile("^([+-]?\\d+)(ms|s|m|h|d)?$");

	private final ConfigurableBeanFactory beanFactory;

	private final BeanExpressionContext expressionContext;

	ListenerAttributes(ConfigurableBeanFactory beanFactory) {
		this.beanFactory = beanFactory;
		this.expressionContext = new BeanExpressionContext(beanFactory, null);
	}

	/**
	 * Resolves an attribute's placeholders and expression.
	 * @param value the attribute as written
	 * @return what it resolves to, trimmed; empty for nothing
	 */
	String resolve(String value) {
		String resolved = this.beanFactory.resolveEmbeddedValue(value);
		if (resolved != null && this.beanFactory.getBeanExpressionResolver() != null) {
			Object evaluated = this.beanFactory.getBeanExpressionResolver().evaluate(resolved, this.expressionContext);
			resolved = (evaluated != null) ? evaluated.toString() : null;
		}
		return (resolved != null) ? resolved.trim() : "";
	}

	/**
	 * Resolves and parses an attribute.
	 * @param <T> what it is read as
	 * @param raw the attribute as written
	 * @param name the attribute's name, for the refusal
	 * @param parser reads the resolved text
	 * @return the value, or {@code null} when the attribute is empty
	 * @throws IllegalArgumentException when the parser refuses it
	 */
	<T> T read(String raw, String name, Function<String, T> parser) {
		String value = resolve(raw);
		if (!StringUtils.hasText(value)) {
			return null;
		}
		try {
			return parser.apply(value);
		}
		catch (RuntimeException ex) {
			throw InputText.refusal(
					name + " " + InputText.quote(value)
							+ (value.equals(raw) ? "" : " (from " + InputText.quote(raw) + ")") + " cannot be read",
					ex);
		}
	}

	static Boolean bool(String value) {
		if (!value.equalsIgnoreCase("true") && !value.equalsIgnoreCase("false")) {
			throw new IllegalArgumentException("not true or false");
		}
		return Boolean.valueOf(value);
	}

	/**
	 * Reads a duration: {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 7d},
	 * ISO-8601, or a number of milliseconds.
	 * @param value the text
	 * @return the duration
	 */
	static Duration duration(String value) {
		Matcher matcher = SIMPLE_DURATION.matcher(value);
		if (matcher.matches()) {
			long amount = Long.parseLong(matcher.group(1));
			String unit = (matcher.group(2) != null) ? matcher.group(2) : "ms";
			return switch (unit) {
				case "s" -> Duration.ofSeconds(amount);
				case "m" -> Duration.ofMinutes(amount);
				case "h" -> Duration.ofHours(amount);
				case "d" -> Duration.ofDays(amount);
				default -> Duration.ofMillis(amount);
			};
		}
		try {
			return Duration.parse(value);
		}
		catch (DateTimeParseException ex) {
			throw new IllegalArgumentException("not a duration (use e.g. 500ms, 10s, 5m, 1h, 7d or PT10S)");
		}
	}

}
