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
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Failures a user can diagnose from the log alone: one WARN line per failed attempt that
 * is retried, naming queue, group, message id, attempt, exception class and message; one
 * ERROR with the stack trace when a message is dead-lettered, naming the dead-letter
 * entry id that replay takes.
 */
@RedisTest
class FailureLoggingTests {

	private final DelayQueueEngine engine;

	private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

	private final Logger processorLogger = (Logger) LoggerFactory
		.getLogger("io.github.delayqueue.core.internal.delivery.Processor");

	private DelayQueueListenerContainer container;

	FailureLoggingTests(RedisConnectionFactory connectionFactory) {
		this.engine = DelayQueueEngine.builder(connectionFactory).build();
		this.appender.start();
		this.processorLogger.addAppender(this.appender);
	}

	@AfterEach
	void stop() {
		this.processorLogger.detachAppender(this.appender);
		if (this.container != null) {
			this.container.stop();
		}
		this.engine.close();
	}

	@Test
	void eachRetryLogsOneWarnLineAndADeadLetterLogsItsTraceAndTheEntryIdReplayTakes() {
		this.container = this.engine.listenerContainer("logged", "billing", String.class, (payload, context) -> {
			throw new IllegalStateException("card declined for " + payload);
		}).pollTimeout(Duration.ofMillis(300)).retryPolicy(RetryPolicy.fixed(2, Duration.ofMillis(50))).build();
		this.container.start();
		this.engine.template().send(DelayMessage.builder("o-7").queue("logged").id("order-7").build());
		await().atMost(Duration.ofSeconds(10)).until(() -> this.engine.admin().stats("logged").dead() == 1);
		DeadLetter dead = this.engine.admin().deadLetters("logged", null, 10).get(0);

		List<ILoggingEvent> warnings = this.appender.list.stream().filter((e) -> e.getLevel() == Level.WARN).toList();
		assertThat(warnings).singleElement().satisfies((warning) -> {
			assertThat(warning.getFormattedMessage()).contains("'logged'", "'billing'", "'order-7'", "Attempt 1 of 2",
					IllegalStateException.class.getName(), "card declined for o-7");
			assertThat(warning.getThrowableProxy()).as("one line, no trace").isNull();
		});
		List<ILoggingEvent> errors = this.appender.list.stream().filter((e) -> e.getLevel() == Level.ERROR).toList();
		assertThat(errors).singleElement().satisfies((error) -> {
			assertThat(error.getFormattedMessage()).contains("'order-7'", "'logged'", "'billing'",
					"dead letter " + dead.entryId(), "card declined for o-7");
			assertThat(error.getThrowableProxy().getClassName()).isEqualTo(IllegalStateException.class.getName());
		});
		assertThat(dead.stackTrace()).startsWith(IllegalStateException.class.getName() + ": card declined for o-7")
			.contains("\tat ");
		// the id in the log line is the one replay takes
		assertThat(this.engine.admin().replay("logged", dead.entryId())).isTrue();
	}

}
