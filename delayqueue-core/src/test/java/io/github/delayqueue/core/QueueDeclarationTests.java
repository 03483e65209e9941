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

import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link DelayQueueEngineBuilder#queue} declares a queue's settings in one place, as the
 * per-queue methods of the builder do, and refuses bad ones naming the queue.
 */
@RedisTest
class QueueDeclarationTests extends QueueTestFixture {

	QueueDeclarationTests(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	@Test
	void aQueuesDeclarationReachesRedisOnItsFirstUse() {
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory)
			.queue(this.queue, (queue) -> queue.partitions(3).sizeLimit(30).expireAfter(Duration.ofMinutes(5))));
		engine.template().send(this.queue, "first", Duration.ofHours(1));
		assertThat(engine.admin().partitionLayout(this.queue).partitions()).isEqualTo(3);
		assertThat(engine.admin().sizeLimit(this.queue)).hasValue(30);
		assertThat(engine.admin().scheduled(this.queue, null, 10)).allSatisfy(
				(message) -> assertThat(message.expiresAt()).isEqualTo(message.dueTime().plus(Duration.ofMinutes(5))));
	}

	@Test
	void aBadDeclarationIsRefusedNamingTheQueue() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayQueueEngine.builder(this.connectionFactory)
				.queue(this.queue, (queue) -> queue.partitions(0)))
			.withMessage("Partitions of queue '" + this.queue + "' must be between 1 and 1024, but was 0");
		assertThatIllegalArgumentException().isThrownBy(
				() -> DelayQueueEngine.builder(this.connectionFactory).queue("bad name", QueueDeclaration::fairShare))
			.withMessageContaining("'bad name'");
	}

}
