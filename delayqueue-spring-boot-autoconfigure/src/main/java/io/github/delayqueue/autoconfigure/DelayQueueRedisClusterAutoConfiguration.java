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

import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.data.redis.autoconfigure.DataRedisProperties;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} of the application's Lettuce Redis Cluster client for fast
 * failover. With Lettuce's defaults a crashed master stalls the commands for its slots
 * until the command timeout (60 s in Spring Boot) and the client learns of the promoted
 * replica late; delayqueue's queues then stall as long. This refreshes the topology
 * periodically (every second, unless
 * {@code spring.data.redis.lettuce.cluster.refresh.period} is set) and on every redirect
 * or reconnect (Lettuce's adaptive triggers, rate-limited to one a second), and rejects
 * commands for a disconnected node at once ({@code REJECT_COMMANDS}). It runs first of
 * the {@link LettuceClientOptionsBuilderCustomizer}s, so the application's own win; turn
 * it off with {@code delayqueue.cluster.fast-failover=false}. A single server or Sentinel
 * set-up is left as it is.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass({ ClusterClientOptions.class, LettuceClientOptionsBuilderCustomizer.class })
@ConditionalOnBooleanProperty(name = "delayqueue.cluster.fast-failover", matchIfMissing = true)
public final class DelayQueueRedisClusterAutoConfiguration {

	/** The topology refresh period when the application sets none. */
	static final Duration DEFAULT_REFRESH_PERIOD = Duration.ofSeconds(1);

	@Bean
	@Order(Ordered.HIGHEST_PRECEDENCE)
	LettuceClientOptionsBuilderCustomizer delayQueueFastFailoverClientOptions(
			ObjectProvider<DataRedisProperties> properties) {
		return (builder) -> {
			if (builder instanceof ClusterClientOptions.Builder cluster) {
				DataRedisProperties.Lettuce.Cluster.Refresh refresh = properties
					.getIfAvailable(DataRedisProperties::new)
					.getLettuce()
					.getCluster()
					.getRefresh();
				Duration period = (refresh.getPeriod() != null) ? refresh.getPeriod() : DEFAULT_REFRESH_PERIOD;
				cluster
					.topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
						.dynamicRefreshSources(refresh.isDynamicRefreshSources())
						.enablePeriodicRefresh(period)
						.adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
						.refreshTriggersReconnectAttempts(1)
						.build())
					.disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
			}
		};
	}

}
