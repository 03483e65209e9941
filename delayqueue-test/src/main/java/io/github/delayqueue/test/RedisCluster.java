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
import java.util.stream.Stream;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
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

	static final int SLOTS = 16384;

	/**
	 * The nodes' {@code cluster-node-timeout}: a master unreachable for this long is
	 * failed over to a replica.
	 */
	public static final Duration NODE_TIMEOUT = Duration.ofSeconds(2);

	private final List<RedisServer> masters = new ArrayList<>();

	/** The replicas of master {@code i}, at index {@code i}. */
	private final List<List<RedisServer>> replicas = new ArrayList<>();

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
			for (int i = 0; i < masters; i++) {
				cluster.masters.add(ClusterFormation.startNode(binary));
				cluster.replicas.add(new ArrayList<>());
			}
			for (int i = 0; i < masters * replicasPerMaster; i++) {
				cluster.replicas.get(i / replicasPerMaster).add(ClusterFormation.startNode(binary));
			}
			ClusterFormation.form(cluster.masters, cluster.replicas);
			cluster.awaitState();
			return cluster;
		}
		catch (RuntimeException | Error ex) {
			cluster.close();
			throw ex;
		}
	}

	/**
	 * Waits until every running node reports {@code cluster_state:ok} and knows the owner
	 * of every slot, and every running replica is in sync with its master. (With
	 * {@code cluster-require-full-coverage no} a node is {@code ok} before gossip told it
	 * who owns the other masters' slots; a client reading the topology from it then
	 * cannot route to them.)
	 */
	public void awaitState() {
		await("cluster_state:ok and every slot known on every running node", () -> running().allMatch((node) -> {
			String info = String.valueOf(node.execute("CLUSTER", "INFO"));
			return info.contains("cluster_state:ok") && info.contains("cluster_slots_assigned:" + SLOTS);
		}));
		await("every running replica in sync", () -> running().filter((node) -> !this.masters.contains(node))
			.allMatch((replica) -> "up".equals(replica.info("master_link_status"))));
	}

	private Stream<RedisServer> running() {
		return nodes().stream().filter(RedisServer::isRunning);
	}

	/**
	 * Fails master {@code index} over as a crash would: kills it ({@code SIGKILL}) and
	 * waits until the cluster promoted one of its replicas (after {@link #NODE_TIMEOUT})
	 * and every running node is {@code ok} again. The promoted replica takes the master's
	 * place in {@link #masters()}; the killed node becomes one of its replicas, and
	 * {@link RedisServer#startAgain()} brings it back as one.
	 * @param index the master's index in {@link #masters()}
	 * @return the promoted replica
	 */
	public RedisServer killMaster(int index) {
		RedisServer master = this.masters.get(index);
		requireReplica(index);
		master.kill();
		return awaitPromotion(index, master);
	}

	/**
	 * Fails master {@code index} over without losing a write: {@code CLUSTER FAILOVER} on
	 * its first replica, once that replica finished its synchronization; it waits until
	 * it caught up before it takes over.
	 * @param index the master's index in {@link #masters()}
	 * @return the promoted replica
	 */
	public RedisServer failover(int index) {
		RedisServer master = this.masters.get(index);
		RedisServer replica = requireReplica(index);
		// a replica still in its first synchronization (a restarted node) would take over
		// without the data
		await("the replica of master " + index + " in sync", () -> "up".equals(replica.info("master_link_status")));
		replica.execute("CLUSTER", "FAILOVER");
		return awaitPromotion(index, master);
	}

	private RedisServer requireReplica(int index) {
		List<RedisServer> candidates = this.replicas.get(index);
		if (candidates.stream().noneMatch(RedisServer::isRunning)) {
			throw new IllegalStateException("Master " + index + " has no running replica to fail over to");
		}
		return candidates.stream().filter(RedisServer::isRunning).findFirst().orElseThrow();
	}

	private RedisServer awaitPromotion(int index, RedisServer oldMaster) {
		List<RedisServer> candidates = this.replicas.get(index);
		RedisServer[] promoted = new RedisServer[1];
		await("a replica of master " + index + " promoted", () -> {
			for (RedisServer replica : candidates) {
				if (replica.isRunning() && "master".equals(replica.info("role"))) {
					promoted[0] = replica;
					return true;
				}
			}
			return false;
		});
		candidates.remove(promoted[0]);
		candidates.add(oldMaster);
		this.masters.set(index, promoted[0]);
		await("cluster_state:ok on every running node", () -> running()
			.allMatch((node) -> String.valueOf(node.execute("CLUSTER", "INFO")).contains("cluster_state:ok")));
		return promoted[0];
	}

	/**
	 * Learns which node of each master's group (the master and its replicas) serves the
	 * group's slots now, after failovers this class did not make (a master stopped past
	 * the node timeout, then resumed as a replica): {@link #masters()} and
	 * {@link #replicasOf(int)} follow.
	 */
	public void refreshRoles() {
		for (int i = 0; i < this.masters.size(); i++) {
			int slot = SLOTS * i / this.masters.size();
			List<RedisServer> group = new ArrayList<>(this.replicas.get(i));
			group.add(0, this.masters.get(i));
			for (RedisServer node : group) {
				if (node.isRunning() && "master".equals(node.info("role")) && ClusterNodes.servesSlot(node, slot)) {
					group.remove(node);
					this.masters.set(i, node);
					this.replicas.set(i, group);
					break;
				}
			}
		}
	}

	/**
	 * Returns the hash slot of a key ({@code CLUSTER KEYSLOT}).
	 * @param key the key
	 * @return its slot
	 */
	public int slotOf(String key) {
		return ((Long) anyMaster().execute("CLUSTER", "KEYSLOT", key)).intValue();
	}

	/**
	 * Returns the master that serves a key's slot.
	 * @param key the key
	 * @return the master
	 */
	public RedisServer serverFor(String key) {
		return this.masters.get(masterOf(slotOf(key)));
	}

	/**
	 * Returns the index in {@link #masters()} of the master serving a slot.
	 * @param slot the slot
	 * @return the master's index
	 */
	public int masterOf(int slot) {
		for (int i = 0; i < this.masters.size(); i++) {
			RedisServer master = this.masters.get(i);
			if (master.isRunning() && ClusterNodes.servesSlot(master, slot)) {
				return i;
			}
		}
		throw new IllegalStateException("No running master serves slot " + slot);
	}

	private RedisServer anyMaster() {
		return this.masters.stream()
			.filter(RedisServer::isRunning)
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No master is running"));
	}

	/**
	 * Moves a slot, and its keys, to another master at once, as a fast
	 * {@code redis-cli --cluster reshard} does.
	 * @param slot the slot
	 * @param toMaster the index in {@link #masters()} of the master that takes it
	 */
	public void migrateSlot(int slot, int toMaster) {
		SlotMigration migration = beginSlotMigration(slot, toMaster);
		migration.moveAll();
		migration.finish();
	}

	/**
	 * Starts moving a slot to another master ({@code SETSLOT IMPORTING} and
	 * {@code MIGRATING}) and leaves it split until the caller moves its keys and
	 * {@linkplain SlotMigration#finish() finishes}: while it is split, a command on keys
	 * of the slot is redirected with {@code ASK}, or refused with {@code TRYAGAIN} when
	 * its keys are on both sides.
	 * @param slot the slot
	 * @param toMaster the index in {@link #masters()} of the master that takes it
	 * @return the migration in progress
	 */
	public SlotMigration beginSlotMigration(int slot, int toMaster) {
		RedisServer source = this.masters.get(masterOf(slot));
		RedisServer target = this.masters.get(toMaster);
		if (source == target) {
			throw new IllegalArgumentException("Slot " + slot + " is already served by master " + toMaster);
		}
		return SlotMigration.begin(slot, source, target, this::masters);
	}

	static void await(String what, BooleanSupplier condition) {
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
	 * @return every replica, those of the first master first
	 */
	public List<RedisServer> replicas() {
		return this.replicas.stream().flatMap(List::stream).toList();
	}

	/**
	 * @param master the master's index in {@link #masters()}
	 * @return the replicas of that master
	 */
	public List<RedisServer> replicasOf(int master) {
		return List.copyOf(this.replicas.get(master));
	}

	/**
	 * @return every node, masters first
	 */
	public List<RedisServer> nodes() {
		List<RedisServer> nodes = new ArrayList<>(this.masters);
		nodes.addAll(replicas());
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
	 * Creates a started Lettuce connection factory for the cluster, with the client
	 * options the delayqueue starter sets up for fast failover (see
	 * {@link #fastFailoverOptions()}); the caller closes it with {@code destroy()}.
	 * @param commandTimeout how long a command may take before it fails
	 * @return the factory
	 */
	public LettuceConnectionFactory connectionFactory(Duration commandTimeout) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(commandTimeout)
			.shutdownTimeout(Duration.ZERO)
			.clientOptions(fastFailoverOptions())
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(clusterConfiguration(), client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	/**
	 * The cluster client options for fast failover, as the delayqueue starter sets them
	 * up: the topology is refreshed every second and on every redirect or reconnect (the
	 * adaptive triggers, on by default since Lettuce 7), and commands for a node that is
	 * down fail at once instead of waiting out the command timeout.
	 * @return the options
	 */
	public static ClusterClientOptions fastFailoverOptions() {
		return ClusterClientOptions.builder()
			.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
				.enablePeriodicRefresh(Duration.ofSeconds(1))
				.adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
				.refreshTriggersReconnectAttempts(1)
				.build())
			.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
			.build();
	}

	/**
	 * Stops every node and deletes their directories.
	 */
	@Override
	public void close() {
		nodes().forEach(RedisServer::close);
	}

}
