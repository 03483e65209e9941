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
package io.github.delayqueue.core;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.RedisClusterTest;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedissonMigration} on a 3-master Redis Cluster, with real Redisson: a queue of
 * the Redisson queue's name shares its slot, so each chunk still moves in one script,
 * into a partitioned queue's partition 0.
 */
@RedisClusterTest
class ClusterRedissonMigrationTests extends QueueTestFixture {

	private final RedisCluster cluster;

	ClusterRedissonMigrationTests(RedisCluster cluster, RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
		this.cluster = cluster;
	}

	@Test
	void aQueueOfTheRedissonQueuesNameTakesItsMessagesOnAClusterEachDeliveredOnce() {
		RedissonClient redisson = redisson();
		try {
			RDelayedQueue<String> delayed = redisson
				.getDelayedQueue(redisson.getBlockingQueue(this.queue, StringCodec.INSTANCE));
			for (int i = 0; i < 1000; i++) {
				delayed.offer("m-" + i, 1500 + (i % 2000), TimeUnit.MILLISECONDS);
			}
		}
		finally {
			redisson.shutdown();
		}
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, 3));
		MigrationResult result = RedissonMigration.from(this.queue).build().migrate(engine);
		assertThat(result.finished()).isTrue();
		assertThat(result.scheduled() + result.ready()).isEqualTo(1000);
		Map<String, List<Integer>> delivered = new ConcurrentHashMap<>();
		start(engine
			.listenerContainer(this.queue, "orders", String.class,
					(payload, context) -> delivered.computeIfAbsent(payload, (key) -> new CopyOnWriteArrayList<>())
						.add(context.attempt()))
			.build());
		await().atMost(Duration.ofSeconds(30)).until(() -> delivered.size() == 1000);
		sleep(500);
		assertThat(delivered.values()).allMatch((attempts) -> attempts.size() == 1);
	}

	/** Redisson in cluster mode, on the cluster's masters. */
	private RedissonClient redisson() {
		Config config = new Config();
		config.useClusterServers()
			.addNodeAddress(this.cluster.masters()
				.stream()
				.map((RedisServer server) -> "redis://127.0.0.1:" + server.port())
				.toArray(String[]::new));
		return Redisson.create(config);
	}

	@Test
	void aQueueOfAnotherNameIsRefusedOnAClusterAndNothingMoves() {
		RedissonClient redisson = redisson();
		try {
			redisson.getDelayedQueue(redisson.getBlockingQueue("legacy-" + this.queue, StringCodec.INSTANCE))
				.offer("m", 10, TimeUnit.MINUTES);
		}
		finally {
			redisson.shutdown();
		}
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory));
		org.assertj.core.api.Assertions
			.assertThatThrownBy(
					() -> RedissonMigration.from("legacy-" + this.queue).to(this.queue).build().migrate(engine))
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageStartingWith("On a Redis Cluster, the keys of Redisson queue 'legacy-" + this.queue
					+ "' must share a slot with those of queue '" + this.queue + "'");
		assertThat(engine.admin().stats(this.queue).scheduled()).isZero();
	}

}
