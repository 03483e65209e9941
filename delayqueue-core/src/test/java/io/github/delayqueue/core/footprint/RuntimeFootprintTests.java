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

package io.github.delayqueue.core.footprint;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What 200 idle queues cost one engine, at the listeners' defaults (concurrency 4): the
 * threads no longer grow with the workers, ackers, lease keepers and schedulers of each
 * queue (1,613 threads before issue 59: 13 + 6 per listener and 2 per partition), and the
 * idle Redis commands no longer with per-queue polling (about 1,150 a second before).
 * What still grows is each partition's reader: a thread and a blocking read connection.
 */
@RedisTest
class RuntimeFootprintTests {

	private static final int QUEUES = 200;

	private final RedisServer redis;

	private final RedisConnectionFactory connectionFactory;

	private final List<Runnable> closing = new CopyOnWriteArrayList<>();

	RuntimeFootprintTests(RedisServer redis, RedisConnectionFactory connectionFactory) {
		this.redis = redis;
		this.connectionFactory = connectionFactory;
	}

	@AfterEach
	void close() {
		this.closing.forEach(Runnable::run);
		this.redis.execute("FLUSHALL");
	}

	@Test
	void twoHundredIdleQueuesCostAFixedSetOfThreadsAndLittleElse() throws Exception {
		DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build();
		this.closing.add(engine::close);
		long before = engineThreads();
		Set<String> handled = ConcurrentHashMap.newKeySet();
		List<DelayQueueListenerContainer> containers = new ArrayList<>();
		for (int i = 0; i < QUEUES; i++) {
			DelayQueueListenerContainer container = engine
				.listenerContainer("footprint-" + i, "g", String.class, (payload, context) -> handled.add(payload))
				.build();
			this.closing.add(0, container::stop);
			container.start();
			containers.add(container);
		}
		await().atMost(Duration.ofSeconds(60))
			.until(() -> containers.stream().allMatch(DelayQueueListenerContainer::isHealthy));
		// start-up over: each queue promoted, read its state and recovered once
		Thread.sleep(3000);
		long threads = engineThreads() - before;
		long commandsBefore = commands();
		long scriptsBefore = calls("evalsha");
		Thread.sleep(10_000);
		long idleCommands = commands() - commandsBefore - 1;
		long idleScripts = calls("evalsha") - scriptsBefore;
		System.out.println("footprint of " + QUEUES + " idle queues: " + threads + " engine threads " + threadRoles()
				+ ", " + idleCommands + " Redis commands in 10 s, " + idleScripts + " of them scripts");
		// the engine's loop runner, heartbeat, subscription and timers, whatever the
		// number
		// of queues (9 measured while the readers ran on the runner), and a thread per
		// reader (209 measured); a thread per queue more (a scheduler, a lease keeper, an
		// acker, workers) is over the bound
		assertThat(threads).isLessThanOrEqualTo(20 + QUEUES);
		// each reader's blocking read every poll timeout (5 s): 2 in 10 s each, and at
		// most one sweep of each scheduler (30 s apart, about 5 commands): about 400
		// measured (1,600 to 2,800 while each reader looked for owners of its group
		// before
		// each read, about 11,500 before the shared runtime)
		assertThat(idleCommands).isLessThanOrEqualTo(QUEUES * 8L);
		// a script at most per queue: the sweep; no reader looks for owners of its group
		// while none joins (2 in 10 s each before)
		assertThat(idleScripts).isLessThanOrEqualTo(QUEUES);
		for (int i = 0; i < QUEUES; i++) {
			engine.template().send("footprint-" + i, "m" + i, Duration.ZERO);
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> handled.size() == QUEUES);
		assertThat(containers).allMatch(DelayQueueListenerContainer::isHealthy);
	}

	@Test
	void idleContainersTrimNothingUntilTheySettleAMessage() throws Exception {
		DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build();
		this.closing.add(engine::close);
		Set<String> handled = ConcurrentHashMap.newKeySet();
		for (int i = 0; i < 20; i++) {
			DelayQueueListenerContainer container = engine
				.listenerContainer("trim-" + i, "g", String.class, (payload, context) -> handled.add(payload))
				.trimInterval(Duration.ofMillis(500))
				.build();
			this.closing.add(0, container::stop);
			container.start();
		}
		// the pass after the start is over
		Thread.sleep(2000);
		long trims = calls("xtrim");
		Thread.sleep(3000);
		// before: 20 queues × 3 streams every 0.5 s, about 360
		long idleTrims = calls("xtrim") - trims;
		assertThat(idleTrims).isZero();
		engine.template().send("trim-3", "m", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.contains("m"));
		// the container that received trims again (its three streams, twice)
		long after = calls("xtrim");
		await().atMost(Duration.ofSeconds(10)).until(() -> calls("xtrim") - after >= 3);
	}

	/** The engine's threads by role: their names less the queue and the number. */
	private static java.util.Map<String, Long> threadRoles() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.map(Thread::getName)
			.filter((name) -> name.startsWith("delayqueue-"))
			.map((name) -> name.replaceAll("footprint-\\d+", "Q").replaceAll("-\\d+$", ""))
			.collect(java.util.stream.Collectors.groupingBy((name) -> name, java.util.TreeMap::new,
					java.util.stream.Collectors.counting()));
	}

	private static long engineThreads() {
		return Thread.getAllStackTraces()
			.keySet()
			.stream()
			.filter((thread) -> thread.getName().startsWith("delayqueue-") && thread.isAlive())
			.count();
	}

	/** How many times the server ran one command, from {@code INFO commandstats}. */
	private long calls(String command) {
		for (String line : ((String) this.redis.execute("INFO", "commandstats")).split("\r\n")) {
			if (line.startsWith("cmdstat_" + command + ":")) {
				int calls = line.indexOf("calls=");
				return Long.parseLong(line.substring(calls + 6, line.indexOf(',', calls)));
			}
		}
		return 0;
	}

	/** The commands the server ran, from {@code INFO commandstats}. */
	private long commands() {
		long total = 0;
		for (String line : ((String) this.redis.execute("INFO", "commandstats")).split("\r\n")) {
			int calls = line.indexOf("calls=");
			if (line.startsWith("cmdstat_") && calls > 0) {
				total += Long.parseLong(line.substring(calls + 6, line.indexOf(',', calls)));
			}
		}
		return total;
	}

}
