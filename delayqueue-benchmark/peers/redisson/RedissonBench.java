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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RFuture;
import org.redisson.api.RedissonClient;
import org.redisson.api.redisnode.RedisNode;
import org.redisson.api.redisnode.RedisNodes;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

/**
 * Redisson's side of the delayqueue benchmark: burst ({@code RDelayedQueue.offerAsync} of N
 * messages due at one instant, CONCURRENCY threads taking them from the destination queue)
 * and memory (N messages an hour ahead). The payload is the same JSON order as the other
 * sides', with Redisson's {@code StringCodec}. Prints one JSON line.
 */
public final class RedissonBench {

	private RedissonBench() {
	}

	public static void main(String[] args) throws Exception {
		String scenario = args[0];
		int port = Integer.parseInt(args[1]);
		int n = (args.length > 2) ? Integer.parseInt(args[2]) : (scenario.equals("memory") ? 100_000 : 20_000);
		int concurrency = (args.length > 3) ? Integer.parseInt(args[3]) : 64;
		Config config = new Config();
		config.setCodec(StringCodec.INSTANCE);
		config.useSingleServer().setAddress("redis://127.0.0.1:" + port).setConnectionPoolSize(64);
		RedissonClient client = Redisson.create(config);
		try {
			RedisNode node = client.getRedisNodes(RedisNodes.SINGLE).getInstance();
			node.info(RedisNode.InfoSection.ALL);
			client.getKeys().flushdb();
			System.out.println(scenario.equals("memory") ? memory(client, node, n) : burst(client, node, n, concurrency));
			client.getKeys().flushdb();
		}
		finally {
			client.shutdown();
		}
	}

	private static String order(int i) {
		return String.format("{\"orderId\":\"ord-%08d\",\"customer\":\"acme-shop\",\"amount\":12345}", i);
	}

	private static long stat(RedisNode node, RedisNode.InfoSection section, String field) {
		Map<String, String> info = node.info(section);
		return Long.parseLong(info.get(field));
	}

	private static String burst(RedissonClient client, RedisNode node, int n, int concurrency) throws Exception {
		RBlockingQueue<String> queue = client.getBlockingQueue("bench");
		RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
		AtomicBoolean counting = new AtomicBoolean();
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicInteger acked = new AtomicInteger();
		AtomicInteger warmed = new AtomicInteger();
		AtomicLong lastAck = new AtomicLong();
		CountDownLatch done = new CountDownLatch(1);
		List<Thread> takers = new ArrayList<>();
		for (int t = 0; t < concurrency; t++) {
			Thread taker = new Thread(() -> {
				while (running.get()) {
					try {
						String message = queue.poll(200, TimeUnit.MILLISECONDS);
						if (message == null) {
							continue;
						}
						if (!counting.get()) {
							warmed.incrementAndGet();
							continue;
						}
						lastAck.set(System.currentTimeMillis());
						if (acked.incrementAndGet() == n) {
							done.countDown();
						}
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			});
			taker.start();
			takers.add(taker);
		}
		// warm-up: 2,000 due in 100 ms, taken
		List<RFuture<Void>> warm = new ArrayList<>();
		for (int i = 0; i < 2000; i++) {
			warm.add(delayed.offerAsync(order(i), 100, TimeUnit.MILLISECONDS));
		}
		for (RFuture<Void> future : warm) {
			future.toCompletableFuture().join();
		}
		while (warmed.get() < 2000) {
			Thread.sleep(100);
		}
		Thread.sleep(500);
		counting.set(true);
		long commands0 = stat(node, RedisNode.InfoSection.STATS, "total_commands_processed");
		long lead = 3000 + n / 25;
		long due = System.currentTimeMillis() + lead;
		List<RFuture<Void>> sent = new ArrayList<>(n);
		long start = System.nanoTime();
		for (int i = 0; i < n; i++) {
			sent.add(delayed.offerAsync(order(i), due - System.currentTimeMillis(), TimeUnit.MILLISECONDS));
		}
		for (RFuture<Void> future : sent) {
			future.toCompletableFuture().join();
		}
		double sendSeconds = (System.nanoTime() - start) / 1e9;
		boolean complete = done.await(lead + 120_000, TimeUnit.MILLISECONDS);
		long commands1 = stat(node, RedisNode.InfoSection.STATS, "total_commands_processed");
		running.set(false);
		for (Thread taker : takers) {
			taker.join();
		}
		delayed.destroy();
		return String.format(
				"{\"peer\":\"redisson\",\"version\":\"3.45.1\",\"scenario\":\"burst\",\"n\":%d,\"concurrency\":%d,"
						+ "\"enqueue_per_s\":%d,\"drain_per_s\":%d,\"redis_commands_per_message\":%.2f,\"complete\":%s}",
				n, concurrency, Math.round(n / sendSeconds), Math.round(acked.get() / ((lastAck.get() - due) / 1000.0)),
				(commands1 - commands0) / (double) n, complete);
	}

	private static String memory(RedissonClient client, RedisNode node, int n) {
		RBlockingQueue<String> queue = client.getBlockingQueue("bench");
		RDelayedQueue<String> delayed = client.getDelayedQueue(queue);
		long before = stat(node, RedisNode.InfoSection.MEMORY, "used_memory")
				- stat(node, RedisNode.InfoSection.MEMORY, "mem_clients_normal");
		for (int from = 0; from < n; from += 10_000) {
			List<RFuture<Void>> sent = new ArrayList<>();
			for (int i = from; i < Math.min(n, from + 10_000); i++) {
				sent.add(delayed.offerAsync(order(i), 1, TimeUnit.HOURS));
			}
			for (RFuture<Void> future : sent) {
				future.toCompletableFuture().join();
			}
		}
		long after = stat(node, RedisNode.InfoSection.MEMORY, "used_memory")
				- stat(node, RedisNode.InfoSection.MEMORY, "mem_clients_normal");
		delayed.destroy();
		return String.format("{\"peer\":\"redisson\",\"scenario\":\"memory\",\"n\":%d,\"bytes_per_message\":%.1f}", n,
				(after - before) / (double) n);
	}

}
