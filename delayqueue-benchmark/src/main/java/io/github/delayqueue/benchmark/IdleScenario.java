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

package io.github.delayqueue.benchmark;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The {@code idle} scenario: the Redis commands per second that one engine with one idle
 * listener sends, counted by the server over the window (start-up left out).
 */
final class IdleScenario {

	private final RedisConnectionFactory connectionFactory;

	private final Scenarios scenarios;

	IdleScenario(RedisConnectionFactory connectionFactory, Scenarios scenarios) {
		this.connectionFactory = connectionFactory;
		this.scenarios = scenarios;
	}

	Map<String, Object> run(Duration duration) throws InterruptedException {
		this.scenarios.flush();
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			DelayQueueListenerContainer container = engine
				.listenerContainer(Scenarios.QUEUE, "bench", Scenarios.Order.class, (order, context) -> {
				})
				.build();
			container.start();
			try {
				Thread.sleep(2000); // start-up commands are not idle cost
				long before = CommandCount.processed(this.connectionFactory);
				Thread.sleep(duration.toMillis());
				long after = CommandCount.processed(this.connectionFactory);
				Map<String, Object> result = new LinkedHashMap<>();
				result.put("scenario", "idle");
				result.put("seconds", duration.toSeconds());
				// one INFO call of ours falls inside the window
				result.put("commands_per_s", Scenarios.round((after - before - 1) / (double) duration.toSeconds()));
				return result;
			}
			finally {
				container.stop();
			}
		}
	}

}
