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

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueEngineBuilder;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One instance of the {@code footprint} scenario, run in a JVM of its own by
 * {@link FootprintScenario}: an engine with one listener at the defaults for each of its
 * queues and groups, which answers the parent's commands on standard input with one line
 * each on standard output ({@value #PREFIX} and a JSON object). It exits when its
 * standard input closes, so that it never outlives the parent.
 */
final class FootprintChild {

	static final String PREFIX = "FOOTPRINT ";

	private final Map<String, String> options;

	private final AtomicLong warmUp = new AtomicLong();

	private final Latencies lateness;

	private FootprintChild(Map<String, String> options) {
		this.options = options;
		this.lateness = new Latencies(
				Integer.parseInt(options.get("n")) * Integer.parseInt(options.get("groups")) + 1000);
	}

	/**
	 * Runs an instance.
	 * @param args {@code --redis URI} or {@code --cluster NODES}, {@code --queues Q},
	 * {@code --partitions P}, {@code --groups G}, {@code --n N} (the measured messages)
	 * @throws Exception if the instance fails
	 */
	static void main(String[] args) throws Exception {
		new FootprintChild(Benchmark.parse(args)).run();
	}

	private void run() throws Exception {
		int queues = Integer.parseInt(this.options.get("queues"));
		int partitions = Integer.parseInt(this.options.get("partitions"));
		int groups = Integer.parseInt(this.options.get("groups"));
		long start = System.nanoTime();
		LettuceConnectionFactory factory = this.options.containsKey("cluster")
				? Benchmark.connectCluster(this.options.get("cluster")) : Benchmark.connect(this.options.get("redis"));
		RedisClock clock = RedisClock.measure(factory);
		long connected = System.nanoTime();
		DelayQueueEngineBuilder builder = DelayQueueEngine.builder(factory);
		for (int q = 0; q < queues; q++) {
			builder.partitions(FootprintScenario.queue(q), partitions);
		}
		List<DelayQueueListenerContainer> containers = new ArrayList<>();
		try (DelayQueueEngine engine = builder.build()) {
			for (int q = 0; q < queues; q++) {
				for (int g = 0; g < groups; g++) {
					DelayQueueListenerContainer container = engine.listenerContainer(FootprintScenario.queue(q),
							"g" + g, Scenarios.Order.class, (order, context) -> {
								if (order.isWarmUp()) {
									this.warmUp.incrementAndGet();
								}
								else {
									this.lateness.record(clock.nowMicros() - context.dueTime().toEpochMilli() * 1000);
								}
							})
						.build();
					container.start();
					containers.add(container);
				}
			}
			Map<String, Object> ready = new LinkedHashMap<>();
			long now = System.nanoTime();
			ready.put("startup_ms", FootprintScenario.round((now - start) / 1e6));
			ready.put("listeners_ready_ms", FootprintScenario.round((now - connected) / 1e6));
			ready.put("jvm_uptime_ms", ManagementFactory.getRuntimeMXBean().getUptime());
			reply("READY", ready);
			answer();
			for (DelayQueueListenerContainer container : containers) {
				container.stop();
			}
		}
		finally {
			factory.destroy();
		}
	}

	/** Answers the parent's commands until it says STOP or its end of input. */
	private void answer() throws Exception {
		BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		String command;
		while ((command = in.readLine()) != null) {
			Map<String, Object> figures = new LinkedHashMap<>();
			switch (command.trim()) {
				case "SAMPLE" -> {
					figures.put("cpu_ns", ServerInfo.jvmCpuNanos());
					figures.put("threads", ManagementFactory.getThreadMXBean().getThreadCount());
				}
				case "GC" -> {
					System.gc();
					System.gc();
					figures.put("heap_after_gc", ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
					figures.put("threads", ManagementFactory.getThreadMXBean().getThreadCount());
					figures.put("peak_threads", ManagementFactory.getThreadMXBean().getPeakThreadCount());
				}
				case "COUNTS" -> {
					figures.put("warm_up", this.warmUp.get());
					figures.put("measured", this.lateness.count());
					figures.put("cpu_ns", ServerInfo.jvmCpuNanos());
				}
				case "LATENESS" -> figures.put("micros", this.lateness.values());
				case "STOP" -> {
					reply("STOPPING", figures);
					return;
				}
				default -> figures.put("error", "unknown command " + command);
			}
			reply(command.trim(), figures);
		}
		System.exit(3); // the parent is gone
	}

	private static void reply(String what, Map<String, Object> figures) {
		figures.put("reply", what);
		System.out.println(PREFIX + Benchmark.JSON.writeValueAsString(figures));
		System.out.flush();
	}

}
