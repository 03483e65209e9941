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

package io.github.delayqueue.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Sentinel set of its own for a test: a master, its replicas and Sentinels on free
 * loopback ports, each a {@link RedisServer} a test can kill, pause or restart. The
 * Sentinels see a master as down after 1 s and may retry a failover after 5 s.
 *
 * <pre class="code">
 * try (RedisSentinelSet set = RedisSentinelSet.start("orders", 1, 3, (server) -&gt; server)) {
 *     LettuceConnectionFactory factory = set.connectionFactory(Duration.ofSeconds(2));
 *     set.failover();   // SENTINEL FAILOVER: the replica promoted, the old master demoted
 * }
 * </pre>
 */
public final class RedisSentinelSet implements AutoCloseable {

	private static final Duration TIMEOUT = Duration.ofSeconds(60);

	private final String masterName;

	/** Every data node: the master and its replicas, in no order. */
	private final List<RedisServer> servers = new ArrayList<>();

	private final List<RedisServer> sentinels = new ArrayList<>();

	private RedisSentinelSet(String masterName) {
		this.masterName = masterName;
	}

	/**
	 * Starts a master, its replicas and the Sentinels (quorum: a majority of them), and
	 * waits until the replicas are in sync and every Sentinel knows them.
	 * @param masterName the name clients ask the Sentinels for
	 * @param replicas how many replicas (at least 1)
	 * @param sentinels how many Sentinels (at least 1)
	 * @param dataNode adds settings to each data node's builder (e.g. the AOF)
	 * @return the running set
	 */
	public static RedisSentinelSet start(String masterName, int replicas, int sentinels,
			UnaryOperator<RedisServerBuilder> dataNode) {
		RedisSentinelSet set = new RedisSentinelSet(masterName);
		try {
			RedisServer master = dataNode.apply(RedisServer.builder().config("repl-diskless-sync-delay", "0")).start();
			set.servers.add(master);
			for (int i = 0; i < replicas; i++) {
				set.servers.add(
						dataNode
							.apply(RedisServer.builder()
								.config("replicaof", master.host(), String.valueOf(master.port()))
								.config("repl-diskless-sync-delay", "0"))
							.start());
			}
			for (int i = 0; i < sentinels; i++) {
				set.sentinels.add(RedisServer.builder().sentinel(masterName, master, sentinels / 2 + 1).start());
			}
			set.awaitInSync();
			return set;
		}
		catch (RuntimeException | Error ex) {
			set.close();
			throw ex;
		}
	}

	/**
	 * Waits until one running data node is the master every Sentinel names, every other
	 * running node replicates it with its link up, and every Sentinel knows them all.
	 */
	public void awaitInSync() {
		await("one master named by every Sentinel, its replicas in sync", () -> {
			RedisServer master = master();
			for (RedisServer server : this.servers) {
				if (server != master && server.isRunning()
						&& (!"slave".equals(server.info("role")) || !"up".equals(server.info("master_link_status"))
								|| !String.valueOf(master.port()).equals(server.info("master_port")))) {
					return false;
				}
			}
			long running = this.servers.stream().filter(RedisServer::isRunning).count();
			// a Sentinel promotes only a replica it saw healthy and linked to the master
			return this.sentinels.stream()
				.filter(RedisServer::isRunning)
				.allMatch((sentinel) -> ((List<?>) sentinel.execute("SENTINEL", "REPLICAS", this.masterName)).stream()
					.map(RedisSentinelSet::fields)
					.filter((replica) -> "slave".equals(replica.get("flags"))
							&& "ok".equals(replica.get("master-link-status"))
							&& String.valueOf(master.port()).equals(replica.get("master-port")))
					.count() >= running - 1);
		});
	}

	/**
	 * Returns the data node every running Sentinel names as the master, when it runs and
	 * says it is one.
	 * @return the master
	 * @throws IllegalStateException when the Sentinels disagree or the node is not a
	 * running master (e.g. during a failover)
	 */
	public RedisServer master() {
		Integer port = null;
		for (RedisServer sentinel : this.sentinels) {
			if (!sentinel.isRunning()) {
				continue;
			}
			List<?> address = (List<?>) sentinel.execute("SENTINEL", "GET-MASTER-ADDR-BY-NAME", this.masterName);
			int named = Integer.parseInt(String.valueOf(address.get(1)));
			if (port != null && port != named) {
				throw new IllegalStateException("The Sentinels name two masters: " + port + " and " + named);
			}
			port = named;
		}
		for (RedisServer server : this.servers) {
			if (port != null && server.port() == port && server.isRunning() && "master".equals(server.info("role"))) {
				return server;
			}
		}
		throw new IllegalStateException("No running master on port " + port);
	}

	/**
	 * Returns the port of the master the running Sentinels name, asking only them (the
	 * master itself may be stalled).
	 * @return the port, or {@code null} when they disagree or none answers
	 */
	public Integer namedMasterPort() {
		Integer port = null;
		for (RedisServer sentinel : this.sentinels) {
			if (!sentinel.isRunning()) {
				continue;
			}
			try {
				List<?> address = (List<?>) sentinel.execute("SENTINEL", "GET-MASTER-ADDR-BY-NAME", this.masterName);
				int named = Integer.parseInt(String.valueOf(address.get(1)));
				if (port != null && port != named) {
					return null;
				}
				port = named;
			}
			catch (RuntimeException ex) {
				return null;
			}
		}
		return port;
	}

	/**
	 * @return the master and its replicas, running or not
	 */
	public List<RedisServer> servers() {
		return List.copyOf(this.servers);
	}

	/**
	 * @return the running data nodes that are not the master
	 */
	public List<RedisServer> replicas() {
		RedisServer master = master();
		return this.servers.stream().filter((server) -> server != master && server.isRunning()).toList();
	}

	/**
	 * @return the Sentinels
	 */
	public List<RedisServer> sentinels() {
		return List.copyOf(this.sentinels);
	}

	/**
	 * @return the name clients ask the Sentinels for
	 */
	public String masterName() {
		return this.masterName;
	}

	/**
	 * Runs {@code SENTINEL FAILOVER} (a planned failover: no agreement needed, the old
	 * master lives on and is turned into a replica) and waits until a replica is the
	 * master every Sentinel names.
	 * @return the promoted replica
	 */
	public RedisServer failover() {
		RedisServer old = master();
		awaitInSync();
		RedisServer sentinel = this.sentinels.stream().filter(RedisServer::isRunning).findFirst().orElseThrow();
		sentinel.execute("SENTINEL", "FAILOVER", this.masterName);
		return awaitPromotionFrom(old);
	}

	/**
	 * Waits until every running Sentinel names a running master other than {@code old}.
	 * @param old the master before the failover
	 * @return the new master
	 */
	public RedisServer awaitPromotionFrom(RedisServer old) {
		RedisServer[] promoted = new RedisServer[1];
		await("a master other than " + old.port(), () -> {
			RedisServer master = master();
			promoted[0] = master;
			return master != old;
		});
		return promoted[0];
	}

	/**
	 * Creates a started Lettuce connection factory that finds the master through the
	 * Sentinels; the caller closes it with {@code destroy()}.
	 * @param commandTimeout how long a command may take before it fails
	 * @return the factory
	 */
	public LettuceConnectionFactory connectionFactory(Duration commandTimeout) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(sentinelConfiguration(),
				LettuceClientConfiguration.builder()
					.commandTimeout(commandTimeout)
					.shutdownTimeout(Duration.ZERO)
					.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * @return the Spring Data Redis configuration of this set
	 */
	public RedisSentinelConfiguration sentinelConfiguration() {
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration().master(this.masterName);
		this.sentinels.forEach((sentinel) -> configuration.sentinel(sentinel.host(), sentinel.port()));
		return configuration;
	}

	private static Map<String, String> fields(Object flat) {
		List<?> list = (List<?>) flat;
		Map<String, String> fields = new HashMap<>();
		for (int i = 0; i + 1 < list.size(); i += 2) {
			fields.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
		}
		return fields;
	}

	private static void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		RuntimeException last = null;
		while (System.nanoTime() - deadline < 0) {
			try {
				if (condition.getAsBoolean()) {
					return;
				}
			}
			catch (RuntimeException ex) {
				last = ex;
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for " + what, ex);
			}
		}
		IllegalStateException timeout = new IllegalStateException("Not within " + TIMEOUT + ": " + what);
		if (last != null) {
			timeout.addSuppressed(last);
		}
		throw timeout;
	}

	/**
	 * Stops every Sentinel and data node and deletes their directories.
	 */
	@Override
	public void close() {
		this.sentinels.forEach(RedisServer::close);
		this.servers.forEach(RedisServer::close);
	}

}
