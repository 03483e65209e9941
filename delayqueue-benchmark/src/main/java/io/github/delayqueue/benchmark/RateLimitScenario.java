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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code rate} scenario: a rate limit held in Redis for three instances draining one
 * backlog. How close the achieved rate comes to the limit, and the most handler starts in
 * any one-period sliding window (the bound: permits + burst).
 */
final class RateLimitScenario {

	/** Handlers per instance. */
	static final int CONCURRENCY = Integer.getInteger("rate.concurrency", 4);

	private final RedisConnectionFactory connectionFactory;

	private final Scenarios scenarios;

	RateLimitScenario(RedisConnectionFactory connectionFactory, Scenarios scenarios) {
		this.connectionFactory = connectionFactory;
		this.scenarios = scenarios;
	}

	/**
	 * Three engines with {@link #CONCURRENCY} handlers each drain {@code n} due messages
	 * under a limit of {@code permits} per second (burst {@code burst}); every handler
	 * start is timed.
	 */
	Map<String, Object> run(int n, int permits, int burst) throws InterruptedException {
		this.scenarios.flush();
		long[] starts = new long[n];
		AtomicInteger started = new AtomicInteger();
		List<DelayQueueEngine> engines = new ArrayList<>();
		List<DelayQueueListenerContainer> containers = new ArrayList<>();
		try {
			for (int i = 0; i < 3; i++) {
				DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build();
				engines.add(engine);
			}
			// unlimited while warming up, then limited before the backlog arrives
			for (DelayQueueEngine engine : engines) {
				DelayQueueListenerContainer container = engine
					.listenerContainer(Scenarios.QUEUE, "bench", Scenarios.Order.class, (order, context) -> {
						int index = started.getAndIncrement();
						if (index < starts.length) {
							starts[index] = System.nanoTime();
						}
					})
					.concurrency(CONCURRENCY)
					.build();
				container.start();
				containers.add(container);
			}
			this.scenarios.warmUp(engines.get(0));
			engines.get(0).admin().limitRate(Scenarios.QUEUE, new RateLimit(permits, Duration.ofSeconds(1), burst));
			// every instance has the limit once it is notified: give it the poll period
			Thread.sleep(1000);
			started.set(0);
			Scenarios.send(engines.get(0), n,
					(i) -> DelayMessage.builder(Scenarios.Order.sample(i)).queue(Scenarios.QUEUE).delay(Duration.ZERO));
			long deadline = System.nanoTime() + Duration.ofSeconds(n / permits * 3L + 30).toNanos();
			while (started.get() < n && System.nanoTime() - deadline < 0) {
				Thread.sleep(50);
			}
			int count = Math.min(n, started.get());
			long[] sorted = Arrays.copyOf(starts, count);
			Arrays.sort(sorted);
			double seconds = (sorted[count - 1] - sorted[0]) / 1e9;
			int most = 0;
			int from = 0;
			for (int to = 0; to < count; to++) {
				while (sorted[to] - sorted[from] >= 1_000_000_000L) {
					from++;
				}
				most = Math.max(most, to - from + 1);
			}
			Map<String, Object> result = new LinkedHashMap<>();
			result.put("scenario", "rate");
			result.put("n", n);
			result.put("instances", 3);
			result.put("limit_per_s", permits);
			result.put("burst", burst);
			result.put("started", count);
			// n − 1 intervals between the first and the last start
			result.put("achieved_per_s", Scenarios.round((count - 1) / seconds));
			result.put("achieved_vs_limit_pct", Scenarios.round(100.0 * (count - 1) / seconds / permits));
			result.put("most_in_any_1s_window", most);
			return result;
		}
		finally {
			containers.forEach(DelayQueueListenerContainer::stop);
			engines.forEach(DelayQueueEngine::close);
		}
	}

}
