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
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.RedisClusterTest;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The master that serves a queue crashes and the cluster promotes its replica: with the
 * fast-failover client options ({@link RedisCluster#fastFailoverOptions()}), sends fail
 * fast or succeed, never hang past the engine's operation timeout, and sending and
 * delivery resume within about a second of the promotion. Every send acknowledged well
 * before the crash is delivered (a send acknowledged in the last moments may be lost with
 * asynchronous replication: the documented window).
 */
@Tag("faults")
@RedisClusterTest(masters = 3, replicasPerMaster = 1)
class ClusterFailoverTests {

	private final RedisCluster cluster;

	private final RedisConnectionFactory connectionFactory;

	ClusterFailoverTests(RedisCluster cluster, RedisConnectionFactory connectionFactory) {
		this.cluster = cluster;
		this.connectionFactory = connectionFactory;
	}

	@Test
	void deliveryResumesWithinASecondOfThePromotion() throws Exception {
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			// the engine's wake-up subscription starts with its first listener: the queue
			// under test lives on the master that holds it, the worst case
			DelayQueueListenerContainer probe = engine
				.listenerContainer("probe", "g", String.class, (payload, context) -> {
				})
				.build();
			probe.start();
			String queue = queueOnTheMasterWithTheSubscription();
			Map<String, Long> handledAt = new ConcurrentHashMap<>();
			DelayQueueListenerContainer container = engine
				.listenerContainer(queue, "g", String.class,
						(payload, context) -> handledAt.putIfAbsent(payload, System.nanoTime()))
				.build();
			container.start();
			SteadyProducer producer = new SteadyProducer((i) -> {
				engine.template().send(queue, "m-" + i, Duration.ofMillis(100));
				return "m-" + i;
			});
			Map<String, Long> acknowledgedAt = producer.acknowledgedAt;
			await().atMost(Duration.ofSeconds(10)).until(() -> handledAt.size() > 20);
			int index = this.cluster.masterOf(this.cluster.slotOf("{" + queue + "}"));
			assertThat(subscribers(this.cluster.masters().get(index))).as("subscribers on the master to kill")
				.isPositive();
			long killedAt = System.nanoTime();
			this.cluster.killMaster(index);
			long promotedAt = System.nanoTime();
			sleep(3000);
			producer.stop();

			long firstAckAfter = producer.firstAcknowledgedAfter(promotedAt);
			long firstHandledAfter = handledAt.values()
				.stream()
				.filter((at) -> at > promotedAt)
				.min(Long::compare)
				.orElseThrow();
			System.out.printf(
					"failover: promoted %d ms after the kill; first send acknowledged %d ms and first "
							+ "message handled %d ms after the promotion; longest send %d ms%n",
					TimeUnit.NANOSECONDS.toMillis(promotedAt - killedAt),
					TimeUnit.NANOSECONDS.toMillis(firstAckAfter - promotedAt),
					TimeUnit.NANOSECONDS.toMillis(firstHandledAfter - promotedAt),
					producer.sendMillis.stream().max(Long::compare).orElse(0L));
			assertThat(TimeUnit.NANOSECONDS.toMillis(firstAckAfter - promotedAt)).as("sending resumed after (ms)")
				.isLessThan(2000);
			assertThat(TimeUnit.NANOSECONDS.toMillis(firstHandledAfter - promotedAt)).as("delivery resumed after (ms)")
				.isLessThan(2000);
			assertThat(producer.sendMillis).as("send durations (ms)").allMatch((millis) -> millis < 2500);
			// messages sent a second after the promotion and later are as punctual as
			// before the kill: the wake-up subscription followed the cluster (a lost one
			// would cost up to the scheduler's 2 s idle)
			List<Long> lateAfter = new java.util.ArrayList<>();
			acknowledgedAt.forEach((payload, at) -> {
				if (at > promotedAt + TimeUnit.SECONDS.toNanos(1) && handledAt.containsKey(payload)) {
					lateAfter.add(TimeUnit.NANOSECONDS.toMillis(handledAt.get(payload) - at));
				}
			});
			lateAfter.sort(Long::compare);
			System.out.printf(
					"failover: %d messages sent 1 s after the promotion or later, handled after at most %d ms%n",
					lateAfter.size(), lateAfter.isEmpty() ? -1 : lateAfter.get(lateAfter.size() - 1));
			assertThat(lateAfter).as("ms from send to handling, 100 ms delay").isNotEmpty().allMatch((ms) -> ms < 600);
			// every send acknowledged well before the kill, or after the promotion,
			// arrives
			List<String> mustArrive = producer.mustArrive(killedAt, promotedAt);
			await().atMost(Duration.ofSeconds(10)).until(() -> handledAt.keySet().containsAll(mustArrive));
			container.stop();
			probe.stop();
		}
	}

	private String queueOnTheMasterWithTheSubscription() {
		int holder = -1;
		for (int i = 0; i < this.cluster.masters().size(); i++) {
			if (subscribers(this.cluster.masters().get(i)) > 0) {
				holder = i;
			}
		}
		assertThat(holder).as("a master holds the wake-up subscription").isNotNegative();
		for (int n = 0;; n++) {
			if (this.cluster.masterOf(this.cluster.slotOf("{failover-" + n + "}")) == holder) {
				return "failover-" + n;
			}
		}
	}

	/** How many clients of a node are subscribed to a channel or a pattern. */
	private static long subscribers(RedisServer node) {
		return String.valueOf(node.execute("CLIENT", "LIST"))
			.lines()
			.filter((client) -> !client.contains(" sub=0 ") || !client.contains(" psub=0 "))
			.count();
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
