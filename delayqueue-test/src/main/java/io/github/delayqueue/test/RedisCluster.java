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

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.Assumptions;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A Redis Cluster of its own for a test: {@code masters} servers started with
 * {@code cluster-enabled yes} on free loopback ports, the 16384 slots split evenly
 * between them, and {@code replicasPerMaster} replicas of each, joined with
 * {@code CLUSTER MEET}, {@code CLUSTER ADDSLOTS} and {@code CLUSTER REPLICATE} (no
 * {@code redis-cli} needed). Each node is a {@link RedisServer}, so a test can kill,
 * pause or restart one. Needs a local {@code redis-server} binary: without one the test
 * is skipped (a cluster in containers would need its bus ports mapped).
 *
 * <pre class="code">
 * try (RedisCluster cluster = RedisCluster.start(3, 1)) {
 *     LettuceConnectionFactory factory = cluster.connectionFactory(Duration.ofSeconds(5));
 *     ...
 * }
 * </pre>
 */
public final class RedisCluster implements AutoCloseable {

	private static final int SLOTS = 16384;

	private final List<RedisServer> masters = new ArrayList<>();

	private final List<RedisServer> replicas = new ArrayList<>();

	private RedisCluster() {
	}

	/**
	 * Starts a cluster and waits until every node reports {@code cluster_state:ok}.
	 * @param masters how many masters (at least 1)
	 * @param replicasPerMaster how many replicas each master gets
	 * @return the running cluster
	 */
	public static RedisCluster start(int masters, int replicasPerMaster) {
		if (masters < 1 || replicasPerMaster < 0) {
			throw new IllegalArgumentException(
					"A cluster needs at least 1 master and no negative replica count, but was " + masters + " and "
							+ replicasPerMaster);
		}
		Path binary = RedisBinary.find();
		Assumptions.assumeTrue(binary != null, "A Redis Cluster needs a local redis-server binary");
		RedisCluster cluster = new RedisCluster();
		try {
			for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
				RedisServer node = RedisServer.builder()
					.binary(binary)
					.config("cluster-enabled", "yes")
					.config("cluster-node-timeout", "2000")
					.config("cluster-require-full-coverage", "no")
					.start();
				(i < masters ? cluster.masters : cluster.replicas).add(node);
			}
			cluster.assignSlots();
			cluster.meet();
			cluster.replicate(replicasPerMaster);
			cluster.awaitState();
			return cluster;
		}
		catch (RuntimeException | Error ex) {
			cluster.close();
			throw ex;
		}
	}

	private void assignSlots() {
		int count = this.masters.size();
		for (int i = 0; i < count; i++) {
			int first = SLOTS * i / count;
			int last = SLOTS * (i + 1) / count - 1;
			// ADDSLOTS (not ADDSLOTSRANGE, which is 7.0+), in chunks
			for (int start = first; start <= last; start += 1000) {
				List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
				for (int slot = start; slot <= Math.min(last, start + 999); slot++) {
					command.add(String.valueOf(slot));
				}
				this.masters.get(i).execute(command.toArray(String[]::new));
			}
		}
	}

	private void meet() {
		RedisServer first = this.masters.get(0);
		for (RedisServer node : nodes()) {
			if (node != first) {
				first.execute("CLUSTER", "MEET", node.host(), String.valueOf(node.port()));
			}
		}
		int size = nodes().size();
		await("every node knows every other", () -> nodes().stream()
			.allMatch((node) -> String.valueOf(node.execute("CLUSTER", "NODES")).strip().split("\n").length == size));
	}

	private void replicate(int replicasPerMaster) {
		for (int i = 0; i < this.replicas.size(); i++) {
			RedisServer master = this.masters.get(i / replicasPerMaster);
			String masterId = String.valueOf(master.execute("CLUSTER", "MYID"));
			this.replicas.get(i).execute("CLUSTER", "REPLICATE", masterId);
		}
	}

	private void awaitState() {
		await("cluster_state:ok on every node", () -> nodes().stream()
			.allMatch((node) -> String.valueOf(node.execute("CLUSTER", "INFO")).contains("cluster_state:ok")));
		await("every replica in sync",
				() -> this.replicas.stream().allMatch((replica) -> "up".equals(replica.info("master_link_status"))));
	}

	private static void await(String what, BooleanSupplier condition) {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		while (!condition.getAsBoolean()) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("The test cluster did not reach: " + what);
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for: " + what, ex);
			}
		}
	}

	/**
	 * @return the masters, in slot order (the first holds slot 0)
	 */
	public List<RedisServer> masters() {
		return List.copyOf(this.masters);
	}

	/**
	 * @return the replicas; replica {@code i} follows master
	 * {@code i / replicasPerMaster}
	 */
	public List<RedisServer> replicas() {
		return List.copyOf(this.replicas);
	}

	/**
	 * @return every node, masters first
	 */
	public List<RedisServer> nodes() {
		List<RedisServer> nodes = new ArrayList<>(this.masters);
		nodes.addAll(this.replicas);
		return nodes;
	}

	/**
	 * Returns the Spring Data Redis configuration of the cluster (its masters as seeds).
	 * @return the configuration
	 */
	public RedisClusterConfiguration clusterConfiguration() {
		RedisClusterConfiguration configuration = new RedisClusterConfiguration();
		this.masters.forEach((master) -> configuration.clusterNode(master.host(), master.port()));
		return configuration;
	}

	/**
	 * Creates a started Lettuce connection factory for the cluster; the caller closes it
	 * with {@code destroy()}.
	 * @param commandTimeout how long a command may take before it fails
	 * @return the factory
	 */
	public LettuceConnectionFactory connectionFactory(Duration commandTimeout) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(commandTimeout)
			.shutdownTimeout(Duration.ZERO)
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(clusterConfiguration(), client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * Stops every node and deletes their directories.
	 */
	@Override
	public void close() {
		nodes().forEach(RedisServer::close);
	}

}
