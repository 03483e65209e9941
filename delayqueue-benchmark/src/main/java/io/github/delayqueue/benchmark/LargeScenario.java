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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.stream.StreamInfo;

/**
 * The {@code large} scenario: {@code n} messages (10 million by default) sent with
 * {@code sendAll} far enough ahead to be kept in the far tier, due one after another at
 * {@code rate} per second; then the memory they take, and, consumed by a listener of
 * concurrency 64 as they come due, their lateness: whether moving the far tier's slots
 * and promoting keep up.
 */
final class LargeScenario {

	private final RedisConnectionFactory connectionFactory;

	private final Scenarios scenarios;

	LargeScenario(RedisConnectionFactory connectionFactory, Scenarios scenarios) {
		this.connectionFactory = connectionFactory;
		this.scenarios = scenarios;
	}

	Map<String, Object> run(int n, int rate) throws InterruptedException {
		this.scenarios.flush();
		RedisClock clock = RedisClock.measure(this.connectionFactory);
		Latencies lateness = new Latencies(n);
		CountDownLatch done = new CountDownLatch(n);
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			engine.register(Scenarios.QUEUE);
			long before = this.scenarios.usedMemory();
			// due after the send (estimated at 50,000/s) and 2.5 minutes more: all in the
			// far
			// tier when sent
			long first = clock.nowMillis() + 150_000 + n / 50;
			long start = System.nanoTime();
			Scenarios.send(engine, n,
					(i) -> DelayMessage.builder(Scenarios.Order.sample(i))
						.queue(Scenarios.QUEUE)
						.deliverAt(Instant.ofEpochMilli(first + i * 1000L / rate)));
			double sendSeconds = (System.nanoTime() - start) / 1e9;
			long after = this.scenarios.usedMemory();
			long scheduled = engine.admin().stats(Scenarios.QUEUE).scheduled();
			long sentAt = clock.nowMillis();
			DelayQueueListenerContainer container = engine
				.listenerContainer(Scenarios.QUEUE, "bench", Scenarios.Order.class, (order, context) -> {
					lateness.record(clock.nowMicros() - context.dueTime().toEpochMilli() * 1000);
					done.countDown();
				})
				.concurrency(64)
				.build();
			container.start();
			// every 0.5 s: how many messages are due and not yet in the stream (promotion
			// behind), and how many are in the stream and not yet read (consumption
			// behind)
			long[] behind = new long[2];
			AtomicBoolean sampling = new AtomicBoolean(true);
			Thread sampler = new Thread(() -> {
				while (sampling.get()) {
					sample(clock.nowMillis(), behind);
					try {
						Thread.sleep(500);
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			}, "large-sampler");
			sampler.start();
			try {
				long window = n * 1000L / rate;
				boolean complete = done.await(first + window + 300_000 - clock.nowMillis(), TimeUnit.MILLISECONDS);
				sampling.set(false);
				sampler.join();
				Map<String, Object> result = new LinkedHashMap<>();
				result.put("scenario", "large");
				result.put("n", n);
				result.put("due_per_s", rate);
				result.put("enqueue_seconds", Scenarios.round(sendSeconds));
				result.put("enqueue_per_s", Scenarios.round(n / sendSeconds));
				result.put("used_memory_before", before);
				result.put("used_memory_after", after);
				result.put("bytes_per_message", Scenarios.round((after - before) / (double) n));
				result.put("scheduled_after_send", scheduled);
				result.put("first_due_after_send_s", Scenarios.round((first - sentAt) / 1000.0));
				result.put("due_window_s", Scenarios.round(window / 1000.0));
				Scenarios.putLateness(result, lateness);
				result.put("most_due_not_yet_in_stream", behind[0]);
				result.put("most_in_stream_not_yet_read", behind[1]);
				result.put("complete", complete);
				return result;
			}
			finally {
				sampling.set(false);
				container.stop();
			}
		}
	}

	private void sample(long now, long[] behind) {
		QueueKeys keys = new QueueKeys("dq", Scenarios.QUEUE);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Long due = connection.zSetCommands()
				.zCount(QueueKeys.bytes(keys.delayed()), Range.closed(Double.NEGATIVE_INFINITY, (double) now));
			behind[0] = Math.max(behind[0], (due != null) ? due : 0);
			for (StreamInfo.XInfoGroup group : connection.streamCommands()
				.xInfoGroups(QueueKeys.bytes(keys.stream()))) {
				Object lag = group.getRaw().get("lag");
				if (lag instanceof Long unread) {
					behind[1] = Math.max(behind[1], unread);
				}
			}
		}
		catch (RuntimeException ex) {
			// no stream yet
		}
	}

}
