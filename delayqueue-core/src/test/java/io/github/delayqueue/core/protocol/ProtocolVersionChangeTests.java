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
package io.github.delayqueue.core.protocol;

import java.time.Duration;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A queue moved to another producer protocol while a producer that knows it runs: with
 * the move's marker on each partition (docs/protocol.md), the producer's next send is
 * refused at once, naming the version, and writes nothing; it does not wait for its next
 * look at the queue's meta.
 */
@RedisTest
class ProtocolVersionChangeTests {

	private final RedisConnectionFactory connectionFactory;

	ProtocolVersionChangeTests(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@Test
	void aProducerThatKnewTheQueueWritesNothingOnceItIsMovedToAnotherVersion() {
		String queue = "moved-v2";
		DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).partitions(queue, 3).build();
		try {
			// the engine knows the queue and its layout
			for (int i = 0; i < 30; i++) {
				engine.template()
					.send(DelayMessage.builder("before-" + i)
						.queue(queue)
						.key("k" + i)
						.delay(Duration.ofHours(1))
						.build());
			}
			QueueStats before = engine.admin().stats(queue);
			assertThat(before.scheduled()).isEqualTo(30);
			// the move: the meta first, then each partition's marker
			StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);
			redis.opsForHash().put("dq:{" + queue + "}:meta", "protocol", "2");
			QueueKeys keys = new QueueKeys("dq", queue);
			for (int partition = 0; partition < 3; partition++) {
				redis.opsForValue().set(keys.partition(partition, 3).retired(), "protocol 2");
			}
			for (int i = 0; i < 30; i++) {
				DelayMessage<String> message = DelayMessage.builder("after-" + i)
					.queue(queue)
					.key("k" + i)
					.delay(Duration.ofHours(1))
					.build();
				assertThatThrownBy(() -> engine.template().send(message)).hasStackTraceContaining(
						"DQRETIRED this partition was retired: its queue speaks producer protocol 2, and this producer"
								+ " speaks 1: upgrade it (docs/protocol.md)");
			}
			long scheduled = 0;
			for (int partition = 0; partition < 3; partition++) {
				QueueKeys partitionKeys = keys.partition(partition, 3);
				scheduled += redis.opsForZSet().zCard(partitionKeys.delayed())
						+ redis.opsForZSet().zCard(partitionKeys.far());
			}
			assertThat(scheduled).as("messages written after the move").isEqualTo(30);
		}
		finally {
			engine.close();
		}
	}

}
