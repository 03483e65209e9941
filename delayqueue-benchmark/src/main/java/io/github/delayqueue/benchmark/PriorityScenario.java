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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code priority} scenario: a backlog of {@code n} due messages without priority,
 * then 100 with a priority (one {@code sendAll}): how many of the backlog start after the
 * prioritized ones are in Redis (the send returned) and before the last of them starts
 * (the target is at most twice the concurrency). The backlog keeps draining while the
 * send itself runs: those starts, which no priority can prevent, are reported apart.
 */
final class PriorityScenario {

	private static final int PRIORITIZED = 100;

	private final RedisConnectionFactory connectionFactory;

	private final Scenarios scenarios;

	PriorityScenario(RedisConnectionFactory connectionFactory, Scenarios scenarios) {
		this.connectionFactory = connectionFactory;
		this.scenarios = scenarios;
	}

	Map<String, Object> run(int n, int concurrency) throws InterruptedException {
		this.scenarios.flush();
		List<Integer> started = new CopyOnWriteArrayList<>();
		DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build();
		DelayQueueListenerContainer container = engine
			.listenerContainer(Scenarios.QUEUE, "bench", Scenarios.Order.class, (order, context) -> {
				started.add(context.id().startsWith("vip-") ? 1 : 0);
				Thread.sleep(1);
			})
			.concurrency(concurrency)
			.build();
		try {
			container.start();
			this.scenarios.warmUp(engine);
			started.clear();
			Scenarios.send(engine, n,
					(i) -> DelayMessage.builder(Scenarios.Order.sample(i)).queue(Scenarios.QUEUE).delay(Duration.ZERO));
			while (started.size() < Math.min(n / 10, 1000)) {
				Thread.sleep(1);
			}
			int before = started.size();
			long sentAt = System.nanoTime();
			Scenarios.send(engine, PRIORITIZED,
					(i) -> DelayMessage.builder(Scenarios.Order.sample(i))
						.queue(Scenarios.QUEUE)
						.id("vip-" + i)
						.priority(5)
						.delay(Duration.ZERO));
			int sent = started.size();
			long deadline = sentAt + TimeUnit.SECONDS.toNanos(60);
			while (started.stream().mapToInt(Integer::intValue).sum() < PRIORITIZED
					&& System.nanoTime() - deadline < 0) {
				Thread.sleep(1);
			}
			long lastAt = System.nanoTime();
			List<Integer> starts = new ArrayList<>(started);
			int last = starts.lastIndexOf(1);
			long whileSending = others(starts, before, Math.min(sent, last));
			long others = others(starts, sent, last);
			Map<String, Object> result = new LinkedHashMap<>();
			result.put("scenario", "priority");
			result.put("n", n);
			result.put("concurrency", concurrency);
			result.put("prioritized", PRIORITIZED);
			result.put("backlog_when_sent", n - before);
			result.put("others_started_while_sending", whileSending);
			result.put("others_started_before_last_prioritized", others);
			result.put("target", 2 * concurrency);
			result.put("prioritized_all_started_ms", Scenarios.round((lastAt - sentAt) / 1e6));
			return result;
		}
		finally {
			container.stop();
			engine.close();
		}
	}

	/** How many of the backlog started from {@code from} up to {@code to}. */
	private static long others(List<Integer> starts, int from, int to) {
		return (to <= from) ? 0 : starts.subList(from, to).stream().filter((kind) -> kind == 0).count();
	}

}
