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

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Measures throughput, lateness and memory of delayqueue against a real Redis server.
 * Prints one JSON object per scenario run on standard output and a table on standard
 * error. Every scenario flushes the database first: point it at a dedicated server.
 *
 * <pre>
 * java -jar delayqueue-benchmark/target/delayqueue-benchmark.jar --redis redis://127.0.0.1:6390 --scenario burst
 * java -jar delayqueue-benchmark/target/delayqueue-benchmark.jar --cluster 127.0.0.1:7101,127.0.0.1:7102 --scenario spread
 * </pre>
 */
public final class Benchmark {

	static final JsonMapper JSON = JsonMapper.builder().build();

	/**
	 * The first argument of an instance of the footprint scenario
	 * ({@link FootprintChild}).
	 */
	static final String CHILD = "footprint-child";

	private static final String USAGE = """
			usage: java -jar delayqueue-benchmark.jar --redis redis://HOST:PORT[/DB] --scenario NAME [options]
			       java -jar delayqueue-benchmark.jar --cluster HOST:PORT,HOST:PORT,... --scenario NAME [options]
			  scenarios: burst | batch | spread | sustained | memory | sends | large | scale | idle | footprint | pause | rate | concurrency | dashboard | priority | fairness | outbox | outage | cluster | all | smoke
			  -Dbench.workers=virtual: the burst, batch, cluster, spread and sustained listeners' workers on virtual threads (Java 21+)
			  -Dbench.interceptors=N: N no-op interceptors around the burst listener's handler, and an event listener
			  batch              burst drained by a batch listener of --batch-size B (100) messages per call,
			                     --concurrency (4) batches at once, then by a listener of one message at a time
			                     (concurrency 64), in one run: drain rate, Redis commands, Redis and JVM CPU per message
			  sustained          --rate (20000) messages a second for --seconds (60), each due 100 ms after its
			                     send, consumed at concurrency 64: rate reached, lateness, JVM and Redis CPU
			                     per message at a steady state
			  sends              --n (50000) single send calls from --threads (64) threads, each message an hour
			                     ahead: sends/s, Redis commands per message
			  large              --n (10000000) messages sent far enough ahead for the far tier, due one after
			                     another at --rate (40000) per second: memory per message, enqueue time, and
			                     the lateness of their delivery (concurrency 64)
			  footprint          for each --shapes QxPxGxI (queues x partitions x groups x instances; default
			                     1x1x1x1,10x1x1x1,50x1x1x1,200x1x1x1,1x128x1x1,10x16x2x3), I JVMs of this jar, each an
			                     engine with a listener at the defaults per queue and group, idle for --seconds (30):
			                     connections (CLIENT LIST), threads, heap after GC, idle Redis commands/s and CPU,
			                     idle JVM CPU, start-up; then --n (20000) messages due over 5 s spread over every
			                     queue (after --warm-up, here 2000): JVM CPU per delivery, lateness
			                     (-Dbench.child-jvm-options="-Xmx512m ..." for the instances' JVMs)
			  pause              3 instances (16 handlers of 10 ms each) drain --n (20000) messages while the queue
			                     is paused and resumed 20 times: handler starts after pause() returned, and
			                     the first start after resume()
			  rate               3 instances (4 handlers each; -Drate.concurrency=C) drain --n (10000) messages
			                     under a rate limit of 500/s (burst 10): achieved rate, most starts in any 1 s window
			  concurrency        3 instances (16 handlers of 5-50 ms each) drain --n (20000) messages under a
			                     concurrency limit of --limit (10): most running at once, utilisation; then a burst
			                     of --cost-n (100000) no-op messages, concurrency 64, without a limit and with a
			                     limit of 64, twice each: drain rate, Redis commands per message
			  priority           a backlog of --n (10000) due messages, then 100 with a priority: how many of the
			                     backlog start after they are sent and before the last of them (concurrency 16;
			                     target 2x; the starts while the send runs are reported apart)
			  fairness           key a with a backlog of --n (10000) messages, keys b-k one each, all due at once,
			                     fair share and not: deliveries started before each of b-k's (concurrency 16;
			                     bound 11 + 6 x concurrency), drain rate
			  outbox             --n (20000) transactions from --threads (16) threads on PostgreSQL (or --database
			                     mariadb; started from the machine's packages, or --jdbc URL), each an order row and
			                     one message due at once, with sendAfterCommit and through the outbox: transactions/s,
			                     commit to delivery p99; with --seconds S, the outbox alone for S seconds: relayed
			                     rows/s against committed tx/s, rows left, lag (-Doutbox.relay-workers, -batch-size)
			  outage             a redis-server of its own (AOF always) killed for --seconds S (20) and started again,
			                     --n (3) times per client: with Lettuce's reconnect delay (to 30 s) and with the
			                     starter's (100 ms doubling to 1 s): Redis answering to the first delivery of a
			                     message that came due during the outage, and to the first send that succeeds
			  cluster            burst on a queue of --partitions P (12) partitions, concurrency 64 for all of them,
			                     with each master's share of the commands
			  --n N              messages (burst 20000, spread 2000, memory 100000, scale 1000000)
			  --concurrency C    listener concurrency (burst 64, spread 8)
			  --seconds S        idle duration (10; footprint 30); outage duration (20)
			  --shapes SHAPES    the footprint scenario's shapes, QxPxGxI,...
			  --partitions P     partitions of the cluster scenario's queue (12)
			  --warm-up W        unmeasured messages sent and consumed first (20000; smoke 1000)
			  --cluster NODES    a Redis Cluster instead of --redis (memory and command counts summed over its masters)
			Every scenario runs FLUSHDB first (on every master of a cluster): use a dedicated server.""";

	private Benchmark() {
	}

	public static void main(String[] args) throws Exception {
		if (args.length > 0 && args[0].equals(CHILD)) {
			FootprintChild.main(java.util.Arrays.copyOfRange(args, 1, args.length));
			System.exit(0);
		}
		Map<String, String> options = parse(args);
		if (options.containsKey("redis") == options.containsKey("cluster") || !options.containsKey("scenario")) {
			System.err.println(USAGE);
			System.exit(2);
		}
		LettuceConnectionFactory factory = options.containsKey("cluster") ? connectCluster(options.get("cluster"))
				: connect(options.get("redis"));
		try {
			List<Map<String, Object>> results = run(factory, options);
			for (Map<String, Object> result : results) {
				System.out.println(JSON.writeValueAsString(result));
			}
			System.err.println(table(results));
		}
		finally {
			factory.destroy();
		}
	}

	static List<Map<String, Object>> run(RedisConnectionFactory factory, Map<String, String> options) throws Exception {
		String scenario = options.get("scenario");
		int warmUp = Integer.parseInt(options.getOrDefault("warm-up", scenario.equals("smoke") ? "1000" : "20000"));
		Scenarios scenarios = new Scenarios(factory, Math.max(1000, warmUp / 1000 * 1000));
		SendScenarios sendScenarios = new SendScenarios(factory, scenarios);
		Integer n = options.containsKey("n") ? Integer.valueOf(options.get("n")) : null;
		Integer threads = options.containsKey("threads") ? Integer.valueOf(options.get("threads")) : null;
		Integer concurrency = options.containsKey("concurrency") ? Integer.valueOf(options.get("concurrency")) : null;
		Duration idle = Duration.ofSeconds(Long.parseLong(options.getOrDefault("seconds", "10")));
		List<Map<String, Object>> results = new ArrayList<>();
		switch (scenario) {
			case "burst" -> results.add(scenarios.burst(or(n, 20_000), or(concurrency, 64)));
			case "batch" -> {
				int batchSize = Integer.parseInt(options.getOrDefault("batch-size", "100"));
				results.add(scenarios.burst(or(n, 20_000), or(concurrency, 4), 1, batchSize));
				results.add(scenarios.burst(or(n, 20_000), 64, 1, 0));
			}
			case "spread" -> results.add(scenarios.spread(or(n, 2_000), or(concurrency, 8)));
			case "sustained" -> results.add(new SustainedScenario(factory, scenarios).run(
					Integer.parseInt(options.getOrDefault("rate", "20000")),
					options.containsKey("seconds") ? (int) idle.toSeconds() : 60, or(concurrency, 64)));
			case "memory" -> results.add(sendScenarios.memory(or(n, 100_000)));
			case "large" -> results.add(new LargeScenario(factory, scenarios).run(or(n, 10_000_000),
					Integer.parseInt(options.getOrDefault("rate", "40000"))));
			case "sends" -> results.add(sendScenarios.sends(or(n, 50_000), or(threads, 64)));
			case "idle" -> results.add(new IdleScenario(factory, scenarios).run(idle));
			case "footprint" -> {
				FootprintScenario footprint = new FootprintScenario(factory, options.get("redis"),
						options.get("cluster"));
				for (FootprintScenario.Shape shape : FootprintScenario.Shape
					.parse(options.getOrDefault("shapes", FootprintScenario.DEFAULT_SHAPES))) {
					Map<String, Object> result = footprint.run(shape,
							Duration.ofSeconds(Long.parseLong(options.getOrDefault("seconds", "30"))), or(n, 20_000),
							Integer.parseInt(options.getOrDefault("warm-up", "2000")));
					// each shape as it ends: a run of all of them takes minutes
					System.err.println(JSON.writeValueAsString(result));
					results.add(result);
				}
			}
			case "pause" -> results.add(new PauseScenario(factory, scenarios).run(or(n, 20_000), 20));
			case "rate" -> results.add(new RateLimitScenario(factory, scenarios).run(or(n, 10_000), 500, 10));
			case "concurrency" -> results.addAll(new ConcurrencyScenario(factory, scenarios).run(or(n, 20_000),
					Integer.parseInt(options.getOrDefault("limit", "10")),
					Integer.parseInt(options.getOrDefault("cost-n", "100000"))));
			case "dashboard" -> results.add(new DashboardScenario(factory, scenarios).run(or(n, 1_000_000)));
			case "priority" ->
				results.add(new PriorityScenario(factory, scenarios).run(or(n, 10_000), or(concurrency, 16)));
			case "fairness" ->
				results.add(new FairnessScenario(factory, scenarios).run(or(n, 10_000), or(concurrency, 16)));
			case "outage" -> results.addAll(
					new OutageScenario().run(options.containsKey("seconds") ? idle : Duration.ofSeconds(20), or(n, 3)));
			case "outbox" -> results.add(new OutboxScenario(factory, scenarios, options.get("jdbc"),
					options.getOrDefault("database", "postgresql"))
				.run(or(n, 20_000), or(threads, 16), options.containsKey("seconds") ? (int) idle.toSeconds() : 0));
			case "cluster" -> {
				int partitions = Integer.parseInt(options.getOrDefault("partitions", "12"));
				// burst's 64 handlers, shared by the partitions
				results.add(scenarios.burst(or(n, 20_000), or(concurrency, 64), partitions));
			}
			case "scale" -> results.addAll(scale(scenarios, sendScenarios, or(n, 1_000_000), or(concurrency, 64)));
			case "all" -> {
				results.add(scenarios.burst(20_000, or(concurrency, 64)));
				results.add(scenarios.spread(2_000, 8));
				results.add(sendScenarios.memory(100_000));
				results.add(new IdleScenario(factory, scenarios).run(idle));
				results.addAll(scale(scenarios, sendScenarios, 1_000_000, or(concurrency, 64)));
			}
			case "smoke" -> {
				results.add(scenarios.burst(or(n, 500), 8));
				results.add(scenarios.spread(or(n, 200), 4));
				// at least 2,000: fewer bytes than the noise of a cluster's used_memory
				// (a
				// run of 200 on 3 masters once measured -37 B per message)
				results.add(sendScenarios.memory(Math.max(2000, or(n, 1000))));
				results.add(new IdleScenario(factory, scenarios).run(Duration.ofSeconds(2)));
				// its own size: a tiny backlog would drain before the first pause
				results.add(new PauseScenario(factory, scenarios).run(3000, 3));
				results.add(new RateLimitScenario(factory, scenarios).run(600, 500, 10));
				results.addAll(new ConcurrencyScenario(factory, scenarios).run(300, 4, 500));
				// at least 1,000 scheduled: it reads the page after the first 1,000
				results.add(new DashboardScenario(factory, scenarios).run(2000));
				results.add(new PriorityScenario(factory, scenarios).run(2000, 8));
				results.add(new FairnessScenario(factory, scenarios).run(2000, 8));
				// a batch listener: batches of 50, 2 at once
				results.add(scenarios.burst(or(n, 500), 2, 1, 50));
				if (options.containsKey("jdbc") || io.github.delayqueue.test.DatabaseServer
					.isAvailable(io.github.delayqueue.test.DatabaseServer.Kind.POSTGRESQL)) {
					results.add(new OutboxScenario(factory, scenarios, options.get("jdbc"), "postgresql").run(500, 4));
					// timed: 4 writers for 2 s
					results
						.add(new OutboxScenario(factory, scenarios, options.get("jdbc"), "postgresql").run(500, 4, 2));
				}
				// 1,000 a second for 2 s
				results.add(new SustainedScenario(factory, scenarios).run(1000, 2, 8));
				results.add(sendScenarios.sends(or(n, 1000), 8));
			}
			default -> throw new IllegalArgumentException("Unknown scenario '" + scenario + "'\n" + USAGE);
		}
		return results;
	}

	private static List<Map<String, Object>> scale(Scenarios scenarios, SendScenarios sendScenarios, int n,
			int concurrency) throws Exception {
		Map<String, Object> smallBurst = scenarios.burst(20_000, concurrency);
		Map<String, Object> largeBurst = scenarios.burst(n, concurrency);
		Map<String, Object> smallMemory = sendScenarios.memory(20_000);
		Map<String, Object> largeMemory = sendScenarios.memory(n);
		Map<String, Object> summary = new LinkedHashMap<>();
		summary.put("scenario", "scale");
		summary.put("n", n);
		summary.put("drain_time_per_message_ratio",
				Scenarios.round((double) smallBurst.get("drain_per_s") / (double) largeBurst.get("drain_per_s")));
		summary.put("enqueue_time_per_message_ratio",
				Scenarios.round((double) smallBurst.get("enqueue_per_s") / (double) largeBurst.get("enqueue_per_s")));
		summary.put("memory_per_message_ratio", Scenarios
			.round((double) largeMemory.get("bytes_per_message") / (double) smallMemory.get("bytes_per_message")));
		return List.of(smallBurst, largeBurst, smallMemory, largeMemory, summary);
	}

	private static int or(Integer value, int fallback) {
		return (value != null) ? value : fallback;
	}

	static Map<String, String> parse(String[] args) {
		Map<String, String> options = new LinkedHashMap<>();
		for (int i = 0; i < args.length; i++) {
			if (!args[i].startsWith("--") || i + 1 >= args.length) {
				throw new IllegalArgumentException("Unexpected argument '" + args[i] + "'\n" + USAGE);
			}
			options.put(args[i].substring(2), args[++i]);
		}
		return options;
	}

	static LettuceConnectionFactory connect(String redisUri) {
		URI uri = URI.create(redisUri);
		if (!"redis".equals(uri.getScheme()) || uri.getHost() == null) {
			throw new IllegalArgumentException("--redis must look like redis://HOST:PORT[/DB], not " + redisUri);
		}
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(uri.getHost(),
				(uri.getPort() > 0) ? uri.getPort() : 6379);
		if (uri.getUserInfo() != null) {
			String[] user = uri.getUserInfo().split(":", 2);
			if (!user[0].isEmpty()) {
				configuration.setUsername(user[0]);
			}
			configuration.setPassword(RedisPassword.of((user.length > 1) ? user[1] : user[0]));
		}
		if (uri.getPath() != null && uri.getPath().length() > 1) {
			configuration.setDatabase(Integer.parseInt(uri.getPath().substring(1)));
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(60)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	static LettuceConnectionFactory connectCluster(String nodes) {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		for (String node : nodes.split(",")) {
			int colon = node.lastIndexOf(':');
			if (colon < 1 || colon == node.length() - 1) {
				throw new IllegalArgumentException("--cluster must look like HOST:PORT,HOST:PORT,..., not " + nodes);
			}
			configuration.clusterNode(node.substring(0, colon).trim(),
					Integer.parseInt(node.substring(colon + 1).trim()));
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(60)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	static String table(List<Map<String, Object>> results) {
		StringBuilder table = new StringBuilder();
		for (Map<String, Object> result : results) {
			table.append(String.format("%n%-10s", result.get("scenario")));
			result.forEach((key, value) -> {
				if (!key.equals("scenario")) {
					table.append(String.format("%n  %-28s %s", key, value));
				}
			});
		}
		return table.toString();
	}

}
