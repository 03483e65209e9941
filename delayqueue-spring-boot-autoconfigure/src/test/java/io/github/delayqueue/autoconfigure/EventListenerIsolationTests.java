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
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.core.event.ContainerStartedEvent;
import io.github.delayqueue.core.event.DelayQueueEvent;
import io.github.delayqueue.core.event.DelayQueueEventListener;
import io.github.delayqueue.core.event.QueuePausedEvent;
import io.github.delayqueue.core.event.QueueResumedEvent;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Container events as application events in a Spring Boot application, on a real Redis:
 * an {@code @EventListener} (or a {@link DelayQueueEventListener} bean) that throws is
 * logged and costs no other listener its events, which still arrive in their order.
 */
@RedisTest
class EventListenerIsolationTests {

	private final ApplicationContextRunner runner;

	EventListenerIsolationTests(RedisServer redis) {
		this.runner = AllAutoConfigurations.runner(redis);
	}

	@Test
	void anEventListenerThatThrowsIsLoggedAndTheLaterOnesStillGetEveryEventInOrder() {
		Logger logger = (Logger) LoggerFactory.getLogger(GuardedApplicationEvents.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.addAppender(appender);
		try {
			this.runner.withUserConfiguration(Listeners.class).run((context) -> {
				assertThat(context).hasNotFailed();
				Listeners listeners = context.getBean(Listeners.class);
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> listeners.calls.size() == 3);
				DelayQueueAdmin admin = context.getBean(DelayQueueAdmin.class);
				admin.pause("isolated");
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> listeners.calls.size() == 6);
				admin.resume("isolated");
				Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> listeners.calls.size() == 9);
				assertThat(listeners.calls).containsExactly("throwing ContainerStartedEvent",
						"second ContainerStartedEvent", "third ContainerStartedEvent", "throwing QueuePausedEvent",
						"second QueuePausedEvent", "third QueuePausedEvent", "throwing QueueResumedEvent",
						"second QueueResumedEvent", "third QueueResumedEvent");
				// a message saying "closed" is a listener's failure like any other while
				// the context runs: a WARN naming the listener
				assertThat(appender.list).hasSize(3).allSatisfy((line) -> {
					assertThat(line.getLevel()).isEqualTo(Level.WARN);
					assertThat(line.getFormattedMessage()).contains("Listeners.throwing(")
						.contains("the other listeners got it: java.lang.IllegalStateException: connection closed");
				});
			});
		}
		finally {
			logger.detachAppender(appender);
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		final List<String> calls = new CopyOnWriteArrayList<>();

		private void record(String listener, DelayQueueEvent event) {
			if (event instanceof ContainerStartedEvent || event instanceof QueuePausedEvent
					|| event instanceof QueueResumedEvent) {
				this.calls.add(listener + " " + event.getClass().getSimpleName());
			}
		}

		/** Fails on every event, as the first listener. */
		@EventListener
		@Order(1)
		void throwing(DelayQueueEvent event) {
			record("throwing", event);
			throw new IllegalStateException("connection closed");
		}

		@EventListener
		@Order(2)
		void second(DelayQueueEvent event) {
			record("second", event);
		}

		@EventListener
		@Order(3)
		void third(DelayQueueEvent event) {
			record("third", event);
		}

		/** A listener bean that fails too: the application events still go out. */
		@Bean
		DelayQueueEventListener failingListenerBean() {
			return (event) -> {
				throw new IllegalStateException("listener bean bug");
			};
		}

		@DelayListener(queue = "isolated", group = "shop")
		void order(String order) {
		}

	}

}
