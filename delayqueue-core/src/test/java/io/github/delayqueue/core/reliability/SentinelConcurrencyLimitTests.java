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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisSentinelSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A concurrency limit across a planned {@code SENTINEL FAILOVER} (1 master, 1 replica, 3
 * Sentinels): the limit holds, acknowledged messages are not run again beyond what a
 * failover reruns without a limit, and no slot stays taken by a handler that returned.
 */
@Tag("faults")
class SentinelConcurrencyLimitTests {

	private static RedisSentinelSet set;

	private final Resources resources = new Resources();

	@BeforeAll
	static void startSet() {
		set = RedisSentinelSet.start("limits", 1, 3, (server) -> server);
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
	void aPlannedFailoverKeepsTheLimitRerunsCloseToNothingAndLosesNoFree() throws Exception {
		DelayQueueEngine producer = engine();
		int limit = 5;
		producer.admin().limitConcurrency("limited", limit);
		AtomicInteger running = new AtomicInteger();
		AtomicInteger most = new AtomicInteger();
		AtomicLong lastReturned = new AtomicLong();
		Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
		List<Long> starts = new CopyOnWriteArrayList<>();
		for (int i = 0; i < 3; i++) {
			DelayQueueListenerContainer container = engine()
				.listenerContainer("limited", "g", String.class, (payload, context) -> {
					runs.computeIfAbsent(payload, (key) -> new AtomicInteger()).incrementAndGet();
					starts.add(System.nanoTime());
					most.accumulateAndGet(running.incrementAndGet(), Math::max);
					try {
						Thread.sleep(40);
					}
					finally {
						running.decrementAndGet();
						lastReturned.set(System.nanoTime());
					}
				})
				.concurrency(8)
				.visibilityTimeout(Duration.ofSeconds(10))
				.build();
			container.start();
			this.resources.track(container::stop);
		}
		// a backlog that keeps every slot busy through the failover (5 at a time of 40 ms
		// is about 125 a second), and messages coming due all along, as in
		// SentinelRoleChangeTests
		int n = 800;
		List<String> sent = new CopyOnWriteArrayList<>();
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < n; i++) {
			messages.add(DelayMessage.builder("m-" + i).id("m-" + i).queue("limited").build());
			sent.add("m-" + i);
		}
		producer.template().sendAll(messages);
		AtomicBoolean sending = new AtomicBoolean(true);
		Thread steady = new Thread(() -> {
			for (int i = 0; sending.get(); i++) {
				try {
					producer.template()
						.send(DelayMessage.builder("s-" + i)
							.id("s-" + i)
							.queue("limited")
							.delay(Duration.ofMillis(i % 4 * 100))
							.build());
					sent.add("s-" + i);
					Thread.sleep(20);
				}
				catch (InterruptedException ex) {
					return;
				}
				catch (RuntimeException ex) {
					// around the promotion: not sent
				}
			}
		});
		steady.start();
		set.awaitInSync();
		await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() >= 200);
		long failover = System.nanoTime();
		set.failover();
		Thread.sleep(3000);
		sending.set(false);
		steady.join();
		set.awaitInSync();
		await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> {
			QueueStats stats = producer.admin().stats("limited");
			return stats.scheduled() == 0 && stats.inFlight() == 0 && stats.ready() == 0 && running.get() == 0;
		});
		long quiet = System.nanoTime();
		// a free lost with the old master would keep its slot for the visibility timeout
		// and a renewal period
		await().atMost(Duration.ofSeconds(2))
			.pollInterval(Duration.ofMillis(50))
			.until(() -> producer.admin().concurrencySlotsTaken("limited", "g") == 0);
		long freedMillis = (System.nanoTime() - Math.max(quiet, lastReturned.get())) / 1_000_000;
		// the longest pause of the starts from the failover on: slots freed on the old
		// master after the promotion, if held on the new one, would hold every start
		// until they lapsed (the visibility timeout and a renewal period: 13.3 s)
		List<Long> after = starts.stream().filter((at) -> at - failover > 0).sorted().toList();
		long longestPause = 0;
		for (int i = 1; i < after.size(); i++) {
			longestPause = Math.max(longestPause, (after.get(i) - after.get(i - 1)) / 1_000_000);
		}
		List<String> reruns = runs.entrySet()
			.stream()
			.filter((entry) -> entry.getValue().get() > 1)
			.map((entry) -> entry.getKey() + "x" + entry.getValue().get())
			.toList();
		List<String> lost = sent.stream().filter((id) -> id.startsWith("m-") && !runs.containsKey(id)).toList();
		System.out.println("Planned failover under a concurrency limit of " + limit + ": most running " + most.get()
				+ ", " + runs.size() + " of " + sent.size() + " sent handled, " + reruns.size() + " reruns " + reruns
				+ ", longest pause of the starts " + longestPause + " ms, slots free " + freedMillis
				+ " ms after the last handler returned, not handled " + lost);
		assertThat(most.get()).as("most running at once").isLessThanOrEqualTo(limit);
		// the switch to the new master takes about 1.5 s (docs/operations.md)
		assertThat(longestPause).as("longest pause of the starts (ms)").isLessThan(5000);
		// the same bound as a failover without a limit (SentinelRoleChangeTests)
		assertThat(reruns).as("reruns").hasSizeLessThanOrEqualTo(20);
		assertThat(lost).as("sent before the failover, replicated, and never handled").isEmpty();
	}

}
