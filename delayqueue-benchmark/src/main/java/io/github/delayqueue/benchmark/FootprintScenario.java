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
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueEngineBuilder;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code footprint} scenario: what an application with many queues costs when it does
 * nothing, and per message under a load spread over all of them. For each shape Q×P×G×I
 * (queues × partitions × consumer groups × instances) it starts I {@link FootprintChild}
 * JVMs, each an engine with one listener at the defaults per queue and group, lets them
 * idle, and reports what the servers and the instances saw: the connections
 * ({@code CLIENT LIST}, this JVM's left out), live threads and heap after GC per
 * instance, Redis commands and CPU a second ({@code INFO commandstats}, {@code INFO
 * cpu}), each instance's CPU, the start-up time; then sends --n messages due over 5 s,
 * spread over every queue, and reports the instances' CPU per delivery and the lateness.
 */
final class FootprintScenario {

	/** The shapes run when none is given: those of issue 59 on a single server. */
	static final String DEFAULT_SHAPES = "1x1x1x1,10x1x1x1,50x1x1x1,200x1x1x1,1x128x1x1,10x16x2x3";

	/** Start-up's own commands (creating groups, the first sweeps) are not idle cost. */
	private static final Duration SETTLE = Duration.ofSeconds(3);

	private final RedisConnectionFactory connectionFactory;

	private final String redisUri;

	private final String clusterNodes;

	/**
	 * Creates the scenario.
	 * @param connectionFactory this JVM's connection, which sends the load
	 * @param redisUri the single server the instances connect to, or {@code null}
	 * @param clusterNodes the cluster's seed nodes, or {@code null}
	 */
	FootprintScenario(RedisConnectionFactory connectionFactory, String redisUri, String clusterNodes) {
		this.connectionFactory = connectionFactory;
		this.redisUri = redisUri;
		this.clusterNodes = clusterNodes;
	}

	static String queue(int index) {
		return "fp-" + index;
	}

	/**
	 * A shape of the scenario.
	 *
	 * @param queues Q
	 * @param partitions P, of each queue
	 * @param groups G, consumer groups of each queue
	 * @param instances I, JVMs
	 */
	record Shape(int queues, int partitions, int groups, int instances) {

		static List<Shape> parse(String shapes) {
			List<Shape> parsed = new ArrayList<>();
			for (String shape : shapes.split(",")) {
				String[] figures = shape.trim().toLowerCase().split("x");
				if (figures.length != 4) {
					throw new IllegalArgumentException("A shape is QxPxGxI (e.g. 10x16x2x3), not " + shape);
				}
				parsed.add(new Shape(Integer.parseInt(figures[0]), Integer.parseInt(figures[1]),
						Integer.parseInt(figures[2]), Integer.parseInt(figures[3])));
			}
			return parsed;
		}

		@Override
		public String toString() {
			return this.queues + "x" + this.partitions + "x" + this.groups + "x" + this.instances;
		}

	}

	/**
	 * Runs one shape.
	 * @param shape the shape
	 * @param idle the idle window
	 * @param n the messages of the spread load (0 for none)
	 * @param warmUp unmeasured messages sent and consumed before it
	 * @return the figures
	 */
	Map<String, Object> run(Shape shape, Duration idle, int n, int warmUp) throws Exception {
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("scenario", "footprint");
		result.put("shape", shape.toString());
		try (RedisProbe probe = new RedisProbe(this.redisUri, this.clusterNodes)) {
			probe.flush();
			result.put("masters", probe.masters());
			Set<String> before = probe.clientIds();
			List<FootprintInstance> instances = new ArrayList<>();
			try {
				for (int i = 0; i < shape.instances(); i++) {
					instances.add(FootprintInstance.start(childArguments(shape, n, warmUp)));
				}
				List<Map<String, Object>> ready = new ArrayList<>();
				for (FootprintInstance instance : instances) {
					ready.add(instance.await("READY", 300));
				}
				// connecting (and the JVM's class loading) apart from the engine and its
				// listeners
				result.put("startup_ms", each(ready, "startup_ms"));
				result.put("listeners_ready_ms", each(ready, "listeners_ready_ms"));
				result.put("jvm_uptime_at_ready_ms", each(ready, "jvm_uptime_ms"));
				Thread.sleep(SETTLE.toMillis());
				measureIdle(probe, instances, idle, result);
				Set<String> clients = probe.clientIds();
				clients.removeAll(before);
				result.put("connections", clients.size());
				List<Map<String, Object>> gc = ask(instances, "GC");
				result.put("heap_after_gc_mb", each(gc, (figures) -> number(figures, "heap_after_gc") >> 20));
				result.put("peak_threads", each(gc, "peak_threads"));
				if (n > 0) {
					try {
						measureLoad(probe, instances, shape, n, warmUp, result);
					}
					catch (RuntimeException ex) {
						// the idle figures stand without it
						result.put("load_error", ex.toString());
					}
				}
			}
			finally {
				for (FootprintInstance instance : instances) {
					instance.close();
				}
			}
		}
		return result;
	}

	private List<String> childArguments(Shape shape, int n, int warmUp) {
		List<String> arguments = new ArrayList<>();
		if (this.clusterNodes != null) {
			arguments.addAll(List.of("--cluster", this.clusterNodes));
		}
		else {
			arguments.addAll(List.of("--redis", this.redisUri));
		}
		arguments.addAll(
				List.of("--queues", String.valueOf(shape.queues()), "--partitions", String.valueOf(shape.partitions()),
						"--groups", String.valueOf(shape.groups()), "--n", String.valueOf(Math.max(n, warmUp))));
		return arguments;
	}

	/**
	 * The idle window: commands, Redis CPU and each instance's CPU, counted from its
	 * start to its end. The probe's own first {@code INFO} on each master falls inside it
	 * and is left out.
	 */
	private void measureIdle(RedisProbe probe, List<FootprintInstance> instances, Duration idle,
			Map<String, Object> result) throws Exception {
		RedisProbe.Reading start = probe.read();
		List<Map<String, Object>> cpuStart = ask(instances, "SAMPLE");
		long startNanos = System.nanoTime();
		Thread.sleep(idle.toMillis());
		List<Map<String, Object>> cpuEnd = ask(instances, "SAMPLE");
		RedisProbe.Reading end = probe.read();
		double seconds = (System.nanoTime() - startNanos) / 1e9;
		Map<String, Long> startCalls = start.calls();
		Map<String, Long> endCalls = end.calls();
		Map<String, Double> perCommand = new TreeMap<>();
		long calls = 0;
		for (Map.Entry<String, Long> entry : endCalls.entrySet()) {
			long delta = entry.getValue() - startCalls.getOrDefault(entry.getKey(), 0L);
			if (entry.getKey().equals("info")) {
				delta -= probe.masters();
			}
			calls += delta;
			if (delta / seconds >= 0.05) {
				perCommand.put(entry.getKey(), round(delta / seconds));
			}
		}
		result.put("idle_seconds", round(seconds));
		result.put("threads_per_instance", each(cpuEnd, "threads"));
		result.put("idle_commands_per_s", round(calls / seconds));
		result.put("idle_top_level_commands_per_s",
				round((end.processed() - start.processed() - probe.masters()) / seconds));
		result.put("idle_redis_cpu_percent", round((end.cpuMicros() - start.cpuMicros()) / 1e4 / seconds));
		List<Double> jvmCpu = new ArrayList<>();
		for (int i = 0; i < instances.size(); i++) {
			jvmCpu.add(round((number(cpuEnd.get(i), "cpu_ns") - number(cpuStart.get(i), "cpu_ns")) / 1e7 / seconds));
		}
		result.put("idle_jvm_cpu_percent_per_instance", jvmCpu);
		result.put("idle_calls_per_s_by_command", perCommand);
	}

	/**
	 * The spread load: a warm-up of unmeasured messages due in 100 ms, then --n messages
	 * due over 5 s from 1 s ahead, message i on queue i mod Q, sent by this JVM. Reports
	 * the instances' CPU and Redis's from the first send to the last delivery, per
	 * delivery (a message is delivered once per group), and the lateness.
	 */
	private void measureLoad(RedisProbe probe, List<FootprintInstance> instances, Shape shape, int n, int warmUp,
			Map<String, Object> result) throws Exception {
		// the sends of a busy machine may take longer than the default 2 s
		DelayQueueEngineBuilder builder = DelayQueueEngine.builder(this.connectionFactory)
			.operationTimeout(Duration.ofSeconds(30));
		for (int q = 0; q < shape.queues(); q++) {
			builder.partitions(queue(q), shape.partitions());
		}
		try (DelayQueueEngine engine = builder.build()) {
			Scenarios.send(engine, warmUp,
					(i) -> DelayMessage.builder(Scenarios.Order.warmUp(i))
						.queue(queue(i % shape.queues()))
						.delay(Duration.ofMillis(100)));
			awaitDeliveries(instances, "warm_up", (long) warmUp * shape.groups(), 120);
			RedisClock clock = RedisClock.measure(this.connectionFactory);
			RedisProbe.Reading start = probe.read();
			long jvmStart = sum(ask(instances, "COUNTS"), "cpu_ns");
			long startNanos = System.nanoTime();
			long first = clock.nowMillis() + 1000 + n / 20;
			Scenarios.send(engine, n,
					(i) -> DelayMessage.builder(Scenarios.Order.sample(i))
						.queue(queue(i % shape.queues()))
						.deliverAt(Instant.ofEpochMilli(first + (5000L * i) / n)));
			long deliveries = (long) n * shape.groups();
			List<Map<String, Object>> counts = awaitDeliveries(instances, "measured", deliveries, 120);
			RedisProbe.Reading end = probe.read();
			long jvm = sum(counts, "cpu_ns") - jvmStart;
			double seconds = (System.nanoTime() - startNanos) / 1e9;
			// what the instances would have spent idle over the same window
			double idleNanos = 0;
			for (Object percent : (List<?>) result.get("idle_jvm_cpu_percent_per_instance")) {
				idleNanos += ((Number) percent).doubleValue() / 100 * seconds * 1e9;
			}
			Latencies lateness = new Latencies((int) deliveries);
			for (Map<String, Object> figures : ask(instances, "LATENESS")) {
				for (Object micros : (List<?>) figures.get("micros")) {
					lateness.record(((Number) micros).longValue());
				}
			}
			result.put("n", n);
			result.put("deliveries", deliveries);
			result.put("complete", sum(counts, "measured") >= deliveries);
			result.put("load_seconds", round(seconds));
			result.put("jvm_cpu_us_per_delivery", round(jvm / 1000.0 / deliveries));
			result.put("jvm_cpu_us_per_delivery_less_idle", round((jvm - idleNanos) / 1000.0 / deliveries));
			result.put("redis_cpu_us_per_delivery", round((end.cpuMicros() - start.cpuMicros()) / (double) deliveries));
			Scenarios.putLateness(result, lateness);
		}
	}

	private static List<Map<String, Object>> awaitDeliveries(List<FootprintInstance> instances, String field,
			long expected, int seconds) throws Exception {
		long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
		while (true) {
			List<Map<String, Object>> counts = ask(instances, "COUNTS");
			if (sum(counts, field) >= expected || System.nanoTime() > deadline) {
				return counts;
			}
			Thread.sleep(100);
		}
	}

	private static List<Map<String, Object>> ask(List<FootprintInstance> instances, String command) throws Exception {
		List<Map<String, Object>> replies = new ArrayList<>();
		for (FootprintInstance instance : instances) {
			replies.add(instance.ask(command));
		}
		return replies;
	}

	private static long number(Map<String, Object> figures, String field) {
		return ((Number) figures.get(field)).longValue();
	}

	private static long sum(List<Map<String, Object>> replies, String field) {
		return replies.stream().mapToLong((figures) -> number(figures, field)).sum();
	}

	private static List<Object> each(List<Map<String, Object>> replies, String field) {
		return each(replies, (figures) -> figures.get(field));
	}

	private static <R> List<Object> each(List<Map<String, Object>> replies,
			java.util.function.Function<Map<String, Object>, R> value) {
		List<Object> values = new ArrayList<>();
		replies.forEach((figures) -> values.add(value.apply(figures)));
		return values;
	}

	static double round(double value) {
		return Scenarios.round(value);
	}

}
