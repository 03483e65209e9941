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

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The benchmark scenarios with a listener, and the helpers every scenario shares
 * ({@link SendScenarios} has those of the send path alone). Each flushes the database
 * first, drives the engine the way an application would (the public template and listener
 * container), and returns its figures.
 */
final class Scenarios {

	static final String QUEUE = "bench";

	private static final int SEND_CHUNK = 10_000;

	private static final String WARM_UP = "warm-up";

	private final RedisConnectionFactory connectionFactory;

	private final int warmUpMessages;

	/**
	 * Creates the scenarios.
	 * @param connectionFactory the connection to the dedicated server
	 * @param warmUpMessages how many unmeasured messages each scenario sends and consumes
	 * first (a multiple of 1000), so that figures describe a warm JVM as a running
	 * service is
	 */
	Scenarios(RedisConnectionFactory connectionFactory, int warmUpMessages) {
		this.connectionFactory = connectionFactory;
		this.warmUpMessages = warmUpMessages;
	}

	/** The payload of every scenario: a small JSON object, decoded to this record. */
	record Order(String orderId, String customer, long amount) {

		/** An order whose JSON form is exactly 64 bytes. */
		static Order sample(int i) {
			return new Order(id(i), "acme-shop", 12345);
		}

		/** An order of the warm-up, which the scenarios do not measure. */
		static Order warmUp(int i) {
			return new Order(id(i), WARM_UP, 12345);
		}

		/** {@code ord-%08d}: {@code String.format} cost 2-3 µs, counted as the send's. */
		static String id(int i) {
			String digits = Integer.toString(i);
			return "ord-" + "00000000".substring(Math.min(8, digits.length())) + digits;
		}

		boolean isWarmUp() {
			return WARM_UP.equals(this.customer);
		}

	}

	Map<String, Object> burst(int n, int concurrency) throws InterruptedException {
		return burst(n, concurrency, 1);
	}

	/**
	 * The burst scenario on a queue of {@code partitions} partitions; on a cluster it
	 * also reports each master's share of the commands Redis executed during the run.
	 */
	Map<String, Object> burst(int n, int concurrency, int partitions) throws InterruptedException {
		return burst(n, concurrency, partitions, 0);
	}

	/**
	 * The burst scenario, drained by a batch listener of {@code batchSize} messages per
	 * call ({@code concurrency} batches at once), or, with 0, by a listener of one
	 * message at a time. Reports the Redis CPU and the JVM's process CPU per message,
	 * send to ack.
	 */
	Map<String, Object> burst(int n, int concurrency, int partitions, int batchSize) throws InterruptedException {
		flush();
		RedisClock clock = RedisClock.measure(this.connectionFactory);
		Latencies lateness = new Latencies(n);
		AtomicLong lastAck = new AtomicLong();
		AtomicInteger acked = new AtomicInteger();
		CountDownLatch done = new CountDownLatch(n);
		AtomicBoolean measuring = new AtomicBoolean();
		DelayQueueObserver observer = new DelayQueueObserver() {
			@Override
			public void acked(String queue, String group, Duration processing) {
				if (measuring.get()) {
					lastAck.accumulateAndGet(clock.nowMicros(), Math::max);
					acked.incrementAndGet();
					done.countDown();
				}
			}
		};
		try (DelayQueueEngine engine = BenchWorkers
			.events(DelayQueueEngine.builder(this.connectionFactory).observer(observer).partitions(QUEUE, partitions))
			.build()) {
			DelayQueueListenerContainer.Builder<Order> builder = (batchSize > 0)
					? engine.batchListenerContainer(QUEUE, "bench", Order.class, (orders, contexts) -> {
						if (measuring.get()) {
							long now = clock.nowMicros();
							for (DelayMessageContext context : contexts) {
								lateness.record(now - context.dueTime().toEpochMilli() * 1000);
							}
						}
					}).batchSize(batchSize)
					: engine.listenerContainer(QUEUE, "bench", Order.class, (order, context) -> {
						if (measuring.get()) {
							lateness.record(clock.nowMicros() - context.dueTime().toEpochMilli() * 1000);
						}
					});
			DelayQueueListenerContainer container = BenchWorkers.intercepted(builder, batchSize > 0)
				.concurrency(concurrency)
				.executor(BenchWorkers.executor())
				.build();
			container.start();
			try {
				warmUp(engine);
				measuring.set(true);
				List<Long> perMasterBefore = CommandCount.perMaster(this.connectionFactory);
				CommandCount count = countCommands();
				long redisCpuBefore = ServerInfo.redisCpuMicros(this.connectionFactory);
				long jvmCpuBefore = ServerInfo.jvmCpuNanos();
				long lead = 3000 + n / 25;
				Instant due = Instant.ofEpochMilli(clock.nowMillis() + lead);
				long start = System.nanoTime();
				int sentAfterDue = send(engine, n,
						(i) -> DelayMessage.builder(Order.sample(i)).queue(QUEUE).deliverAt(due));
				double sendSeconds = (System.nanoTime() - start) / 1e9;
				// the messages are due after the send ends (the lead grows with n): what
				// is
				// spent until then is the send's, what is spent after it the consumers'
				long redisCpuSent = ServerInfo.redisCpuMicros(this.connectionFactory);
				long jvmCpuSent = ServerInfo.jvmCpuNanos();
				boolean complete = done.await(lead + 120_000, TimeUnit.MILLISECONDS);
				double drainSeconds = (lastAck.get() - due.toEpochMilli() * 1000) / 1e6;
				long redisCpuAfter = ServerInfo.redisCpuMicros(this.connectionFactory);
				long jvmCpuAfter = ServerInfo.jvmCpuNanos();
				long redisCpu = redisCpuAfter - redisCpuBefore;
				long jvmCpu = jvmCpuAfter - jvmCpuBefore;
				CommandCount.CommandsRun commands = count.since();
				List<Long> perMasterAfter = CommandCount.perMaster(this.connectionFactory);
				Map<String, Object> result = new LinkedHashMap<>();
				result.put("scenario", "burst");
				result.put("n", n);
				result.put("concurrency", concurrency);
				result.put("batch_size", batchSize);
				result.put("redis_cpu_us_per_message", round(redisCpu / (double) n));
				result.put("jvm_cpu_us_per_message", round(jvmCpu / 1000.0 / n));
				if (sentAfterDue == 0) {
					result.put("jvm_cpu_send_us_per_message", round((jvmCpuSent - jvmCpuBefore) / 1000.0 / n));
					result.put("jvm_cpu_consume_us_per_message", round((jvmCpuAfter - jvmCpuSent) / 1000.0 / n));
					result.put("redis_cpu_send_us_per_message", round((redisCpuSent - redisCpuBefore) / (double) n));
					result.put("redis_cpu_consume_us_per_message", round((redisCpuAfter - redisCpuSent) / (double) n));
				}
				result.put("enqueue_per_s", round(n / sendSeconds));
				result.put("drain_per_s", round(acked.get() / drainSeconds));
				putLateness(result, lateness);
				result.put("acked", acked.get());
				result.put("complete", complete);
				result.put("sent_after_due", sentAfterDue);
				// Redis commands (those inside scripts included) per message sent and
				// acked
				commands.putPerMessage(result, n);
				result.put("partitions", partitions);
				if (perMasterAfter.size() > 1) {
					List<Double> shares = new ArrayList<>();
					for (int i = 0; i < perMasterAfter.size(); i++) {
						shares.add(round(100.0 * (perMasterAfter.get(i) - perMasterBefore.get(i)) / commands.total()));
					}
					result.put("commands_percent_per_master", shares);
				}
				return result;
			}
			finally {
				container.stop();
			}
		}
	}

	Map<String, Object> spread(int n, int concurrency) throws InterruptedException {
		flush();
		RedisClock clock = RedisClock.measure(this.connectionFactory);
		Latencies lateness = new Latencies(n);
		CountDownLatch done = new CountDownLatch(n);
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			DelayQueueListenerContainer container = latenessListener(engine, clock, lateness, done, concurrency);
			container.start();
			try {
				warmUp(engine);
				long first = clock.nowMillis() + 1000;
				send(engine, n,
						(i) -> DelayMessage.builder(Order.sample(i))
							.queue(QUEUE)
							.deliverAt(Instant.ofEpochMilli(first + (5000L * i) / n)));
				boolean complete = done.await(60, TimeUnit.SECONDS);
				Map<String, Object> result = new LinkedHashMap<>();
				result.put("scenario", "spread");
				result.put("n", n);
				result.put("concurrency", concurrency);
				putLateness(result, lateness);
				result.put("complete", complete);
				return result;
			}
			finally {
				container.stop();
			}
		}
	}

	/**
	 * A listener that records each measured message's lateness (Redis clock) and counts
	 * it down; the warm-up's messages pass unrecorded.
	 */
	static DelayQueueListenerContainer latenessListener(DelayQueueEngine engine, RedisClock clock, Latencies lateness,
			CountDownLatch done, int concurrency) {
		return engine.listenerContainer(QUEUE, "bench", Order.class, (order, context) -> {
			if (!order.isWarmUp()) {
				lateness.record(clock.nowMicros() - context.dueTime().toEpochMilli() * 1000);
				done.countDown();
			}
		}).concurrency(concurrency).executor(BenchWorkers.executor()).build();
	}

	/**
	 * Sends and awaits messages that are not measured, so that the figures describe a
	 * warm application (JIT-compiled, connections open), as a running service is. They
	 * take the measured path: generated ids, scheduled a moment ahead, promoted by the
	 * scheduler, consumed by the listener.
	 */
	void warmUp(DelayQueueEngine engine) throws InterruptedException {
		for (int from = 0; from < this.warmUpMessages; from += 1000) {
			List<DelayMessage<Order>> batch = new ArrayList<>();
			for (int i = from; i < from + 1000; i++) {
				batch.add(DelayMessage.builder(Order.warmUp(i)).queue(QUEUE).delay(Duration.ofMillis(100)).build());
			}
			engine.template().sendAll(batch);
		}
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
		while (System.nanoTime() < deadline) {
			QueueStats stats = engine.admin().stats(QUEUE);
			if (stats.scheduled() == 0 && stats.inFlight() == 0
					&& (stats.ready() == 0 || (stats.ready() < 0 && everyGroupReadToTheEnd(engine)))) {
				return;
			}
			Thread.sleep(50);
		}
		throw new IllegalStateException("Warm-up messages were not consumed within 60s");
	}

	/**
	 * Whether every group has read the queue's stream to its last entry: what
	 * {@link QueueStats#ready()} tells on Redis 7, read from the entry ids where it is -1
	 * (Redis 6.2 reports no group lag).
	 */
	private boolean everyGroupReadToTheEnd(DelayQueueEngine engine) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (QueueKeys keys : engine.partitionKeys(QUEUE)) {
				byte[] stream = keys.stream().getBytes(StandardCharsets.UTF_8);
				String last = connection.streamCommands().xInfo(stream).lastGeneratedId();
				if (!connection.streamCommands()
					.xInfoGroups(stream)
					.stream()
					.allMatch((group) -> last.equals(group.lastDeliveredId()))) {
					return false;
				}
			}
			return true;
		}
	}

	interface MessageFactory {

		DelayMessage.Builder<Order> create(int i);

	}

	static int send(DelayQueueEngine engine, int n, MessageFactory factory) {
		int ready = 0;
		for (int from = 0; from < n; from += SEND_CHUNK) {
			List<DelayMessage<Order>> chunk = new ArrayList<>(SEND_CHUNK);
			for (int i = from; i < Math.min(n, from + SEND_CHUNK); i++) {
				chunk.add(factory.create(i).build());
			}
			for (SendResult result : engine.template().sendAll(chunk)) {
				if (result.status() == SendResult.Status.READY) {
					ready++;
				}
			}
		}
		return ready;
	}

	static void putLateness(Map<String, Object> result, Latencies lateness) {
		result.put("lateness_p50_ms", round(lateness.percentileMillis(50)));
		result.put("lateness_p99_ms", round(lateness.percentileMillis(99)));
		result.put("lateness_max_ms", round(lateness.percentileMillis(100)));
		result.put("lateness_min_ms", round(lateness.minMillis()));
		result.put("received", lateness.count());
	}

	int warmUpMessages() {
		return this.warmUpMessages;
	}

	void flush() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.serverCommands().flushDb();
		}
	}

	/**
	 * The memory Redis has allocated, less its clients' buffers: a client's query buffer
	 * grown by a large script call shrinks again when the client idles, which on a small
	 * run outweighs the messages themselves.
	 */
	long usedMemory() {
		return CommandCount.sum(ServerInfo.perMaster(this.connectionFactory, "memory",
				(info) -> Long.parseLong(info.getProperty("used_memory"))
						- Long.parseLong(info.getProperty("mem_clients_normal"))));
	}

	/**
	 * Starts counting the Redis commands run (those inside scripts included).
	 * @return the count, read with {@link CommandCount#since()}
	 */
	CommandCount countCommands() {
		return new CommandCount(this.connectionFactory);
	}

	static double round(double value) {
		return Math.round(value * 100) / 100.0;
	}

}
