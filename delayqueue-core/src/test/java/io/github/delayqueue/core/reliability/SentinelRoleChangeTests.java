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

package io.github.delayqueue.core.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import java.util.stream.Stream;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.Durability;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.UnconfirmedSendException;
import io.github.delayqueue.test.RedisSentinelSet;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Planned failovers of a Sentinel set (1 master, 1 replica, 3 Sentinels) where the old
 * master lives on and is turned into a replica: what an application already running sees.
 */
@Tag("faults")
class SentinelRoleChangeTests {

	private static RedisSentinelSet set;

	private final Resources resources = new Resources();

	@BeforeAll
	static void startSet() {
		set = RedisSentinelSet.start("roles", 1, 3, (server) -> server);
	}

	@AfterAll
	static void stopSet() {
		if (set != null) {
			set.close();
		}
	}

	@AfterEach
	void close() throws Exception {
		this.resources.close();
		set.awaitInSync();
	}

	private DelayQueueEngine engine() {
		LettuceConnectionFactory factory = set.connectionFactory(Duration.ofSeconds(2));
		this.resources.track(factory::destroy);
		DelayQueueEngine engine = DelayQueueEngine.builder(factory).build();
		this.resources.track(engine);
		return engine;
	}

	@Test
	void durableSendsAreAppliedOnTheNewMasterAtOnceAfterAPlannedFailover() throws Exception {
		DelayQueueEngine engine = engine();
		// the scripts are loaded on the master before the failover, as in any running
		// application
		engine.template()
			.send(DelayMessage.builder("warm").queue("planned").delay(Duration.ofMinutes(1)).build(),
					Durability.replicas(1, Duration.ofMillis(500)));
		Producer producer = new Producer((i) -> engine.template()
			.send(DelayMessage.builder("m-" + i).id("m-" + i).queue("planned").delay(Duration.ofMinutes(1)).build(),
					Durability.replicas(1, Duration.ofMillis(500))));
		Thread.sleep(500);
		set.failover();
		long promoted = System.nanoTime();
		Thread.sleep(12_000);
		producer.stop();
		set.awaitInSync();

		System.out.println("Planned failover under durable sends: " + producer.summary(promoted));
		assertThat(producer.failures()).noneMatch((message) -> message.contains("NOSCRIPT"));
		assertThat(producer.confirmed()).as("every confirmed send is kept")
			.allMatch((id) -> engine.admin().scheduledMessage("planned", id).isPresent());
		// with one replica the new master has none until the Sentinels turned the old
		// master into one (about 10 s): the sends are applied, not yet confirmed
		List<String> appliedAfter = producer.begunAfter(promoted);
		assertThat(appliedAfter).as("sends begun after the promotion").isNotEmpty();
		assertThat(appliedAfter).as("every send begun after the promotion is applied on the new master")
			.allMatch((id) -> engine.admin().scheduledMessage("planned", id).isPresent());
		// how soon is a figure (docs/operations.md), printed above, not asserted
	}

	@Test
	void aPlannedFailoverRerunsCloseToNothing() throws Exception {
		DelayQueueEngine producerEngine = engine();
		Map<String, List<String>> runs = new ConcurrentHashMap<>();
		for (int i = 0; i < 3; i++) {
			String name = "c" + i;
			DelayQueueListenerContainer container = engine()
				.listenerContainer("reruns", "g", String.class,
						(payload, context) -> runs.computeIfAbsent(payload, (key) -> new CopyOnWriteArrayList<>())
							.add(name + "#" + context.attempt()))
				.visibilityTimeout(Duration.ofSeconds(5))
				.build();
			container.start();
			this.resources.track(container::stop);
		}
		// messages come due all along, some at once, some a little later
		Producer producer = new Producer((i) -> producerEngine.template()
			.send(DelayMessage.builder("m-" + i).queue("reruns").delay(Duration.ofMillis(i % 4 * 100)).build()));
		Thread.sleep(2000);
		set.failover();
		Thread.sleep(3000);
		producer.stop();
		set.awaitInSync();
		// quiet: every message kept is handled
		await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofSeconds(1)).until(() -> {
			QueueStats stats = producerEngine.admin().stats("reruns");
			return stats.scheduled() == 0 && stats.inFlight() == 0 && stats.ready() == 0;
		});
		Thread.sleep(1000);
		List<String> reruns = runs.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().size() > 1)
			.map((entry) -> entry.getKey() + "=" + entry.getValue())
			.toList();
		List<String> lost = producer.applied().stream().filter((id) -> !runs.containsKey(id)).toList();
		System.out.println("Planned failover under load: " + producer.applied().size() + " sends applied, "
				+ runs.size() + " handled, " + reruns.size() + " reruns " + reruns + ", " + lost.size()
				+ " applied sends not handled " + lost);
		// 6-8 measured here (docs/operations.md); the operators' campaign saw 136-281
		// before the engines followed the Sentinels: a bound with room for a noisy
		// machine
		assertThat(reruns).as("reruns").hasSizeLessThanOrEqualTo(20);
	}

	/**
	 * Sends one message every 20 ms and records what became of each: confirmed, applied
	 * but not confirmed ({@link UnconfirmedSendException}), or failed.
	 */
	private static final class Producer {

		private final Map<String, Long> begun = new ConcurrentHashMap<>();

		private final Map<String, Long> ended = new ConcurrentHashMap<>();

		private final List<String> confirmed = new CopyOnWriteArrayList<>();

		private final List<String> unconfirmed = new CopyOnWriteArrayList<>();

		private final Map<String, String> failed = new ConcurrentHashMap<>();

		private final AtomicBoolean sending = new AtomicBoolean(true);

		private final Thread thread;

		Producer(IntConsumer send) {
			this.thread = new Thread(() -> {
				for (int i = 0; this.sending.get(); i++) {
					String id = "m-" + i;
					this.begun.put(id, System.nanoTime());
					try {
						send.accept(i);
						this.confirmed.add(id);
					}
					catch (UnconfirmedSendException ex) {
						this.unconfirmed.add(id);
					}
					catch (RuntimeException ex) {
						this.failed.put(id, String.valueOf(ex.getMessage()));
					}
					this.ended.put(id, System.nanoTime());
					try {
						Thread.sleep(20);
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			}, "producer");
			this.thread.start();
		}

		void stop() throws InterruptedException {
			this.sending.set(false);
			this.thread.join();
		}

		List<String> confirmed() {
			return this.confirmed;
		}

		Collection<String> failures() {
			return this.failed.values();
		}

		List<String> applied() {
			return Stream.concat(this.confirmed.stream(), this.unconfirmed.stream()).toList();
		}

		/** The sends applied (confirmed or not) that began after a moment. */
		List<String> begunAfter(long moment) {
			return Stream.concat(this.confirmed.stream(), this.unconfirmed.stream())
				.filter((id) -> this.begun.get(id) - moment > 0)
				.toList();
		}

		long firstAppliedAfter(long moment) {
			return begunAfter(moment).stream()
				.mapToLong((id) -> TimeUnit.NANOSECONDS.toMillis(this.ended.get(id) - moment))
				.min()
				.orElse(Long.MAX_VALUE);
		}

		String summary(long promoted) {
			return this.confirmed.size() + " confirmed, " + this.unconfirmed.size() + " applied but unconfirmed, "
					+ this.failed.size() + " failed " + this.failed.values().stream().distinct().limit(3).toList()
					+ "; the first applied " + firstAppliedAfter(promoted) + " ms after the promotion";
		}

	}

}
