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
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Recovery is triggered, not polled: idle queues cost no recovery scans after the
 * start-up passes, and a consumer that never heartbeats (a release before heartbeats)
 * still has its expired entries recovered.
 */
@RedisTest
class IdleRecoveryTests {

	private final RedisServer redis;

	private final DelayQueueEngine engine;

	private final List<DelayQueueListenerContainer> containers = new ArrayList<>();

	IdleRecoveryTests(RedisServer redis, RedisConnectionFactory connectionFactory) {
		this.redis = redis;
		this.engine = DelayQueueEngine.builder(connectionFactory).build();
	}

	@AfterEach
	void stopAll() {
		this.containers.forEach(DelayQueueListenerContainer::stop);
		this.engine.close();
	}

	private DelayQueueListenerContainer started(String queue, Duration staleConsumerTimeout) {
		DelayQueueListenerContainer container = this.engine
			.listenerContainer(queue, "g", String.class, (payload, context) -> {
			})
			.pollTimeout(Duration.ofMillis(500))
			.visibilityTimeout(Duration.ofSeconds(2))
			.staleConsumerTimeout(staleConsumerTimeout)
			.build();
		this.containers.add(container);
		container.start();
		return container;
	}

	@Test
	void idleQueuesMakeNoRecoveryScans() throws Exception {
		for (int i = 0; i < 50; i++) {
			started("idle-" + i, Duration.ofMinutes(2));
		}
		// past the passes at the start and one visibility timeout after it
		Thread.sleep(3500);
		long before = calls("xpending");
		Thread.sleep(10_000);
		assertThat(calls("xpending") - before).as("XPENDING calls of 50 idle queues in 10 s").isZero();
	}

	@Test
	void recoversTheEntriesOfAConsumerThatNeverHeartbeats() throws Exception {
		String queue = "legacy";
		Set<String> handled = ConcurrentHashMap.newKeySet();
		DelayQueueListenerContainer container = this.engine
			.listenerContainer(queue, "g", String.class, (payload, context) -> handled.add(payload))
			.pollTimeout(Duration.ofMillis(500))
			.visibilityTimeout(Duration.ofSeconds(2))
			.staleConsumerTimeout(Duration.ofSeconds(2))
			.build();
		this.containers.add(container);
		container.start();
		this.engine.template().send(queue, "m1", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.contains("m1"));
		// long after the start-up passes
		Thread.sleep(5000);
		String stream = this.engine.keys(queue).stream();
		// a consumer of the release before heartbeats takes a copy of the entry and dies
		// holding it (in one script: the container's blocked read cannot take it first)
		this.redis.execute("EVAL", """
				local e = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
				redis.call('XADD', KEYS[1], '*', unpack(e[2]))
				return redis.call('XREADGROUP', 'GROUP', 'g', 'old-release', 'COUNT', 1, 'STREAMS', KEYS[1], '>')
				""", "1", stream);
		assertThat(heldBy(stream, "old-release")).isOne();
		// about the visibility timeout (2 s), plus a sweep (1 s) and a margin
		await().atMost(Duration.ofSeconds(8)).until(() -> heldBy(stream, "old-release") == 0);
	}

	private long heldBy(String stream, String consumer) {
		return ((List<?>) this.redis.execute("XPENDING", stream, "g", "-", "+", "10", consumer)).size();
	}

	private long calls(String command) {
		for (String line : ((String) this.redis.execute("INFO", "commandstats")).split("\r\n")) {
			if (line.startsWith("cmdstat_" + command + ":")) {
				String calls = line.substring(line.indexOf("calls=") + 6);
				return Long.parseLong(calls.substring(0, calls.indexOf(',')));
			}
		}
		return 0;
	}

}
