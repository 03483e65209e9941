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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code sustained} scenario.
 */
final class SustainedScenario {

	private final RedisConnectionFactory connectionFactory;

	private final Scenarios scenarios;

	SustainedScenario(RedisConnectionFactory connectionFactory, Scenarios scenarios) {
		this.connectionFactory = connectionFactory;
		this.scenarios = scenarios;
	}

	/**
	 * A sustained load, as a service meets it: {@code rate} messages a second for
	 * {@code seconds}, sent in chunks every 10 ms, each due 100 ms after its send, and
	 * consumed as they fall due. Reports the rate reached, the lateness, and the JVM's
	 * and Redis's CPU per message at that steady state.
	 */
	Map<String, Object> run(int rate, int seconds, int concurrency) throws InterruptedException {
		this.scenarios.flush();
		RedisClock clock = RedisClock.measure(this.connectionFactory);
		int n = rate * seconds;
		Latencies lateness = new Latencies(n);
		CountDownLatch done = new CountDownLatch(n);
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			DelayQueueListenerContainer container = Scenarios.latenessListener(engine, clock, lateness, done,
					concurrency);
			container.start();
			try {
				this.scenarios.warmUp(engine);
				long redisCpuBefore = ServerInfo.redisCpuMicros(this.connectionFactory);
				long jvmCpuBefore = ServerInfo.jvmCpuNanos();
				long start = System.nanoTime();
				int perTick = Math.max(1, rate / 100);
				int sent = 0;
				for (long tick = 0; sent < n; tick++) {
					long at = start + TimeUnit.MILLISECONDS.toNanos(10 * tick);
					long wait = at - System.nanoTime();
					if (wait > 0) {
						TimeUnit.NANOSECONDS.sleep(wait);
					}
					int from = sent;
					int count = Math.min(perTick, n - sent);
					List<DelayMessage<Scenarios.Order>> chunk = new ArrayList<>(count);
					for (int i = from; i < from + count; i++) {
						chunk.add(DelayMessage.builder(Scenarios.Order.sample(i))
							.queue(Scenarios.QUEUE)
							.delay(Duration.ofMillis(100))
							.build());
					}
					engine.template().sendAll(chunk);
					sent += count;
				}
				double sendSeconds = (System.nanoTime() - start) / 1e9;
				boolean complete = done.await(60, TimeUnit.SECONDS);
				long redisCpu = ServerInfo.redisCpuMicros(this.connectionFactory) - redisCpuBefore;
				long jvmCpu = ServerInfo.jvmCpuNanos() - jvmCpuBefore;
				Map<String, Object> result = new LinkedHashMap<>();
				result.put("scenario", "sustained");
				result.put("n", n);
				result.put("rate", rate);
				result.put("concurrency", concurrency);
				result.put("sent_per_s", Scenarios.round(n / sendSeconds));
				result.put("redis_cpu_us_per_message", Scenarios.round(redisCpu / (double) n));
				result.put("jvm_cpu_us_per_message", Scenarios.round(jvmCpu / 1000.0 / n));
				Scenarios.putLateness(result, lateness);
				result.put("complete", complete);
				return result;
			}
			finally {
				container.stop();
			}
		}
	}

}
