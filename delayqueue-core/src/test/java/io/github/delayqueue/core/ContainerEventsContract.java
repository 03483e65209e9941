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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.event.ContainerFailedToStartEvent;
import io.github.delayqueue.core.event.ContainerIdleEvent;
import io.github.delayqueue.core.event.ContainerStartedEvent;
import io.github.delayqueue.core.event.ContainerStoppedEvent;
import io.github.delayqueue.core.event.DelayQueueEvent;
import io.github.delayqueue.core.event.NonResponsiveHandlerEvent;
import io.github.delayqueue.core.event.PartitionGivenUpEvent;
import io.github.delayqueue.core.event.PartitionTakenEvent;
import io.github.delayqueue.core.event.QueuePausedEvent;
import io.github.delayqueue.core.event.QueueResumedEvent;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Container events against real Redis: started and stopped, paused and resumed by another
 * instance, a hung handler (non-responsive), an idle container, partitions taken and
 * given up as members come and go; delivered on the engine's event thread, never holding
 * delivery back. Run on a single server and on a Redis Cluster, with a queue of 3
 * partitions.
 */
abstract class ContainerEventsContract extends QueueTestFixture {

	/** The events one engine's listener received, with the thread it ran on. */
	static final class Recorder {

		final List<DelayQueueEvent> events = new CopyOnWriteArrayList<>();

		final List<String> threads = new CopyOnWriteArrayList<>();

		void onEvent(DelayQueueEvent event) {
			this.events.add(event);
			this.threads.add(Thread.currentThread().getName());
		}

		<T extends DelayQueueEvent> List<T> of(Class<T> type) {
			return this.events.stream().filter(type::isInstance).map(type::cast).toList();
		}

	}

	ContainerEventsContract(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private DelayQueueEngine engine(Recorder recorder) {
		DelayQueueEngineBuilder builder = DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, 3);
		return build((recorder != null) ? builder.eventListener(recorder::onEvent) : builder);
	}

	@Test
	void startedAndStoppedOnTheEnginesEventThread() {
		Recorder recorder = new Recorder();
		DelayQueueEngine engine = engine(recorder);
		DelayQueueListenerContainer container = start(
				engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
				}).build());
		await().atMost(Duration.ofSeconds(5)).until(() -> !recorder.of(ContainerStartedEvent.class).isEmpty());
		ContainerStartedEvent started = recorder.of(ContainerStartedEvent.class).get(0);
		assertThat(started.queue()).isEqualTo(this.queue);
		assertThat(started.group()).isEqualTo("g");
		assertThat(started.consumer()).isEqualTo(container.consumerName());
		container.stop();
		await().atMost(Duration.ofSeconds(5)).until(() -> !recorder.of(ContainerStoppedEvent.class).isEmpty());
		assertThat(recorder.of(ContainerStoppedEvent.class).get(0).reason())
			.isEqualTo(ContainerStoppedEvent.Reason.NORMAL);
		assertThat(recorder.threads).allMatch((thread) -> thread.startsWith("delayqueue-events"));
	}

	@Test
	void aContainerThatCannotStartSaysWhyAndLeavesNothingRunning() {
		Recorder recorder = new Recorder();
		DelayQueueEngine engine = engine(recorder);
		// what Thread.start throws when the JVM can make no more threads
		Error noThreads = new OutOfMemoryError("unable to create native thread: possibly out of memory");
		DelayQueueListenerContainer container = engine
			.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			})
			.executor((worker) -> {
				throw noThreads;
			})
			.build();
		assertThatThrownBy(container::start).isSameAs(noThreads);
		assertThat(container.isRunning()).isFalse();
		await().atMost(Duration.ofSeconds(5)).until(() -> !recorder.of(ContainerFailedToStartEvent.class).isEmpty());
		ContainerFailedToStartEvent failed = recorder.of(ContainerFailedToStartEvent.class).get(0);
		assertThat(failed.cause()).isSameAs(noThreads);
		assertThat(failed.consumer()).isEqualTo(container.consumerName());
		assertThat(recorder.of(ContainerStartedEvent.class)).isEmpty();
		// the parts that had started (acker, watchdog) were stopped again
		await().atMost(Duration.ofSeconds(10))
			.until(() -> Thread.getAllStackTraces()
				.keySet()
				.stream()
				.noneMatch((thread) -> thread.isAlive() && thread.getName().contains("-g-")
						&& thread.getName().contains(this.queue)));
	}

	@Test
	void aStopThatOutlivesTheShutdownTimeoutSaysSo() throws Exception {
		Recorder recorder = new Recorder();
		DelayQueueEngine engine = engine(recorder);
		CountDownLatch running = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		DelayQueueListenerContainer container = start(
				engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
					running.countDown();
					release.await();
				}).shutdownTimeout(Duration.ofMillis(300)).build());
		engine.template().send(this.queue, "m", Duration.ZERO);
		assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
		container.stop();
		release.countDown();
		await().atMost(Duration.ofSeconds(5)).until(() -> !recorder.of(ContainerStoppedEvent.class).isEmpty());
		assertThat(recorder.of(ContainerStoppedEvent.class).get(0).reason())
			.isEqualTo(ContainerStoppedEvent.Reason.SHUTDOWN_TIMEOUT);
	}

	@Test
	void pausedAndResumedByAnotherInstanceAreSeenHere() {
		Recorder recorder = new Recorder();
		DelayQueueEngine engine = engine(recorder);
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
		}).build());
		start(engine.listenerContainer(this.queue, "h", String.class, (payload, context) -> {
		}).build());
		await().atMost(Duration.ofSeconds(5)).until(() -> recorder.of(ContainerStartedEvent.class).size() == 2);
		sleep(300);
		assertThat(recorder.of(QueuePausedEvent.class)).isEmpty();
		DelayQueueEngine other = engine(null);
		other.admin().pause(this.queue, "g");
		await().atMost(Duration.ofSeconds(5)).until(() -> recorder.of(QueuePausedEvent.class).size() == 1);
		assertThat(recorder.of(QueuePausedEvent.class).get(0).group()).isEqualTo("g");
		other.admin().pause(this.queue);
		await().atMost(Duration.ofSeconds(5)).until(() -> recorder.of(QueuePausedEvent.class).size() == 2);
		assertThat(recorder.of(QueuePausedEvent.class).get(1).group()).isEqualTo("h");
		other.admin().resume(this.queue);
		other.admin().resume(this.queue, "g");
		await().atMost(Duration.ofSeconds(5)).until(() -> recorder.of(QueueResumedEvent.class).size() == 2);
		assertThat(recorder.of(QueueResumedEvent.class)).extracting(QueueResumedEvent::group)
			.containsExactlyInAnyOrder("g", "h");
		sleep(1500);
		// the state polled again changes nothing: no further event
		assertThat(recorder.of(QueuePausedEvent.class)).hasSize(2);
		assertThat(recorder.of(QueueResumedEvent.class)).hasSize(2);
	}

	@Test
	void aQueuePausedWhenTheContainerStartsIsReported() {
		Recorder recorder = new Recorder();
		DelayQueueEngine engine = engine(recorder);
		engine.admin().pause(this.queue);
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
		}).build());
		await().atMost(Duration.ofSeconds(5)).until(() -> recorder.of(QueuePausedEvent.class).size() == 1);
	}

	@Test
	void onlyStartedContainersHearOfPausesAndOneStartingWhilePausedIsTold() {
		Recorder recorder = new Recorder();
		DelayQueueEngine engine = engine(recorder);
		engine.admin().pause(this.queue);
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
		}).build());
		DelayQueueListenerContainer unstarted = engine
			.listenerContainer(this.queue, "h", String.class, (payload, context) -> {
			})
			.build();
		await().atMost(Duration.ofSeconds(5)).until(() -> recorder.of(QueuePausedEvent.class).size() == 1);
		// polled again meanwhile: the container built but not started hears nothing
		sleep(1500);
		assertThat(recorder.of(QueuePausedEvent.class)).extracting(QueuePausedEvent::group).containsExactly("g");
		start(unstarted);
		await().atMost(Duration.ofSeconds(5)).until(() -> recorder.of(QueuePausedEvent.class).size() == 2);
		assertThat(recorder.of(QueuePausedEvent.class).get(1).group()).isEqualTo("h");
		// stopped and started again while paused: told again
		unstarted.stop();
		unstarted.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> recorder.of(QueuePausedEvent.class).size() == 3);
		assertThat(recorder.of(QueuePausedEvent.class).get(2).group()).isEqualTo("h");
		engine.admin().resume(this.queue);
		await().atMost(Duration.ofSeconds(5)).until(() -> recorder.of(QueueResumedEvent.class).size() == 2);
		assertThat(recorder.of(QueueResumedEvent.class)).extracting(QueueResumedEvent::group)
			.containsExactlyInAnyOrder("g", "h");
	}

	@Test
	void aHungHandlerIsReportedNonResponsiveAndDeliveryGoesOn() {
		Recorder recorder = new Recorder();
		DelayQueueEngine engine = engine(recorder);
		CountDownLatch release = new CountDownLatch(1);
		List<String> handled = new CopyOnWriteArrayList<>();
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			if (payload.equals("hang") && context.attempt() == 1) {
				release.await();
			}
			handled.add(payload);
		}).visibilityTimeout(Duration.ofMillis(600)).leaseRenewalLimit(Duration.ofSeconds(1)).concurrency(2).build());
		try {
			engine.template().send(DelayMessage.builder("hang").queue(this.queue).id("hung-1").build());
			await().atMost(Duration.ofSeconds(10)).until(() -> !recorder.of(NonResponsiveHandlerEvent.class).isEmpty());
			NonResponsiveHandlerEvent event = recorder.of(NonResponsiveHandlerEvent.class).get(0);
			assertThat(event.messageId()).isEqualTo("hung-1");
			assertThat(event.attempt()).isEqualTo(1);
			assertThat(event.runningFor()).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
			// given up and retried meanwhile
			await().atMost(Duration.ofSeconds(10)).until(() -> handled.contains("hang"));
		}
		finally {
			release.countDown();
		}
	}

	@Test
	void anIdleContainerIsReportedAfterItsIntervalAndAgainWhileIdle() {
		Recorder recorder = new Recorder();
		DelayQueueEngine engine = engine(recorder);
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
		}).idleEventInterval(Duration.ofSeconds(1)).build());
		// busy for 2.5 s: no idle event
		long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2500);
		while (System.nanoTime() - until < 0) {
			engine.template().send(this.queue, "m", Duration.ZERO);
			sleep(200);
		}
		assertThat(recorder.of(ContainerIdleEvent.class)).isEmpty();
		await().atMost(Duration.ofSeconds(5)).until(() -> recorder.of(ContainerIdleEvent.class).size() >= 2);
		List<ContainerIdleEvent> idle = recorder.of(ContainerIdleEvent.class);
		assertThat(idle.get(0).idleTime()).isBetween(Duration.ofMillis(900), Duration.ofMillis(2500));
		assertThat(idle.get(1).idleTime()).isGreaterThan(idle.get(0).idleTime());
		// a message ends the idle time: the next one counts from it
		int before = idle.size();
		engine.template().send(this.queue, "m", Duration.ZERO);
		await().atMost(Duration.ofSeconds(5)).until(() -> recorder.of(ContainerIdleEvent.class).size() > before);
		assertThat(recorder.of(ContainerIdleEvent.class).get(before).idleTime()).isLessThan(Duration.ofMillis(2500));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			}).idleEventInterval(Duration.ofMillis(999)))
			.withMessageContaining("at least 1 second");
	}

	@Test
	void partitionsTakenAndGivenUpAsMembersComeAndGo() {
		Recorder first = new Recorder();
		Recorder second = new Recorder();
		DelayQueueEngine a = engine(first);
		DelayQueueEngine b = engine(second);
		DelayQueueListenerContainer one = start(
				a.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
				}).exclusive(true).visibilityTimeout(Duration.ofSeconds(1)).build());
		await().atMost(Duration.ofSeconds(10)).until(() -> first.of(PartitionTakenEvent.class).size() == 3);
		DelayQueueListenerContainer two = start(
				b.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
				}).exclusive(true).visibilityTimeout(Duration.ofSeconds(1)).build());
		await().atMost(Duration.ofSeconds(15))
			.until(() -> !second.of(PartitionTakenEvent.class).isEmpty()
					&& one.partitionsRead().size() + two.partitionsRead().size() == 3
					&& !two.partitionsRead().isEmpty());
		List<PartitionGivenUpEvent> rebalanced = first.of(PartitionGivenUpEvent.class);
		assertThat(rebalanced).isNotEmpty()
			.allMatch((event) -> event.reason() == PartitionGivenUpEvent.Reason.REBALANCED);
		assertThat(second.of(PartitionTakenEvent.class)).extracting(PartitionTakenEvent::partition)
			.containsExactlyInAnyOrderElementsOf(rebalanced.stream().map(PartitionGivenUpEvent::partition).toList());
		two.stop();
		await().atMost(Duration.ofSeconds(5))
			.until(() -> second.of(PartitionGivenUpEvent.class).size() == second.of(PartitionTakenEvent.class).size());
		assertThat(second.of(PartitionGivenUpEvent.class))
			.allMatch((event) -> event.reason() == PartitionGivenUpEvent.Reason.STOPPED);
		await().atMost(Duration.ofSeconds(15))
			.until(() -> first.of(PartitionTakenEvent.class).size() == 3 + rebalanced.size());
	}

	@Test
	void aSlowEventListenerNeverHoldsDeliveryBack() {
		List<String> handled = new CopyOnWriteArrayList<>();
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory)
			.partitions(this.queue, 3)
			.eventListener((event) -> sleep(2_500)));
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> handled.add(payload))
			.idleEventInterval(Duration.ofSeconds(1))
			.build());
		sleep(1200);
		for (int i = 0; i < 50; i++) {
			engine.template().send(this.queue, "m" + i, Duration.ZERO);
		}
		// the listener is still on the first events (started, idle) meanwhile
		await().atMost(Duration.ofMillis(2000)).until(() -> handled.size() == 50);
	}

}
