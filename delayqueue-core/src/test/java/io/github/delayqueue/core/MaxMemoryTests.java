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

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisBinary;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerExtension;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Redis that reaches {@code maxmemory} under {@code noeviction}: sends fail with a
 * clear error naming the queue and lose nothing, what was scheduled is still delivered
 * (the promote script may run over the limit on Redis 7, since each move frees memory),
 * and sending works again once the delivered messages are trimmed.
 */
@Tag("faults")
class MaxMemoryTests {

	private static final String PAYLOAD = "x".repeat(200);

	@Test
	void sendsFailClearlyWhenRedisIsFullAndScheduledMessagesStillDrain() {
		try (RedisServer redis = RedisServer.builder().maxMemory("4mb").maxMemoryPolicy("noeviction").start()) {
			fillThenDrain(redis);
		}
	}

	@Test
	void onRedis62WithoutScriptFlagsPromotingFallsBackToThePlainScript() {
		Path embedded = RedisBinary.embedded();
		Assumptions.assumeTrue(embedded != null, "embedded-redis ships no binary for this platform");
		try (RedisServer redis = RedisServer.builder().binary(embedded).start()) {
			LettuceConnectionFactory connectionFactory = RedisServerExtension.connectionFactory(redis);
			try (DelayQueueEngine engine = DelayQueueEngine.builder(connectionFactory).build()) {
				Set<String> received = ConcurrentHashMap.newKeySet();
				DelayQueueListenerContainer container = engine
					.listenerContainer("old", "g", String.class, (payload, context) -> received.add(payload))
					.build();
				container.start();
				try {
					engine.template().send("old", "one", Duration.ofMillis(200));
					await().atMost(Duration.ofSeconds(10)).until(() -> received.contains("one"));
				}
				finally {
					container.stop();
				}
			}
			finally {
				connectionFactory.destroy();
			}
		}
	}

	private void fillThenDrain(RedisServer redis) {
		LettuceConnectionFactory connectionFactory = RedisServerExtension.connectionFactory(redis);
		try (DelayQueueEngine engine = DelayQueueEngine.builder(connectionFactory).build()) {
			List<String> accepted = new ArrayList<>();
			DelayQueueException refusal = null;
			for (int i = 0; i < 100_000 && refusal == null; i++) {
				try {
					engine.template().send("full", PAYLOAD + i, Duration.ofSeconds(2));
					accepted.add(PAYLOAD + i);
				}
				catch (DelayQueueException ex) {
					refusal = ex;
				}
			}
			assertThat(refusal).as("a send refused once Redis is full").isNotNull();
			assertThat(refusal.getMessage()).startsWith("Cannot send to queue(s) full: ")
				.contains("OOM command not allowed when used memory > 'maxmemory'");
			assertThat(accepted).hasSizeGreaterThan(1000);
			assertThat(engine.admin().stats("full").scheduled()).isEqualTo(accepted.size());
			// on 6.2 nothing is promoted until memory is freed (docs/operations.md)
			redis.requireVersion("7.0", "promotion over maxmemory (script flag allow-oom)");

			Set<String> received = ConcurrentHashMap.newKeySet();
			DelayQueueListenerContainer container = engine
				.listenerContainer("full", "g", String.class, (payload, context) -> received.add(payload))
				.concurrency(8)
				.trimInterval(Duration.ofSeconds(1))
				.build();
			container.start();
			try {
				await("every accepted message delivered while Redis is over maxmemory").atMost(Duration.ofSeconds(60))
					.until(() -> received.size() == accepted.size());
				assertThat(received).containsExactlyInAnyOrderElementsOf(accepted);
				// acknowledged entries are trimmed, memory frees, sending works again
				await("a send accepted again").atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
					engine.template().send("full", "after", Duration.ZERO);
					return true;
				});
				await().atMost(Duration.ofSeconds(10)).until(() -> received.contains("after"));
			}
			finally {
				container.stop();
			}
		}
		finally {
			connectionFactory.destroy();
		}
	}

}
