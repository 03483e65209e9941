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

package io.github.delayqueue.core.reliability;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.RedisSentinelSet;
import io.github.delayqueue.test.RedisServer;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A fault campaign: producer and consumer applications, each a JVM of its own
 * ({@link CampaignApp}), run against a Sentinel set or a Redis Cluster while faults come
 * one after another on a random schedule drawn from a printed seed (the same seed gives
 * the same faults, in the same order, with the same durations): {@code kill -9} of an
 * application (restarted after 1–3 s), an application cut off from Redis for 3–20 s,
 * {@code SIGSTOP} of a master for 2–8 s, {@code kill -9} of a master (restarted after 1–3
 * s), a planned failover, {@code CLIENT KILL TYPE normal} on a master. When the faults
 * end the producers stop, the consumers drain, and a {@link CampaignReport} checks every
 * send and every handler start.
 */
final class FaultCampaign implements AutoCloseable {

	/** The kinds of fault. */
	enum Fault {

		APP_KILL("kill -9 of an application"), APP_CUT("an application cut off from Redis"),
		MASTER_STOP("SIGSTOP of a master"), MASTER_KILL("kill -9 of a master"), PLANNED_FAILOVER("planned failover"),
		CLIENT_KILL("CLIENT KILL TYPE normal on a master");

		final String description;

		Fault(String description) {
			this.description = description;
		}

	}

	/**
	 * A fault as it happened (epoch ms).
	 *
	 * @param promoted when a replica was seen promoted, or {@code null}
	 */
	record Injected(Fault fault, long start, long end, Long promoted, String detail) {
	}

	static final String QUEUE = "campaign";

	private final Topology topology;

	private final Path directory;

	private final List<App> producers = new ArrayList<>();

	private final List<App> consumers = new ArrayList<>();

	private final List<Injected> injected = Collections.synchronizedList(new ArrayList<>());

	private final Random random;

	private final long seed;

	private FaultCampaign(Topology topology, long seed, Path directory) {
		this.topology = topology;
		this.seed = seed;
		this.random = new Random(seed);
		this.directory = directory;
	}

	/**
	 * Runs a campaign.
	 * @param topology the servers
	 * @param faulting how long faults come
	 * @param seed the schedule's seed
	 * @param producers how many producer applications
	 * @param consumers how many consumer applications
	 * @param rate sends per second of each producer
	 * @return the report
	 */
	static CampaignReport run(Topology topology, Duration faulting, long seed, int producers, int consumers, int rate)
			throws Exception {
		Path directory = Paths.get("target", "campaign", topology.name() + "-" + seed);
		deleteRecursively(directory);
		Files.createDirectories(directory);
		System.out.println("Fault campaign on " + topology.name() + ", seed " + seed + " (replay with "
				+ "-Dcampaign.seed=" + seed + "), " + faulting.toSeconds() + " s of faults; logs in " + directory);
		try (FaultCampaign campaign = new FaultCampaign(topology, seed, directory)) {
			for (int i = 0; i < consumers; i++) {
				campaign.consumers.add(new App(campaign, "consumer", "c" + i, rate));
			}
			for (int i = 0; i < producers; i++) {
				campaign.producers.add(new App(campaign, "producer", "p" + i, rate));
			}
			campaign.all().forEach(App::start);
			campaign.all().forEach(App::awaitReady);
			return campaign.run(faulting);
		}
	}

	private List<App> all() {
		List<App> all = new ArrayList<>(this.consumers);
		all.addAll(this.producers);
		return all;
	}

	private CampaignReport run(Duration faulting) throws Exception {
		long started = System.currentTimeMillis();
		long until = started + faulting.toMillis();
		Thread.sleep(2000);
		List<Fault> cycle = new ArrayList<>();
		while (System.currentTimeMillis() < until) {
			if (cycle.isEmpty()) {
				// every kind once per cycle, in a drawn order
				cycle.addAll(List.of(Fault.values()));
				Collections.shuffle(cycle, this.random);
			}
			Fault fault = cycle.remove(0);
			if (fault != Fault.APP_KILL && fault != Fault.APP_CUT && fault != Fault.CLIENT_KILL) {
				// a failover needs a replica in sync (else it would lose what it never
				// had)
				this.topology.awaitHealthy();
			}
			inject(fault);
			Thread.sleep(gap(faulting));
		}
		this.producers.forEach(App::stop);
		long stopped = System.currentTimeMillis();
		this.topology.awaitHealthy();
		// the consumers drain: the report's truth, and Redis's counts, come to rest
		LettuceConnectionFactory factory = this.topology.connectionFactory();
		try (DelayQueueEngine engine = DelayQueueEngine.builder(factory)
			.partitions(QUEUE, this.topology.partitions())
			.build()) {
			CampaignReport[] report = new CampaignReport[1];
			await(Duration.ofSeconds(120), () -> {
				report[0] = report(engine, started, stopped);
				return report[0].drained();
			});
			report[0] = report(engine, started, stopped);
			return report[0];
		}
		finally {
			factory.destroy();
		}
	}

	private CampaignReport report(DelayQueueEngine engine, long started, long stopped) {
		QueueStats stats;
		try {
			stats = engine.admin().stats(QUEUE);
		}
		catch (RuntimeException ex) {
			stats = null;
		}
		return CampaignReport.of(this.topology.name(), this.seed, started, stopped, this.directory,
				List.copyOf(this.injected), stats);
	}

	/**
	 * Between faults: 3–8 s in a short run, 5–15 s in a long one (as an operator saw).
	 */
	private long gap(Duration faulting) {
		return (faulting.toMinutes() >= 5) ? 5000 + this.random.nextInt(10_000) : 3000 + this.random.nextInt(5000);
	}

	private void inject(Fault fault) throws Exception {
		long start = System.currentTimeMillis();
		Long promoted = null;
		String detail;
		switch (fault) {
			case APP_KILL -> {
				List<App> apps = all();
				App app = apps.get(this.random.nextInt(apps.size()));
				long down = 1000 + this.random.nextInt(2000);
				app.kill();
				detail = app.name + " for " + down + " ms";
				Thread.sleep(down);
				app.start();
			}
			case APP_CUT -> {
				List<App> apps = all();
				App app = apps.get(this.random.nextInt(apps.size()));
				long cut = 3000 + this.random.nextInt(17_000);
				detail = app.name + " for " + cut + " ms";
				app.command("CUT " + cut);
				Thread.sleep(cut);
			}
			default -> {
				Topology.Outcome outcome = this.topology.inject(fault, this.random);
				promoted = outcome.promoted();
				detail = outcome.detail();
			}
		}
		Injected done = new Injected(fault, start, System.currentTimeMillis(), promoted, detail);
		this.injected.add(done);
		System.out.println("Fault " + this.injected.size() + " at " + java.time.Instant.ofEpochMilli(start) + ": "
				+ fault.description + " (" + detail + "), " + (done.end() - start) + " ms"
				+ ((promoted != null) ? ", replica promoted after " + (promoted - start) + " ms" : ""));
	}

	static void await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				return;
			}
			Thread.sleep(500);
		}
	}

	@Override
	public void close() {
		all().forEach(App::kill);
	}

	private static void deleteRecursively(Path directory) throws IOException {
		if (Files.exists(directory)) {
			try (var paths = Files.walk(directory)) {
				for (Path path : paths.sorted(Collections.reverseOrder()).toList()) {
					Files.delete(path);
				}
			}
		}
	}

	/**
	 * The servers a campaign runs against, and the faults only they can inject.
	 */
	interface Topology extends AutoCloseable {

		/** What a fault of the servers did. */
		record Outcome(Long promoted, String detail) {
		}

		String name();

		String masterName();

		List<Integer> dataPorts();

		List<Integer> sentinelPorts();

		int partitions();

		/** A started connection factory, for the campaign's own engine. */
		LettuceConnectionFactory connectionFactory();

		Outcome inject(Fault fault, Random random) throws Exception;

		/** Waits until the servers are whole again: a master, its replicas in sync. */
		void awaitHealthy();

		@Override
		void close();

	}

	/** 1 master, 1 replica, 3 Sentinels, AOF {@code always}. */
	static final class SentinelTopology implements Topology {

		private final RedisSentinelSet set = RedisSentinelSet.start("campaign", 1, 3,
				(server) -> server.appendOnly(RedisServer.AppendFsync.ALWAYS));

		@Override
		public String name() {
			return "sentinel";
		}

		@Override
		public String masterName() {
			return this.set.masterName();
		}

		@Override
		public List<Integer> dataPorts() {
			return this.set.servers().stream().map(RedisServer::port).toList();
		}

		@Override
		public List<Integer> sentinelPorts() {
			return this.set.sentinels().stream().map(RedisServer::port).toList();
		}

		@Override
		public int partitions() {
			return 4;
		}

		@Override
		public LettuceConnectionFactory connectionFactory() {
			return this.set.connectionFactory(Duration.ofSeconds(5));
		}

		@Override
		public Outcome inject(Fault fault, Random random) throws Exception {
			RedisServer master = this.set.master();
			switch (fault) {
				case MASTER_STOP -> {
					long stopped = 2000 + random.nextInt(6000);
					master.pause();
					Long promoted = promotedWithin(master, stopped);
					master.resume();
					return new Outcome(promoted, master.port() + " for " + stopped + " ms");
				}
				case MASTER_KILL -> {
					master.kill();
					this.set.awaitPromotionFrom(master);
					long promoted = System.currentTimeMillis();
					long down = 1000 + random.nextInt(2000);
					Thread.sleep(down);
					master.startAgain();
					return new Outcome(promoted, master.port() + ", restarted after " + down + " ms");
				}
				case PLANNED_FAILOVER -> {
					this.set.failover();
					return new Outcome(System.currentTimeMillis(), "SENTINEL FAILOVER from " + master.port());
				}
				default -> {
					master.execute("CLIENT", "KILL", "TYPE", "normal");
					return new Outcome(null, "on " + master.port());
				}
			}
		}

		/** Watches the Sentinels while the master is stopped: when they promoted. */
		private Long promotedWithin(RedisServer stopped, long millis) throws InterruptedException {
			long until = System.currentTimeMillis() + millis;
			Long promoted = null;
			while (System.currentTimeMillis() < until) {
				Integer named = this.set.namedMasterPort();
				if (promoted == null && named != null && named != stopped.port()) {
					promoted = System.currentTimeMillis();
				}
				Thread.sleep(100);
			}
			return promoted;
		}

		@Override
		public void awaitHealthy() {
			this.set.awaitInSync();
		}

		@Override
		public void close() {
			this.set.close();
		}

	}

	/** 3 masters, each with a replica; the queue has 12 partitions over them. */
	static final class ClusterTopology implements Topology {

		private final RedisCluster cluster = RedisCluster.start(3, 1);

		@Override
		public String name() {
			return "cluster";
		}

		@Override
		public String masterName() {
			return "-";
		}

		@Override
		public List<Integer> dataPorts() {
			return this.cluster.nodes().stream().map(RedisServer::port).toList();
		}

		@Override
		public List<Integer> sentinelPorts() {
			return List.of();
		}

		@Override
		public int partitions() {
			return 12;
		}

		@Override
		public LettuceConnectionFactory connectionFactory() {
			return this.cluster.connectionFactory(Duration.ofSeconds(5));
		}

		@Override
		public Outcome inject(Fault fault, Random random) throws Exception {
			int index = random.nextInt(3);
			RedisServer master = this.cluster.masters().get(index);
			switch (fault) {
				case MASTER_STOP -> {
					long stopped = 2000 + random.nextInt(6000);
					master.pause();
					Thread.sleep(stopped);
					master.resume();
					// past the node timeout its replica took over: it comes back as one
					awaitHealthy();
					boolean failedOver = this.cluster.masters().get(index) != master;
					return new Outcome(null,
							master.port() + " for " + stopped + " ms" + (failedOver ? ", its replica promoted" : ""));
				}
				case MASTER_KILL -> {
					this.cluster.killMaster(index);
					long promoted = System.currentTimeMillis();
					long down = 1000 + random.nextInt(2000);
					Thread.sleep(down);
					master.startAgain();
					return new Outcome(promoted, master.port() + ", restarted after " + down + " ms");
				}
				case PLANNED_FAILOVER -> {
					this.cluster.failover(index);
					return new Outcome(System.currentTimeMillis(), "CLUSTER FAILOVER of " + master.port());
				}
				default -> {
					master.execute("CLIENT", "KILL", "TYPE", "normal");
					return new Outcome(null, "on " + master.port());
				}
			}
		}

		@Override
		public void awaitHealthy() {
			for (int attempt = 1;; attempt++) {
				// a master stopped past the node timeout was failed over without this
				// class: learn who serves each group's slots first
				this.cluster.refreshRoles();
				try {
					this.cluster.awaitState();
					return;
				}
				catch (IllegalStateException ex) {
					if (attempt == 3) {
						throw ex;
					}
				}
			}
		}

		@Override
		public void close() {
			this.cluster.close();
		}

	}

	/** An application JVM, started again after a kill. */
	static final class App {

		private final FaultCampaign campaign;

		private final String mode;

		final String name;

		private final int rate;

		private final Path output;

		private Process process;

		/** When this application was killed (epoch ms). */
		final List<Long> killed = Collections.synchronizedList(new ArrayList<>());

		App(FaultCampaign campaign, String mode, String name, int rate) {
			this.campaign = campaign;
			this.mode = mode;
			this.name = name;
			this.rate = rate;
			this.output = campaign.directory.resolve(name + ".log");
		}

		synchronized void start() {
			Topology topology = this.campaign.topology;
			List<String> command = new ArrayList<>(
					List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx160m",
							"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
							CampaignApp.class.getName(), this.mode, this.name,
							topology.name().equals("cluster") ? "cluster" : "sentinel", topology.masterName(), QUEUE,
							String.valueOf(topology.partitions()), String.valueOf(this.rate),
							ports(topology.dataPorts()), ports(topology.sentinelPorts())));
			try {
				this.process = new ProcessBuilder(command).redirectErrorStream(true)
					.redirectOutput(ProcessBuilder.Redirect.appendTo(this.output.toFile()))
					.start();
			}
			catch (IOException ex) {
				throw new UncheckedIOException("Cannot start application " + this.name, ex);
			}
		}

		private static String ports(List<Integer> ports) {
			return ports.isEmpty() ? "-" : ports.stream().map(String::valueOf).collect(Collectors.joining(","));
		}

		void awaitReady() {
			try {
				await(Duration.ofSeconds(60), () -> lines().stream().anyMatch((line) -> line.startsWith("READY")));
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		List<String> lines() {
			try {
				return Files.readAllLines(this.output, StandardCharsets.UTF_8);
			}
			catch (IOException ex) {
				return List.of();
			}
		}

		synchronized void command(String line) throws IOException {
			OutputStream in = this.process.getOutputStream();
			in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
			in.flush();
		}

		synchronized void kill() {
			if (this.process != null && this.process.isAlive()) {
				this.killed.add(System.currentTimeMillis());
				this.process.destroyForcibly();
				try {
					this.process.waitFor();
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
			}
		}

		/**
		 * Stops a producer with SIGTERM: a send under way at that moment is not counted.
		 */
		synchronized void stop() {
			this.process.destroy();
			try {
				this.process.waitFor();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
