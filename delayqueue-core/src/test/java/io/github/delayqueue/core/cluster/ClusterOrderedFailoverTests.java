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
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.Partitioner;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.RedisClusterTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The master serving an ordered partition (its streams, schedule and lease) crashes and
 * its replica is promoted: the owner keeps or takes back the partition, delivery resumes
 * within about two seconds, every send acknowledged well before the crash or after the
 * promotion is handled, and the messages of the key are handled in order (a message
 * handled again after the failover, its ack lost with the old master, is the documented
 * exception: duplicates are ignored in the order check).
 */
@Tag("faults")
@RedisClusterTest(masters = 3, replicasPerMaster = 1)
class ClusterOrderedFailoverTests {

	private final RedisCluster cluster;

	private final RedisConnectionFactory connectionFactory;

	ClusterOrderedFailoverTests(RedisCluster cluster, RedisConnectionFactory connectionFactory) {
		this.cluster = cluster;
		this.connectionFactory = connectionFactory;
	}

	@Test
	void anOrderedPartitionResumesInOrderAfterItsMasterFails() throws Exception {
		String queue = "ordered-failover";
		String key = "customer-7";
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).partitions(queue, 3).build()) {
			List<String> handled = new CopyOnWriteArrayList<>();
			Map<String, Long> handledAt = new ConcurrentHashMap<>();
			DelayQueueListenerContainer container = engine
				.listenerContainer(queue, "g", String.class, (payload, context) -> {
					handled.add(payload);
					handledAt.putIfAbsent(payload, System.nanoTime());
				})
				.ordered(true)
				.visibilityTimeout(Duration.ofSeconds(3))
				.build();
			container.start();
			await().atMost(Duration.ofSeconds(10)).until(() -> container.partitionsRead().size() == 3);
			QueueKeys keys = engine.partitionKeys(queue).get(Partitioner.CRC32.partition(key, 3));
			SteadyProducer producer = new SteadyProducer((i) -> {
				String payload = String.format("m-%05d", i);
				engine.template()
					.send(DelayMessage.builder(payload).queue(queue).key(key).delay(Duration.ofMillis(100)).build());
				return payload;
			});
			await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() > 20);
			int index = this.cluster.masterOf(this.cluster.slotOf(keys.stream()));
			long killedAt = System.nanoTime();
			this.cluster.killMaster(index);
			long promotedAt = System.nanoTime();
			Thread.sleep(4000);
			producer.stop();
			long firstHandledAfter = handledAt.values()
				.stream()
				.filter((at) -> at > promotedAt)
				.min(Long::compare)
				.orElseThrow();
			System.out.printf("ordered failover: first message handled %d ms after the promotion%n",
					TimeUnit.NANOSECONDS.toMillis(firstHandledAfter - promotedAt));
			assertThat(TimeUnit.NANOSECONDS.toMillis(firstHandledAfter - promotedAt)).as("delivery resumed after (ms)")
				.isLessThan(2500);
			List<String> mustArrive = producer.mustArrive(killedAt, promotedAt);
			await().atMost(Duration.ofSeconds(15)).until(() -> handled.containsAll(mustArrive));
			List<String> firstTimes = new ArrayList<>(new LinkedHashSet<>(handled));
			List<String> sorted = new ArrayList<>(firstTimes);
			sorted.sort(null);
			assertThat(firstTimes).as("messages of the key, first handlings, in send order").isEqualTo(sorted);
			assertThat(container.partitionsRead()).hasSize(3);
			container.stop();
		}
	}

}
