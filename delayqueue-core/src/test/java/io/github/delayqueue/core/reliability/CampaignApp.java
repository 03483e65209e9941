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

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.Durability;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.UnconfirmedSendException;
import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.TcpFaultProxy;
import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DnsResolver;
import io.lettuce.core.resource.MappingSocketAddressResolver;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * One application of the {@link FaultCampaign}, in a JVM of its own: a producer sending
 * durable messages at a steady rate, or a consumer running a shared and an ordered
 * listener. Every connection it makes goes through a {@link TcpFaultProxy} of its own
 * (Lettuce maps each server's address to its proxy), so that the campaign can cut this
 * application off from Redis alone: {@code CUT <ms>} on its standard input holds every
 * byte both ways for that long, as a network partition does.
 * <p>
 * Arguments: {@code producer|consumer <name> sentinel|cluster <master name or -> <queue>
 * <partitions> <rate per s> <data ports> <Sentinel ports>} (ports comma-separated;
 * {@code -} for no Sentinel). It prints one line per event, with the JVM's wall clock
 * (the machine's, as Redis's):
 * {@code SENT <id> <key> <due ms> <begin ms> <end ms> ok|unconfirmed},
 * {@code FAILED <id> <begin ms> <end ms> <message>}, {@code START <group> <id> <attempt>
 * <ms>}, {@code DONE <group> <id> <ms>}.
 */
public final class CampaignApp {

	/** The groups every consumer runs: each receives every message. */
	static final List<String> GROUPS = List.of("shared", "ordered");

	private static final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

	private CampaignApp() {
	}

	public static void main(String[] args) throws Exception {
		String mode = args[0];
		String name = args[1];
		boolean cluster = args[2].equals("cluster");
		String masterName = args[3];
		String queue = args[4];
		int partitions = Integer.parseInt(args[5]);
		int rate = Integer.parseInt(args[6]);
		List<Integer> nodes = ports(args[7]);
		List<Integer> sentinels = ports(args[8]);
		Map<Integer, TcpFaultProxy> proxies = new HashMap<>();
		for (int port : nodes) {
			proxies.put(port, TcpFaultProxy.start("127.0.0.1", port));
		}
		for (int port : sentinels) {
			proxies.put(port, TcpFaultProxy.start("127.0.0.1", port));
		}
		LettuceConnectionFactory factory = factory(cluster, masterName, cluster ? nodes : sentinels, proxies);
		DelayQueueEngine engine = DelayQueueEngine.builder(factory).partitions(queue, partitions).build();
		if (mode.equals("producer")) {
			Thread producer = new Thread(() -> produce(engine, queue, name, rate), "campaign-producer");
			producer.setDaemon(true);
			producer.start();
		}
		else {
			ReliabilitySupport.historyListeners(engine, queue, out, 20);
		}
		out.println("READY " + name);
		// the campaign's commands: CUT <ms>
		BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
		for (String line = commands.readLine(); line != null; line = commands.readLine()) {
			if (line.startsWith("CUT ")) {
				proxies.values().forEach(TcpFaultProxy::blackhole);
				Thread.sleep(Long.parseLong(line.substring(4).trim()));
				proxies.values().forEach(TcpFaultProxy::pass);
				out.println("HEALED " + System.currentTimeMillis());
			}
		}
	}

	private static List<Integer> ports(String list) {
		List<Integer> ports = new ArrayList<>();
		if (!list.equals("-")) {
			for (String port : list.split(",")) {
				ports.add(Integer.parseInt(port));
			}
		}
		return ports;
	}

	private static LettuceConnectionFactory factory(boolean cluster, String masterName, List<Integer> ports,
			Map<Integer, TcpFaultProxy> proxies) {
		ClientResources resources = ClientResources.builder()
			.socketAddressResolver(MappingSocketAddressResolver.create(DnsResolver.unresolved(), (address) -> {
				TcpFaultProxy proxy = proxies.get(address.getPort());
				return (proxy != null) ? HostAndPort.of(proxy.host(), proxy.port()) : address;
			}))
			.build();
		LettuceClientConfiguration.LettuceClientConfigurationBuilder client = LettuceClientConfiguration.builder()
			.clientResources(resources)
			.commandTimeout(Duration.ofSeconds(5))
			.shutdownTimeout(Duration.ZERO);
		RedisConfiguration configuration;
		if (cluster) {
			client.clientOptions(RedisCluster.fastFailoverOptions());
			RedisClusterConfiguration nodes = new RedisClusterConfiguration();
			ports.forEach((port) -> nodes.clusterNode("127.0.0.1", port));
			configuration = nodes;
		}
		else {
			RedisSentinelConfiguration sentinels = new RedisSentinelConfiguration().master(masterName);
			ports.forEach((port) -> sentinels.sentinel("127.0.0.1", port));
			configuration = sentinels;
		}
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, client.build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	private static void produce(DelayQueueEngine engine, String queue, String name, int rate) {
		Random random = new Random(name.hashCode());
		Map<String, Long> lastDue = new HashMap<>();
		long pause = TimeUnit.SECONDS.toNanos(1) / rate;
		// ids and keys of this run of the application: one restarted sends new ones
		String run = name + "." + Long.toString(System.currentTimeMillis() % 100_000_000L, 36);
		for (long seq = 0;; seq++) {
			String id = run + "-" + seq;
			String key = run + "-k" + (seq % 20);
			// a key's messages come due one after another, so that their order is known
			long due = Math.max(System.currentTimeMillis() + random.nextInt(2000), lastDue.getOrDefault(key, 0L) + 5);
			lastDue.put(key, due);
			long begin = System.currentTimeMillis();
			try {
				SendResult result = engine.template()
					.send(DelayMessage.builder(id)
						.queue(queue)
						.id(id)
						.key(key)
						.deliverAt(Instant.ofEpochMilli(due))
						.build(), Durability.replicas(1, Duration.ofMillis(500)));
				out.println("SENT " + id + " " + key + " " + result.dueTime().toEpochMilli() + " " + begin + " "
						+ System.currentTimeMillis() + " ok");
			}
			catch (UnconfirmedSendException ex) {
				out.println("SENT " + id + " " + key + " " + due + " " + begin + " " + System.currentTimeMillis()
						+ " unconfirmed");
			}
			catch (RuntimeException ex) {
				out.println("FAILED " + id + " " + begin + " " + System.currentTimeMillis() + " "
						+ String.valueOf(ex.getMessage()).replace('\n', ' '));
			}
			LockSupport.parkNanos(pause);
		}
	}

}
