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

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import io.github.delayqueue.autoconfigure.actuate.DelayQueueEndpoint;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * A huge property, property name or request value is refused with a short message: the
 * start-up error and the endpoint's 400 quote the value's first characters, not all of
 * it.
 */
@RedisTest
class HugeInputTests {

	/** 100,000 digits: a limit's pattern matches them, no int holds them. */
	private static final String DIGITS = "9".repeat(100_000);

	/** How long all the messages of one refusal, its causes' included, may be in all. */
	private static final int MAX_TEXT = 3_000;

	private final ApplicationContextRunner runner;

	HugeInputTests(RedisServer redis) {
		this.runner = AllAutoConfigurations.runner(redis);
	}

	@ParameterizedTest
	@ValueSource(strings = { "delayqueue.queues.orders.concurrency-limit", "delayqueue.queues.orders.rate-limit",
			"delayqueue.queues.<huge>.rate-limit" })
	void aHugePropertyNameOrValueIsCutInTheStartUpError(String property) {
		String value = property.endsWith("rate-limit") ? DIGITS + "/1s" : DIGITS;
		if (property.contains("<huge>")) {
			property = property.replace("<huge>", "q" + DIGITS);
			value = "5/1s";
		}
		this.runner.withPropertyValues(property + "=" + value).run((context) -> {
			assertThat(context).hasFailed();
			assertCut(context.getStartupFailure());
		});
	}

	@ParameterizedTest
	@ValueSource(strings = { "limit-concurrency", "limit-rate", "huge-action" })
	void theEndpointCutsAHugeValueInItsRefusal(String action) {
		this.runner.run((context) -> {
			context.getBean(DelayQueueTemplate.class).send("orders", "o-1", java.time.Duration.ofHours(1));
			DelayQueueEndpoint endpoint = context.getBean(DelayQueueEndpoint.class);
			String name = action.equals("huge-action") ? action + DIGITS : action;
			Throwable refusal = catchThrowable(
					() -> endpoint.act("orders", name, null, null, null, null, null, DIGITS + "/1s", null, DIGITS));
			assertThat(refusal).isInstanceOf(IllegalArgumentException.class);
			assertCut(refusal);
		});
	}

	private static void assertCut(Throwable refusal) {
		List<String> messages = new ArrayList<>();
		Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
		for (Throwable ex = refusal; ex != null && seen.add(ex); ex = ex.getCause()) {
			messages.add(String.valueOf(ex.getMessage()));
		}
		assertThat(messages.stream().mapToInt(String::length).sum()).as("characters said by %s", messages)
			.isLessThan(MAX_TEXT);
		assertThat(String.join("\n", messages)).containsPattern("[9a-z-]{38}\\.\\.\\.");
	}

}
