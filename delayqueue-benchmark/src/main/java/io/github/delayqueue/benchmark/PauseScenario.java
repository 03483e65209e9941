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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code pause} scenario: how soon every instance stops starting handlers after
 * {@code pause()} returned, and starts again after {@code resume()}.
 */
final class PauseScenario {

	private final RedisConnectionFactory connectionFactory;

	private final Scenarios scenarios;

	PauseScenario(RedisConnectionFactory connectionFactory, Scenarios scenarios) {
		this.connectionFactory = connectionFactory;
		this.scenarios = scenarios;
	}

	/**
	 * Pause under a burst: three engines (three instances) drain {@code n} messages, each
	 * handler taking 10 ms, while one of them pauses and resumes the queue {@code cycles}
	 * times. Per cycle: how long after {@code pause()} returned a handler still started
	 * on any instance (0 when none did), and how long after {@code resume()} returned the
	 * first handler started.
	 */
	Map<String, Object> run(int n, int cycles) throws InterruptedException {
		this.scenarios.flush();
		AtomicLong lastStart = new AtomicLong();
		AtomicLong firstStartAfter = new AtomicLong();
		AtomicLong resumedAt = new AtomicLong(Long.MAX_VALUE);
		List<DelayQueueEngine> engines = new ArrayList<>();
		List<DelayQueueListenerContainer> containers = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build();
				engines.add(engine);
				DelayQueueListenerContainer container = engine
					.listenerContainer(Scenarios.QUEUE, "bench", Scenarios.Order.class, (order, context) -> {
						long now = System.nanoTime();
						lastStart.accumulateAndGet(now, Math::max);
						if (now - resumedAt.get() > 0) {
							firstStartAfter.compareAndSet(0, now);
						}
						Thread.sleep(10);
					})
					.concurrency(16)
					.build();
				container.start();
				containers.add(container);
			}
			this.scenarios.warmUp(engines.get(0));
			Scenarios.send(engines.get(0), n,
					(i) -> DelayMessage.builder(Scenarios.Order.sample(i)).queue(Scenarios.QUEUE).delay(Duration.ZERO));
			List<Double> pauseLags = new ArrayList<>();
			List<Double> resumeLags = new ArrayList<>();
			for (int cycle = 0; cycle < cycles; cycle++) {
				Thread.sleep(150);
				engines.get(cycle % 3).admin().pause(Scenarios.QUEUE);
				long pausedAt = System.nanoTime();
				Thread.sleep(300);
				pauseLags.add(Math.max(0, lastStart.get() - pausedAt) / 1e6);
				firstStartAfter.set(0);
				engines.get((cycle + 1) % 3).admin().resume(Scenarios.QUEUE);
				long resumed = System.nanoTime();
				resumedAt.set(resumed);
				long deadline = resumed + TimeUnit.SECONDS.toNanos(5);
				while (firstStartAfter.get() == 0 && System.nanoTime() - deadline < 0) {
					Thread.sleep(1);
				}
				if (firstStartAfter.get() == 0) {
					// drained: nothing left to measure
					break;
				}
				resumeLags.add((firstStartAfter.get() - resumed) / 1e6);
				resumedAt.set(Long.MAX_VALUE);
			}
			Map<String, Object> result = new LinkedHashMap<>();
			result.put("scenario", "pause");
			result.put("n", n);
			result.put("instances", 3);
			result.put("cycles", resumeLags.size());
			result.put("start_after_pause_p50_ms", Scenarios.round(percentile(pauseLags, 50)));
			result.put("start_after_pause_p99_ms", Scenarios.round(percentile(pauseLags, 99)));
			result.put("start_after_pause_max_ms", Scenarios.round(percentile(pauseLags, 100)));
			result.put("first_start_after_resume_p50_ms", Scenarios.round(percentile(resumeLags, 50)));
			result.put("first_start_after_resume_max_ms", Scenarios.round(percentile(resumeLags, 100)));
			return result;
		}
		finally {
			containers.forEach(DelayQueueListenerContainer::stop);
			engines.forEach(DelayQueueEngine::close);
		}
	}

	private static double percentile(List<Double> values, int percentile) {
		if (values.isEmpty()) {
			return Double.NaN;
		}
		List<Double> sorted = values.stream().sorted().toList();
		int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
		return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
	}

}
