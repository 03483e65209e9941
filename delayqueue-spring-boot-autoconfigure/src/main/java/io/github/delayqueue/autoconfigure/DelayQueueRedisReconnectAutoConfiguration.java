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
import java.util.concurrent.TimeUnit;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of how soon the application's Lettuce client reconnects after Redis
 * went away. Lettuce's default waits twice as long after each failed attempt, up to 30 s:
 * after a 20 s outage the client came back up to 14 s after Redis did, and the listeners,
 * the schedulers and the outbox relay with it. This waits 100 ms, doubling to
 * {@code delayqueue.reconnect.max-delay} (1 s by default). It runs first of the
 * {@link ClientResourcesBuilderCustomizer}s, so the application's own win; turn it off
 * with {@code delayqueue.reconnect.enabled=false}. An application that defines its own
 * {@link ClientResources} bean keeps it as it is.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({ ClientResources.class, ClientResourcesBuilderCustomizer.class })
@ConditionalOnBooleanProperty(name = "delayqueue.reconnect.enabled", matchIfMissing = true)
public final class DelayQueueRedisReconnectAutoConfiguration {

	/** The first wait after a connection was lost. */
	static final Duration FIRST_DELAY = Duration.ofMillis(100);

	@Bean
	@Order(Ordered.HIGHEST_PRECEDENCE)
	ClientResourcesBuilderCustomizer delayQueueReconnectDelay(Environment environment) {
		// read from the environment: this runs before DelayQueueProperties is bound
		Duration max = Binder.get(environment)
			.bind("delayqueue.reconnect.max-delay", Duration.class)
			.orElseGet(() -> new DelayQueueProperties().getReconnect().getMaxDelay());
		return (builder) -> {
			if (max == null || max.compareTo(FIRST_DELAY) < 0) {
				throw new IllegalStateException("delayqueue.reconnect.max-delay must be at least "
						+ FIRST_DELAY.toMillis() + " ms, but was " + max);
			}
			builder.reconnectDelay(Delay.exponential(FIRST_DELAY, max, 2, TimeUnit.MILLISECONDS));
		};
	}

}
