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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.Durability;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Sentinel failover (one master, one replica, three Sentinels, all on loopback): the
 * engine follows the new master with no restart, and every message whose durable send was
 * confirmed by the replica is delivered.
 */
@Tag("faults")
class SentinelFailoverTests {

	@AutoClose
	private final Resources resources = new Resources();

	private <T extends AutoCloseable> T track(T resource) {
		return this.resources.track(resource);
	}

	@Test
	void followsTheNewMasterAndDeliversEveryConfirmedSend() throws Exception {
		RedisServer master = track(RedisServer.builder().config("repl-diskless-sync-delay", "0").start());
		RedisServer replica = track(RedisServer.builder()
			.config("replicaof", master.host(), String.valueOf(master.port()))
			.config("repl-diskless-sync-delay", "0")
			.start());
		List<RedisServer> sentinels = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			sentinels.add(track(RedisServer.builder().sentinel("orders", master, 2).start()));
		}
		await("replica in sync and known to the Sentinels").atMost(Duration.ofSeconds(30))
			.until(() -> "up".equals(replica.info("master_link_status")) && sentinels.stream()
				.allMatch((sentinel) -> !((List<?>) sentinel.execute("SENTINEL", "REPLICAS", "orders")).isEmpty()));

		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration().master("orders");
		sentinels.forEach((sentinel) -> configuration.sentinel(sentinel.host(), sentinel.port()));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		factory.afterPropertiesSet();
		factory.start();
		this.resources.track(factory::destroy);
		DelayQueueEngine engine = track(DelayQueueEngine.builder(factory).build());
		Set<String> received = ConcurrentHashMap.newKeySet();
		DelayQueueListenerContainer container = engine
			.listenerContainer("failover", "g", String.class, (payload, context) -> received.add(payload))
			.visibilityTimeout(Duration.ofSeconds(3))
			.build();
		container.start();
		this.resources.track(container::stop);

		// confirmed by the replica: these must survive the master's death
		List<String> confirmed = new ArrayList<>();
		for (int i = 0; i < 100; i++) {
			SendResult result = engine.template()
				.send(DelayMessage.builder("before-" + i).queue("failover").delay(Duration.ofMillis(20L * i)).build(),
						Durability.replicas(1, Duration.ofSeconds(2)));
			confirmed.add("before-" + i);
			assertThat(result.accepted()).isTrue();
		}
		master.kill();
		long killed = System.nanoTime();

		await("a send accepted by the new master").atMost(Duration.ofSeconds(60))
			.pollInterval(Duration.ofMillis(200))
			.ignoreExceptions()
			.until(() -> engine.template().send("failover", "after", Duration.ZERO) != null);
		System.out.println("Sends accepted again " + Duration.ofNanos(System.nanoTime() - killed)
				+ " after the master was killed");
		assertThat(replica.info("role")).as("the replica was promoted").isEqualTo("master");
		await("every confirmed send and the one after the failover delivered").atMost(Duration.ofSeconds(60))
			.until(() -> received.containsAll(confirmed) && received.contains("after"));
		System.out.println("All " + confirmed.size() + " confirmed sends delivered "
				+ Duration.ofNanos(System.nanoTime() - killed) + " after the master was killed");
		assertThat(container.isRunning()).isTrue();
		assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - killed)).isLessThan(60);
	}

}
