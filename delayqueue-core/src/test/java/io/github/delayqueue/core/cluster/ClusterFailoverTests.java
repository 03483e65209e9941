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
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.RedisClusterTest;
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
		String queue = "failover";
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			Map<String, Long> handledAt = new ConcurrentHashMap<>();
			DelayQueueListenerContainer container = engine
				.listenerContainer(queue, "g", String.class,
						(payload, context) -> handledAt.putIfAbsent(payload, System.nanoTime()))
				.build();
			container.start();
			Map<String, Long> acknowledgedAt = new ConcurrentHashMap<>();
			List<Long> sendMillis = new CopyOnWriteArrayList<>();
			AtomicBoolean producing = new AtomicBoolean(true);
			Thread producer = new Thread(() -> {
				for (int i = 0; producing.get(); i++) {
					long started = System.nanoTime();
					try {
						engine.template().send(queue, "m-" + i, Duration.ofMillis(100));
						acknowledgedAt.put("m-" + i, System.nanoTime());
					}
					catch (RuntimeException ex) {
						// refused while the master is down: allowed, as long as it is
						// quick
					}
					sendMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
					sleep(20);
				}
			});
			producer.start();
			await().atMost(Duration.ofSeconds(10)).until(() -> handledAt.size() > 20);
			int index = this.cluster.masterOf(this.cluster.slotOf("{" + queue + "}"));
			long killedAt = System.nanoTime();
			this.cluster.killMaster(index);
			long promotedAt = System.nanoTime();
			sleep(3000);
			producing.set(false);
			producer.join();

			long firstAckAfter = acknowledgedAt.values()
				.stream()
				.filter((at) -> at > promotedAt)
				.min(Long::compare)
				.orElseThrow();
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
					sendMillis.stream().max(Long::compare).orElse(0L));
			assertThat(TimeUnit.NANOSECONDS.toMillis(firstAckAfter - promotedAt)).as("sending resumed after (ms)")
				.isLessThan(1500);
			assertThat(TimeUnit.NANOSECONDS.toMillis(firstHandledAfter - promotedAt)).as("delivery resumed after (ms)")
				.isLessThan(1500);
			assertThat(sendMillis).as("send durations (ms)").allMatch((millis) -> millis < 2500);
			long window = killedAt - TimeUnit.MILLISECONDS.toNanos(500);
			acknowledgedAt.forEach((payload, at) -> {
				if (at < window || at > promotedAt) {
					await().atMost(Duration.ofSeconds(10))
						.until(() -> handledAt.containsKey(payload) || !container.isRunning());
				}
			});
		}
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
