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

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code fairness} scenario: key "a" with a backlog of {@code n} messages and keys
 * "b" to "k" with one message each, all due at one instant (their ids sort after a's, so
 * due order alone would hand them out last), on a fair-share queue: how many deliveries
 * start before each of b to k's (the bound of docs/fairness.md: 11 keys + 6 ×
 * concurrency), and the drain rate, against the same run on a queue without fair share.
 */
final class FairnessScenario {

	private static final List<String> OTHER_KEYS = List.of("b", "c", "d", "e", "f", "g", "h", "i", "j", "k");

	private final RedisConnectionFactory connectionFactory;

	private final Scenarios scenarios;

	FairnessScenario(RedisConnectionFactory connectionFactory, Scenarios scenarios) {
		this.connectionFactory = connectionFactory;
		this.scenarios = scenarios;
	}

	Map<String, Object> run(int n, int concurrency) throws InterruptedException {
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("scenario", "fairness");
		result.put("n", n);
		result.put("concurrency", concurrency);
		result.put("keys", OTHER_KEYS.size() + 1);
		result.put("target", OTHER_KEYS.size() + 1 + 6 * concurrency);
		for (boolean fair : new boolean[] { true, false }) {
			String prefix = fair ? "fair_" : "plain_";
			Run run = run(n, concurrency, fair);
			List<Integer> positions = new ArrayList<>(run.positions());
			positions.sort(Integer::compare);
			result.put(prefix + "complete", run.complete());
			result.put(prefix + "starts_before_other_keys_max", positions.get(positions.size() - 1));
			result.put(prefix + "starts_before_other_keys_median", positions.get(positions.size() / 2));
			result.put(prefix + "drain_per_s", Scenarios.round((n + OTHER_KEYS.size()) / run.drainSeconds()));
		}
		return result;
	}

	private Run run(int n, int concurrency, boolean fair) throws InterruptedException {
		this.scenarios.flush();
		List<String> started = new CopyOnWriteArrayList<>();
		long[] lastStart = new long[1];
		DelayQueueEngine engine = (fair ? DelayQueueEngine.builder(this.connectionFactory).fairShare(Scenarios.QUEUE)
				: DelayQueueEngine.builder(this.connectionFactory))
			.build();
		DelayQueueListenerContainer container = engine
			.listenerContainer(Scenarios.QUEUE, "bench", Scenarios.Order.class, (order, context) -> {
				if (!order.isWarmUp()) {
					started.add(context.id());
					lastStart[0] = System.nanoTime();
				}
			})
			.concurrency(concurrency)
			.build();
		try {
			container.start();
			this.scenarios.warmUp(engine);
			long lead = 2000 + n / 20;
			Instant due = Instant.ofEpochMilli(System.currentTimeMillis() + lead);
			int total = n + OTHER_KEYS.size();
			Scenarios.send(engine, total, (i) -> {
				boolean other = i >= n;
				String key = other ? OTHER_KEYS.get(i - n) : "a";
				return DelayMessage.builder(Scenarios.Order.sample(i))
					.queue(Scenarios.QUEUE)
					.id(other ? "z-" + key : String.format("a-%08d", i))
					.key(key)
					.deliverAt(due);
			});
			long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(lead) + TimeUnit.SECONDS.toNanos(120);
			while (started.size() < total && System.nanoTime() - deadline < 0) {
				Thread.sleep(5);
			}
			long dueNanos = System.nanoTime()
					- TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis() - due.toEpochMilli());
			List<Integer> positions = new ArrayList<>();
			for (String key : OTHER_KEYS) {
				positions.add(started.indexOf("z-" + key));
			}
			return new Run(started.size() == total, positions, (lastStart[0] - dueNanos) / 1e9);
		}
		finally {
			container.stop();
			engine.close();
		}
	}

	private record Run(boolean complete, List<Integer> positions, double drainSeconds) {
	}

}
