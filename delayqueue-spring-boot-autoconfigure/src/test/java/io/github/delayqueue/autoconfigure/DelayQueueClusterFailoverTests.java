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
package io.github.delayqueue.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A master failover under an application set up by the starter alone (Spring Boot's 60 s
 * default command timeout, no client options of its own): sends fail fast or succeed and
 * delivery resumes within about a second of the promotion, where Lettuce's defaults
 * stalled the queue for the command timeout. Start-up on a cluster logs no
 * {@code MAINT_NOTIFICATIONS} refusal.
 */
@Tag("faults")
@ExtendWith(OutputCaptureExtension.class)
class DelayQueueClusterFailoverTests {

	@Test
	void aQueueResumesWithinASecondOfTheFailoverOfItsMaster(CapturedOutput output) {
		try (RedisCluster cluster = RedisCluster.start(3, 1)) {
			String nodes = cluster.masters()
				.stream()
				.map((master) -> master.host() + ":" + master.port())
				.collect(Collectors.joining(","));
			AllAutoConfigurations.runner()
				.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					assertThat(output).doesNotContain("MAINT_NOTIFICATIONS");
					DelayQueueEngine engine = context.getBean(DelayQueueEngine.class);
					String queue = "orders";
					Map<String, Long> handledAt = new ConcurrentHashMap<>();
					DelayQueueListenerContainer container = engine
						.listenerContainer(queue, "g", String.class,
								(payload, message) -> handledAt.putIfAbsent(payload, System.nanoTime()))
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
								// refused while the master is down: allowed when quick
							}
							sendMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
							sleep(20);
						}
					});
					producer.start();
					try {
						await().atMost(Duration.ofSeconds(10)).until(() -> handledAt.size() > 20);
						cluster.killMaster(cluster.masterOf(cluster.slotOf("{" + queue + "}")));
						long promotedAt = System.nanoTime();
						await().atMost(Duration.ofSeconds(10))
							.until(() -> handledAt.values().stream().anyMatch((at) -> at > promotedAt));
						long resumed = handledAt.values()
							.stream()
							.filter((at) -> at > promotedAt)
							.min(Long::compare)
							.orElseThrow();
						System.out.printf(
								"boot failover: delivery resumed %d ms after the promotion; longest send %d ms%n",
								TimeUnit.NANOSECONDS.toMillis(resumed - promotedAt),
								sendMillis.stream().max(Long::compare).orElse(0L));
						assertThat(TimeUnit.NANOSECONDS.toMillis(resumed - promotedAt))
							.as("delivery resumed after (ms)")
							.isLessThan(2000);
						assertThat(sendMillis).as("send durations (ms)").allMatch((millis) -> millis < 2500);
					}
					finally {
						producing.set(false);
						producer.join();
						container.stop();
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
