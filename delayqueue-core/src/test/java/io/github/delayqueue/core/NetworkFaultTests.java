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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.TcpFaultProxy;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Network faults between the engine and Redis, injected by a {@link TcpFaultProxy} while
 * a producer sends and two listeners consume: connection resets, a slow network and a
 * partition. Nothing acknowledged is lost and the listeners recover on their own.
 */
@Tag("faults")
class NetworkFaultTests {

	@Test
	void resetsLatencyAndAPartitionLoseNothingAcknowledged() throws Exception {
		try (RedisServer redis = RedisServer.builder().appendOnly(RedisServer.AppendFsync.ALWAYS).start();
				TcpFaultProxy proxy = TcpFaultProxy.start(redis.host(), redis.port())) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(proxy.host(), proxy.port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(1)).build());
			factory.afterPropertiesSet();
			factory.start();
			List<DelayQueueListenerContainer> containers = new ArrayList<>();
			try (DelayQueueEngine engine = DelayQueueEngine.builder(factory).build()) {
				Set<String> received = ConcurrentHashMap.newKeySet();
				for (int i = 0; i < 2; i++) {
					DelayQueueListenerContainer container = engine
						.listenerContainer("net", "g", String.class, (payload, context) -> received.add(payload))
						.visibilityTimeout(Duration.ofSeconds(3))
						.pollTimeout(Duration.ofMillis(500))
						.build();
					container.start();
					containers.add(container);
				}
				Set<String> acknowledged = ConcurrentHashMap.newKeySet();
				List<String> failures = Collections.synchronizedList(new ArrayList<>());
				AtomicBoolean producing = new AtomicBoolean(true);
				Thread producer = new Thread(() -> {
					for (int i = 0; producing.get(); i++) {
						try {
							engine.template().send("net", "n-" + i, Duration.ofMillis(i % 400));
							acknowledged.add("n-" + i);
						}
						catch (DelayQueueException ex) {
							failures.add(ex.getMessage());
						}
						try {
							Thread.sleep(5);
						}
						catch (InterruptedException ex) {
							return;
						}
					}
				}, "test-producer");
				producer.start();
				await().atMost(Duration.ofSeconds(10)).until(() -> received.size() > 50);

				for (int i = 0; i < 3; i++) {
					proxy.drop();
					Thread.sleep(500);
					proxy.pass();
					Thread.sleep(1000);
				}
				proxy.latency(Duration.ofMillis(150));
				Thread.sleep(2000);
				proxy.blackhole();
				Thread.sleep(3000);
				proxy.pass();
				Thread.sleep(2000);
				producing.set(false);
				producer.join(10_000);

				await("every acknowledged send delivered").atMost(Duration.ofSeconds(60))
					.until(() -> received.containsAll(acknowledged));
				assertThat(containers).allMatch(DelayQueueListenerContainer::isRunning);
				assertThat(failures).as("sends failed while the network was down").isNotEmpty();
				assertThat(failures)
					.allSatisfy((message) -> assertThat(message).startsWith("Cannot send to queue(s) net: "));
				System.out.println(acknowledged.size() + " acknowledged sends all delivered through 3 resets, "
						+ "2 s of 150 ms latency and a 3 s partition; " + failures.size() + " sends failed, e.g. "
						+ failures.get(0));
			}
			finally {
				containers.forEach(DelayQueueListenerContainer::stop);
				factory.destroy();
			}
		}
	}

}
