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

package io.github.delayqueue.core.cluster;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.Partitioner;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.RedisClusterTest;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One master of a Cluster hung ({@code SIGSTOP}, no failover: it has no replica): every
 * call to it waits for the command timeout. The partitions on the other masters are
 * delivered on time all the same, sent by this engine: the loops of the hung master's
 * partitions (its schedulers, the lease keeper's passes) do not take every thread of the
 * engine's loop runner, the schedulers are told of a send's due time without the wake-up
 * the script publishes (the subscription may be on the hung master), and the reads of the
 * other partitions are not held up (reactive reads were, for seconds).
 */
@Tag("faults")
@RedisClusterTest(masters = 3)
class ClusterHungMasterTests {

	private static final int PARTITIONS = 24;

	private final RedisCluster cluster;

	ClusterHungMasterTests(RedisCluster cluster) {
		this.cluster = cluster;
	}

	@Test
	void aHungMasterDoesNotHoldBackThePartitionsOnTheOthers() throws Exception {
		String queue = "hung-master";
		LettuceConnectionFactory factory = this.cluster.connectionFactory(Duration.ofSeconds(2));
		try (DelayQueueEngine engine = DelayQueueEngine.builder(factory).partitions(queue, PARTITIONS).build()) {
			List<QueueKeys> partitions = engine.partitionKeys(queue);
			int hung = hungMaster(partitions);
			// the keys of messages whose partitions are on the masters that answer
			List<String> healthyKeys = new ArrayList<>();
			int onHung = 0;
			for (int i = 0; healthyKeys.size() < 20 && i < 10_000; i++) {
				String key = "k-" + i;
				QueueKeys keys = partitions.get(Partitioner.CRC32.partition(key, PARTITIONS));
				if (this.cluster.masterOf(this.cluster.slotOf(keys.stream())) != hung) {
					healthyKeys.add(key);
				}
			}
			for (QueueKeys keys : partitions) {
				onHung += (this.cluster.masterOf(this.cluster.slotOf(keys.stream())) == hung) ? 1 : 0;
			}
			assertThat(onHung).as("partitions on the master hung").isGreaterThanOrEqualTo(2);
			Map<String, Instant> received = new ConcurrentHashMap<>();
			DelayQueueListenerContainer container = engine
				.listenerContainer(queue, "g", String.class,
						(payload, context) -> received.putIfAbsent(payload, Instant.now()))
				.build();
			container.start();
			try {
				await().atMost(Duration.ofSeconds(10)).until(() -> container.partitionsRead().size() == PARTITIONS);
				RedisServer master = this.cluster.masters().get(hung);
				master.pause();
				Map<String, Instant> due = new ConcurrentHashMap<>();
				try {
					// the loops of the hung master's partitions block on it from now on
					Thread.sleep(3000);
					long end = System.nanoTime() + Duration.ofSeconds(6).toNanos();
					for (int i = 0; System.nanoTime() - end < 0; i++) {
						String payload = "m-" + i;
						Instant dueTime = engine.template()
							.send(DelayMessage.builder(payload)
								.queue(queue)
								.key(healthyKeys.get(i % healthyKeys.size()))
								.delay(Duration.ofMillis(100))
								.build())
							.dueTime();
						due.put(payload, dueTime);
						Thread.sleep(20);
					}
					await().atMost(Duration.ofSeconds(10)).until(() -> received.keySet().containsAll(due.keySet()));
				}
				finally {
					master.resume();
				}
				List<Long> lateness = due.entrySet()
					.stream()
					.map((entry) -> Duration.between(entry.getValue(), received.get(entry.getKey())).toMillis())
					.sorted()
					.toList();
				long p99 = lateness.get((int) (lateness.size() * 0.99) - 1);
				System.out.println("Lateness with master " + hung + " hung (" + onHung + " of " + PARTITIONS
						+ " partitions on it), " + lateness.size() + " messages: p50 "
						+ lateness.get(lateness.size() / 2) + " ms, p99 " + p99 + " ms, max "
						+ lateness.get(lateness.size() - 1) + " ms");
				assertThat(lateness.get(0)).as("never early").isGreaterThanOrEqualTo(0);
				assertThat(p99).as("lateness p99, ms").isLessThan(500);
			}
			finally {
				container.stop();
				this.cluster.awaitState();
			}
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * A master that holds partitions of the queue but none of the engine's keys that
	 * every partition uses: the heartbeats, the registry, the first partition's (its
	 * meta, its control channel).
	 */
	private int hungMaster(List<QueueKeys> partitions) {
		QueueKeys first = partitions.get(0);
		String prefix = first.registry().substring(0, first.registry().length() - ":queues".length());
		List<Integer> shared = List.of(this.cluster.masterOf(this.cluster.slotOf(QueueKeys.heartbeat(prefix))),
				this.cluster.masterOf(this.cluster.slotOf(first.registry())),
				this.cluster.masterOf(this.cluster.slotOf(first.meta())));
		for (int master = 0; master < this.cluster.masters().size(); master++) {
			if (!shared.contains(master)) {
				return master;
			}
		}
		throw new IllegalStateException("Every master holds keys every partition uses: " + shared);
	}

}
