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

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelaySchedule;
import io.github.delayqueue.core.DelaySchedules;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.test.RedisTest;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * An error that quotes what a user gave never quotes it whole: a megabyte of digits in a
 * limit, a cron expression, a cursor or an annotation attribute gives a message of a few
 * hundred characters, the exception's causes included, showing the input's first
 * characters.
 */
@RedisTest
class HugeInputTests {

	/** A megabyte of digits: matches the limits' patterns, fits no int. */
	private static final String DIGITS = "9".repeat(1_000_000);

	/** A megabyte of text: matches nothing. */
	private static final String JUNK = "x".repeat(1_000_000);

	/** How long all the messages of one refusal, its causes' included, may be in all. */
	private static final int MAX_TEXT = 1_500;

	private final RedisConnectionFactory connectionFactory;

	private AnnotationConfigApplicationContext context;

	HugeInputTests(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	static Stream<Named<ThrowingCallable>> parsers() {
		return Stream.of(Named.of("concurrency limit of digits", () -> ConcurrencyLimit.parse(DIGITS)),
				Named.of("concurrency limit of text", () -> ConcurrencyLimit.parse(JUNK)),
				Named.of("rate limit of digits", () -> RateLimit.parse(DIGITS + "/1s")),
				Named.of("rate limit of a long period", () -> RateLimit.parse("5/" + DIGITS + "s")),
				Named.of("rate limit of text", () -> RateLimit.parse(JUNK)),
				Named.of("cron expression", () -> DelaySchedule.builder("s", "q").cron(JUNK).payload("p").build()),
				Named.of("schedule action", () -> DelaySchedules.Action.parse(JUNK)));
	}

	@ParameterizedTest
	@MethodSource("parsers")
	void parsersCutWhatTheyQuote(ThrowingCallable parse) {
		assertCut(catchThrowable(parse));
	}

	@ParameterizedTest
	@MethodSource("cursors")
	void aCursorIsCutInTheRefusal(String cursor) {
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			assertCut(catchThrowable(() -> engine.admin().scheduled("q", cursor, 10)));
		}
	}

	static Stream<String> cursors() {
		return Stream.of(JUNK, DIGITS + ":id");
	}

	@ParameterizedTest
	@MethodSource("attributes")
	void anAnnotationAttributeFromAPropertyIsCutInTheStartUpError(String property) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("test", Map.of(property, DIGITS, "app.zone", JUNK)));
		context.registerBean(DelayQueueEngine.class, () -> DelayQueueEngine.builder(this.connectionFactory).build());
		context.register(Enabled.class, property.equals("app.every") ? HugeRecurring.class : HugeListener.class);
		this.context = context;
		assertCut(catchThrowable(context::refresh));
	}

	static Stream<String> attributes() {
		return Stream.of("app.concurrency", "app.timeout", "app.every");
	}

	/**
	 * Asserts that the refusal, all its causes and suppressed exceptions together, says
	 * at most {@link #MAX_TEXT} characters, and that it shows the input's beginning.
	 */
	private static void assertCut(Throwable refusal) {
		assertThat(refusal).isNotNull();
		List<String> messages = new ArrayList<>();
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		collect(refusal, messages, seen);
		int length = messages.stream().mapToInt(String::length).sum();
		assertThat(length).as("characters said by %s", messages).isLessThan(MAX_TEXT);
		assertThat(messages.get(0)).containsPattern("[9x]{38}\\.\\.\\.");
	}

	private static void collect(Throwable ex, List<String> messages, Set<Throwable> seen) {
		if (ex == null || !seen.add(ex)) {
			return;
		}
		messages.add(String.valueOf(ex.getMessage()));
		collect(ex.getCause(), messages, seen);
		for (Throwable suppressed : ex.getSuppressed()) {
			collect(suppressed, messages, seen);
		}
	}

	@EnableDelayListeners
	static class Enabled {

	}

	static class HugeListener {

		@DelayListener(queue = "huge", concurrency = "${app.concurrency:4}", visibilityTimeout = "${app.timeout:30s}")
		void onMessage(String payload) {
		}

	}

	static class HugeRecurring {

		@DelayListener(queue = "huge-recurring")
		@Recurring(name = "tick", every = "${app.every}", payload = "\"p\"")
		void onMessage(String payload) {
		}

	}

}
