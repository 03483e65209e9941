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

package io.github.delayqueue.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code concurrency} scenario. First the cap: three instances with 16 handlers each
 * drain a backlog under a concurrency limit (handlers of 5 to 50 ms, at random); the most
 * running at once, counted at the handlers, and how busy the limit's slots were. Then the
 * cost: one instance with 64 handlers drains a burst of no-op handlers without a limit
 * and with a limit of 64 (never reached), twice each, alternating: the drain rate and the
 * Redis commands per message.
 */
final class ConcurrencyScenario {

	private final RedisConnectionFactory connectionFactory;

	private final Scenarios scenarios;

	ConcurrencyScenario(RedisConnectionFactory connectionFactory, Scenarios scenarios) {
		this.connectionFactory = connectionFactory;
		this.scenarios = scenarios;
	}

	List<Map<String, Object>> run(int n, int limit, int costN) throws InterruptedException {
		List<Map<String, Object>> results = new ArrayList<>();
		results.add(cap(n, limit));
		for (int pair = 0; pair < 2; pair++) {
			results.add(cost(costN, 0));
			results.add(cost(costN, 64));
		}
		return results;
	}

	/** Counts the handlers running at once, their most, and their busy time. */
	private static final class Running {

		final AtomicInteger now = new AtomicInteger();

		final AtomicInteger most = new AtomicInteger();

		final AtomicInteger done = new AtomicInteger();

		final AtomicLong busyNanos = new AtomicLong();

		final AtomicLong firstNanos = new AtomicLong();

		volatile long lastNanos;

		void run(long millis) throws InterruptedException {
			long start = System.nanoTime();
			this.firstNanos.compareAndSet(0, start);
			this.most.accumulateAndGet(this.now.incrementAndGet(), Math::max);
			try {
				if (millis > 0) {
					Thread.sleep(millis);
				}
			}
			finally {
				this.now.decrementAndGet();
				long end = System.nanoTime();
				this.busyNanos.addAndGet(end - start);
				this.lastNanos = end;
				this.done.incrementAndGet();
			}
		}

	}

	private Map<String, Object> cap(int n, int limit) throws InterruptedException {
		this.scenarios.flush();
		Running running = new Running();
		List<DelayQueueEngine> engines = new ArrayList<>();
		List<DelayQueueListenerContainer> containers = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				engines.add(DelayQueueEngine.builder(this.connectionFactory).build());
			}
			AtomicInteger warm = new AtomicInteger();
			DelayMessageHandler<Scenarios.Order> handler = (order, context) -> {
				if (warm.get() == 0) {
					running.run(ThreadLocalRandom.current().nextLong(5, 51));
				}
			};
			for (DelayQueueEngine engine : engines) {
				DelayQueueListenerContainer container = engine
					.listenerContainer(Scenarios.QUEUE, "bench", Scenarios.Order.class, handler)
					.concurrency(16)
					.build();
				container.start();
				containers.add(container);
			}
			warm.set(1);
			this.scenarios.warmUp(engines.get(0));
			warm.set(0);
			engines.get(0).admin().limitConcurrency(Scenarios.QUEUE, limit);
			Thread.sleep(1000);
			CommandCount commands = this.scenarios.countCommands();
			Scenarios.send(engines.get(0), n,
					(i) -> DelayMessage.builder(Scenarios.Order.sample(i)).queue(Scenarios.QUEUE).delay(Duration.ZERO));
			long deadline = System.nanoTime() + Duration.ofSeconds(n * 50L / 1000 / limit + 60).toNanos();
			while (running.done.get() < n && System.nanoTime() - deadline < 0) {
				Thread.sleep(50);
			}
			long span = running.lastNanos - running.firstNanos.get();
			Map<String, Object> result = new LinkedHashMap<>();
			result.put("scenario", "concurrency-cap");
			result.put("n", n);
			result.put("instances", 3);
			result.put("handlers_per_instance", 16);
			result.put("limit", limit);
			result.put("handled", running.done.get());
			result.put("most_running", running.most.get());
			result.put("utilisation_pct", Scenarios.round(100.0 * running.busyNanos.get() / ((double) span * limit)));
			result.put("seconds", Scenarios.round(span / 1e9));
			commands.since().putPerMessage(result, n);
			return result;
		}
		finally {
			containers.forEach(DelayQueueListenerContainer::stop);
			engines.forEach(DelayQueueEngine::close);
		}
	}

	private Map<String, Object> cost(int n, int limit) throws InterruptedException {
		this.scenarios.flush();
		Running running = new Running();
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			DelayQueueListenerContainer container = engine
				.listenerContainer(Scenarios.QUEUE, "bench", Scenarios.Order.class, (order, context) -> running.run(0))
				.concurrency(64)
				.build();
			container.start();
			try {
				this.scenarios.warmUp(engine);
				if (limit > 0) {
					engine.admin().limitConcurrency(Scenarios.QUEUE, limit);
				}
				Thread.sleep(1000);
				running.done.set(0);
				running.firstNanos.set(0);
				CommandCount commands = this.scenarios.countCommands();
				long sent = System.nanoTime();
				Scenarios.send(engine, n,
						(i) -> DelayMessage.builder(Scenarios.Order.sample(i))
							.queue(Scenarios.QUEUE)
							.delay(Duration.ZERO));
				long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
				while (running.done.get() < n && System.nanoTime() - deadline < 0) {
					Thread.sleep(5);
				}
				Map<String, Object> result = new LinkedHashMap<>();
				result.put("scenario", "concurrency-cost");
				result.put("n", n);
				result.put("limit", (limit > 0) ? limit : null);
				result.put("handled", running.done.get());
				result.put("most_running", running.most.get());
				result.put("acks_per_s", Scenarios.round(running.done.get() / ((running.lastNanos - sent) / 1e9)));
				commands.since().putPerMessage(result, n);
				return result;
			}
			finally {
				container.stop();
			}
		}
	}

}
