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
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueTemplate;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The scenarios of the send path alone, no listener running: {@code memory} (what the
 * scheduled messages take of Redis's memory, and {@code sendAll}'s rate) and
 * {@code sends} (single sends from many threads at once).
 */
final class SendScenarios {

	private final RedisConnectionFactory connectionFactory;

	private final Scenarios scenarios;

	SendScenarios(RedisConnectionFactory connectionFactory, Scenarios scenarios) {
		this.connectionFactory = connectionFactory;
		this.scenarios = scenarios;
	}

	/**
	 * What scheduled messages take of Redis's memory: {@code n} messages sent with
	 * {@code sendAll}, each an hour ahead; also the rate of those sends.
	 */
	Map<String, Object> memory(int n) {
		this.scenarios.flush();
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			// warm the send path up (JIT), then start from an empty database
			Scenarios.send(engine, this.scenarios.warmUpMessages(),
					(i) -> DelayMessage.builder(Scenarios.Order.sample(i))
						.queue(Scenarios.QUEUE)
						.delay(Duration.ofHours(1)));
			this.scenarios.flush();
			engine.register(Scenarios.QUEUE);
			long before = this.scenarios.usedMemory();
			long start = System.nanoTime();
			Scenarios.send(engine, n,
					(i) -> DelayMessage.builder(Scenarios.Order.sample(i))
						.queue(Scenarios.QUEUE)
						.delay(Duration.ofHours(1)));
			double sendSeconds = (System.nanoTime() - start) / 1e9;
			long after = this.scenarios.usedMemory();
			Map<String, Object> result = new LinkedHashMap<>();
			result.put("scenario", "memory");
			result.put("n", n);
			result.put("payload_bytes", Benchmark.JSON.writeValueAsBytes(Scenarios.Order.sample(0)).length);
			result.put("used_memory_before", before);
			result.put("used_memory_after", after);
			result.put("bytes_per_message", Scenarios.round((after - before) / (double) n));
			result.put("enqueue_per_s", Scenarios.round(n / sendSeconds));
			result.put("scheduled", engine.admin().stats(Scenarios.QUEUE).scheduled());
			return result;
		}
	}

	/**
	 * Single {@code send} calls from many threads at once, as a web application's request
	 * threads make them: each message scheduled an hour ahead, with a generated id.
	 */
	Map<String, Object> sends(int n, int threads) throws InterruptedException {
		this.scenarios.flush();
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			DelayQueueTemplate template = engine.template();
			// warm the send path up (JIT, connections), then start from an empty database
			sendFromThreads(template, this.scenarios.warmUpMessages(), threads);
			this.scenarios.flush();
			engine.register(Scenarios.QUEUE);
			CommandCount count = this.scenarios.countCommands();
			long start = System.nanoTime();
			sendFromThreads(template, n, threads);
			double seconds = (System.nanoTime() - start) / 1e9;
			CommandCount.CommandsRun commands = count.since();
			Map<String, Object> result = new LinkedHashMap<>();
			result.put("scenario", "sends");
			result.put("n", n);
			result.put("threads", threads);
			result.put("sends_per_s", Scenarios.round(n / seconds));
			result.put("scheduled", engine.admin().stats(Scenarios.QUEUE).scheduled());
			commands.putPerMessage(result, n);
			return result;
		}
	}

	private static void sendFromThreads(DelayQueueTemplate template, int n, int threads) throws InterruptedException {
		AtomicInteger next = new AtomicInteger();
		AtomicReference<RuntimeException> failure = new AtomicReference<>();
		List<Thread> senders = new ArrayList<>();
		for (int t = 0; t < threads; t++) {
			Thread sender = new Thread(() -> {
				try {
					for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
						template.send(DelayMessage.builder(Scenarios.Order.sample(i))
							.queue(Scenarios.QUEUE)
							.delay(Duration.ofHours(1))
							.build());
					}
				}
				catch (RuntimeException ex) {
					failure.compareAndSet(null, ex);
				}
			});
			sender.start();
			senders.add(sender);
		}
		for (Thread sender : senders) {
			sender.join();
		}
		if (failure.get() != null) {
			throw failure.get();
		}
	}

}
