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
package io.github.delayqueue.core.internal.runtime;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.delayqueue.core.event.DelayQueueEvent;
import io.github.delayqueue.core.event.DelayQueueEventListener;
import io.github.delayqueue.core.event.QueuePausedEvent;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The engine's event dispatcher on its own: a stuck listener never blocks a publisher
 * (events beyond {@value DelayQueueEventListener#MAX_WAITING} waiting are dropped and
 * counted), a throwing listener still gets the next events, order is kept, and close
 * hands over what waits.
 */
class EventDispatcherTests {

	private static QueuePausedEvent event(int i, java.time.Instant time) {
		return new QueuePausedEvent("q" + i, "g", time);
	}

	@Test
	void aStuckListenerNeverBlocksThePublisherEventsBeyondTheBoundAreDroppedAndCounted() throws Exception {
		CountDownLatch stuck = new CountDownLatch(1);
		CountDownLatch first = new CountDownLatch(1);
		List<String> seen = new CopyOnWriteArrayList<>();
		EventDispatcher dispatcher = new EventDispatcher(List.of((event) -> {
			first.countDown();
			try {
				stuck.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			seen.add(event.queue());
		}), Clock.systemUTC());
		dispatcher.publish((time) -> event(0, time));
		assertThat(first.await(5, TimeUnit.SECONDS)).isTrue();
		long start = System.nanoTime();
		int published = DelayQueueEventListener.MAX_WAITING + 500;
		for (int i = 1; i <= published; i++) {
			int n = i;
			dispatcher.publish((time) -> event(n, time));
		}
		// never waited for the listener
		assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isLessThan(2);
		assertThat(dispatcher.dropped()).isEqualTo(500);
		stuck.countDown();
		await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() == DelayQueueEventListener.MAX_WAITING + 1);
		// in order, the newest dropped
		assertThat(seen.get(0)).isEqualTo("q0");
		assertThat(seen.get(1)).isEqualTo("q1");
		assertThat(seen.get(seen.size() - 1)).isEqualTo("q" + DelayQueueEventListener.MAX_WAITING);
		dispatcher.close(Duration.ofSeconds(1));
	}

	@Test
	void theWarningsCountEveryDroppedEvent() throws Exception {
		Logger logger = (Logger) LoggerFactory.getLogger(EventDispatcher.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.addAppender(appender);
		CountDownLatch stuck = new CountDownLatch(1);
		CountDownLatch first = new CountDownLatch(1);
		AtomicInteger seen = new AtomicInteger();
		EventDispatcher dispatcher = new EventDispatcher(List.of((event) -> {
			first.countDown();
			try {
				stuck.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			seen.incrementAndGet();
		}), Clock.systemUTC());
		try {
			dispatcher.publish((time) -> event(0, time));
			assertThat(first.await(5, TimeUnit.SECONDS)).isTrue();
			for (int i = 1; i <= DelayQueueEventListener.MAX_WAITING + 4_414; i++) {
				int n = i;
				dispatcher.publish((time) -> event(n, time));
			}
			stuck.countDown();
			await().atMost(Duration.ofSeconds(10)).until(() -> seen.get() == DelayQueueEventListener.MAX_WAITING + 1);
			// the first drop is told at once, the others when the listeners caught up
			await().atMost(Duration.ofSeconds(5)).until(() -> appender.list.size() == 2);
			assertThat(appender.list.get(0).getFormattedMessage())
				.contains("(1 dropped since the last report, 1 since the engine started)");
			assertThat(appender.list.get(1).getFormattedMessage())
				.startsWith("Container events were dropped; the event listeners caught up (4413 dropped since the "
						+ "last report, 4414 since the engine started)");
			assertThat(dispatcher.dropped()).isEqualTo(4_414);
		}
		finally {
			logger.detachAppender(appender);
			dispatcher.close(Duration.ofSeconds(1));
		}
		// nothing more to report
		assertThat(appender.list).hasSize(2);
	}

	@Test
	void aThrowingListenerStillGetsTheNextEventsAndSoDoTheOthers() {
		AtomicInteger thrower = new AtomicInteger();
		List<DelayQueueEvent> other = new CopyOnWriteArrayList<>();
		EventDispatcher dispatcher = new EventDispatcher(List.of((event) -> {
			thrower.incrementAndGet();
			throw new IllegalStateException("listener bug");
		}, other::add), Clock.systemUTC());
		for (int i = 0; i < 3; i++) {
			int n = i;
			dispatcher.publish((time) -> event(n, time));
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> other.size() == 3);
		assertThat(thrower.get()).isEqualTo(3);
		dispatcher.close(Duration.ofSeconds(1));
	}

	@Test
	void closeHandsOverWhatWaitsThenIgnoresNewEvents() {
		List<DelayQueueEvent> seen = new CopyOnWriteArrayList<>();
		EventDispatcher dispatcher = new EventDispatcher(List.of(seen::add), Clock.systemUTC());
		for (int i = 0; i < 100; i++) {
			int n = i;
			dispatcher.publish((time) -> event(n, time));
		}
		dispatcher.close(Duration.ofSeconds(5));
		assertThat(seen).hasSize(100);
		dispatcher.publish((time) -> event(100, time));
		assertThat(seen).hasSize(100);
	}

	@Test
	void withoutListenersNothingIsBuilt() {
		AtomicInteger built = new AtomicInteger();
		EventDispatcher.NONE.publish((time) -> {
			built.incrementAndGet();
			return event(0, time);
		});
		assertThat(built.get()).isZero();
		assertThat(EventDispatcher.NONE.active()).isFalse();
	}

}
