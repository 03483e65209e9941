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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The slots of a concurrency limit held by a consumer JVM that dies ({@code kill -9}) or
 * stalls ({@code SIGSTOP}): free once its leases would have expired (visibility timeout 2
 * s, renewed every 667 ms), never before, and nothing is lost.
 */
@Tag("faults")
class ConcurrencyCrashTests {

	private static final String QUEUE = "partner-calls";

	private final List<AutoCloseable> resources = new ArrayList<>();

	private final List<Long> starts = new CopyOnWriteArrayList<>();

	private final Map<String, List<Integer>> attempts = new ConcurrentHashMap<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	/**
	 * A child JVM takes the 3 slots of the limit; this JVM's listener starts nothing
	 * meanwhile. Returns the child.
	 */
	private ReliabilitySupport.ChildJvm childHoldingEverySlot(RedisServer redis, DelayQueueEngine engine)
			throws Exception {
		engine.admin().limitConcurrency(QUEUE, 3);
		ReliabilitySupport.ChildJvm child = new ReliabilitySupport.ChildJvm(SlotHolder.class,
				Integer.toString(redis.port()), QUEUE, "g");
		this.resources.add(child);
		child.awaitLine("STARTED ", Duration.ofSeconds(60));
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 10; i++) {
			messages.add(DelayMessage.builder("work-" + i).queue(QUEUE).id("work-" + i).build());
		}
		engine.template().sendAll(messages);
		for (int i = 0; i < 3; i++) {
			child.awaitLine("HANDLING ", Duration.ofSeconds(30));
		}
		assertThat(child.linesWithin(Duration.ofMillis(500))).as("a fourth handler in the child").isEmpty();
		DelayQueueListenerContainer container = engine
			.listenerContainer(QUEUE, "g", String.class, (payload, context) -> {
				this.starts.add(System.nanoTime());
				this.attempts.computeIfAbsent(context.id(), (id) -> new CopyOnWriteArrayList<>())
					.add(context.attempt());
			})
			.visibilityTimeout(Duration.ofSeconds(2))
			.concurrency(4)
			.build();
		container.start();
		this.resources.add(container::stop);
		Thread.sleep(1500);
		assertThat(this.starts).as("starts here while the child holds every slot").isEmpty();
		assertThat(engine.admin().concurrencySlotsTaken(QUEUE, "g")).isEqualTo(3);
		return child;
	}

	private DelayQueueEngine engine(RedisServer redis) {
		LettuceConnectionFactory factory = RedisServerExtension.connectionFactory(redis);
		this.resources.add(factory::destroy);
		DelayQueueEngine engine = DelayQueueEngine.builder(factory).build();
		this.resources.add(engine);
		return engine;
	}

	private RedisServer redis() {
		RedisServer redis = RedisServer.builder().start();
		this.resources.add(redis);
		return redis;
	}

	@Test
	void theSlotsOfAKilledHolderComeBackWithinTheVisibilityTimeoutAndNothingIsLost() throws Exception {
		RedisServer redis = redis();
		DelayQueueEngine engine = engine(redis);
		ReliabilitySupport.ChildJvm child = childHoldingEverySlot(redis, engine);
		long killed = System.nanoTime();
		assertThat(child.kill()).isTrue();
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.starts.isEmpty());
		long after = TimeUnit.NANOSECONDS.toMillis(this.starts.get(0) - killed);
		System.out.println("first start " + after + " ms after the kill of the holder");
		// visibility timeout 2 s + one renewal period (667 ms) + a wait (100 ms)
		assertThat(after).isLessThan(2000 + 667 + 100 + 1000);
		// the child's 3 running messages too (and those it read ahead): their leases
		// expired with their slots; each is handled here once
		await().atMost(Duration.ofSeconds(20)).until(() -> this.attempts.size() == 10);
		assertThat(this.attempts.values()).allMatch((a) -> a.size() == 1);
		assertThat(this.attempts.values().stream().filter((a) -> a.contains(2)).count()).isGreaterThanOrEqualTo(3);
	}

	@Test
	void aStalledHoldersSlotsAreNotTakenWhileItsLeasesLiveAndAreFreedAfter() throws Exception {
		RedisServer redis = redis();
		DelayQueueEngine engine = engine(redis);
		ReliabilitySupport.ChildJvm child = childHoldingEverySlot(redis, engine);
		child.pause();
		long stopped = System.nanoTime();
		await().atMost(Duration.ofSeconds(10)).until(() -> !this.starts.isEmpty());
		long after = TimeUnit.NANOSECONDS.toMillis(this.starts.get(0) - stopped);
		System.out.println("first start " + after + " ms after the holder was stopped");
		// renewed at most one renewal period before the stop, each slot for the
		// visibility timeout and one more period: none is free before 2 s
		assertThat(after).isGreaterThanOrEqualTo(1950).isLessThan(2000 + 667 + 100 + 1000);
		await().atMost(Duration.ofSeconds(20)).until(() -> this.attempts.size() == 10);
		child.resume();
		Thread.sleep(1000);
		// the child's handlers still hang: its slots are lost to it, not taken back
		assertThat(engine.admin().concurrencySlotsTaken(QUEUE, "g")).isZero();
	}

}
