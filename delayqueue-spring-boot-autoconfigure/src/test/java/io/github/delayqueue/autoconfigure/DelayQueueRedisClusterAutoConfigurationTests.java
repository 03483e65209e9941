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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.github.delayqueue.autoconfigure.actuate.DelayQueueEndpoint;
import io.github.delayqueue.autoconfigure.actuate.QueuesDescriptor;
import io.github.delayqueue.autoconfigure.actuate.QueueDescriptor;
import io.github.delayqueue.autoconfigure.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Lettuce cluster client set up for fast failover: periodic topology refresh and
 * commands rejected while a node is disconnected, unless the application configured
 * otherwise; a single server's client is left as it is. Health, the actuator endpoint and
 * the start-up server check work on the cluster.
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayQueueRedisClusterAutoConfigurationTests {

	private static RedisCluster cluster;

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(DataRedisAutoConfiguration.class, DelayQueueRedisClusterAutoConfiguration.class));

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3, 0);
	}

	@AfterAll
	static void stopCluster() {
		if (cluster != null) {
			cluster.close();
		}
	}

	static String clusterNodes() {
		return "spring.data.redis.cluster.nodes=" + cluster.masters()
			.stream()
			.map((master) -> master.host() + ":" + master.port())
			.collect(Collectors.joining(","));
	}

	private static ClientOptions clientOptions(AssertableApplicationContext context) {
		return context.getBean(LettuceConnectionFactory.class)
			.getClientConfiguration()
			.getClientOptions()
			.orElseThrow();
	}

	private static ClusterTopologyRefreshOptions refresh(AssertableApplicationContext context) {
		return ((ClusterClientOptions) clientOptions(context)).getTopologyRefreshOptions();
	}

	@Test
	void setsUpAClusterClientForFastFailover() {
		this.runner.withPropertyValues(clusterNodes()).run((context) -> {
			assertThat(clientOptions(context)).isInstanceOf(ClusterClientOptions.class);
			assertThat(clientOptions(context).getDisconnectedBehavior())
				.isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
			assertThat(refresh(context).isPeriodicRefreshEnabled()).isTrue();
			assertThat(refresh(context).getRefreshPeriod()).isEqualTo(Duration.ofSeconds(1));
			assertThat(refresh(context).useDynamicRefreshSources()).isTrue();
			assertThat(refresh(context).getAdaptiveRefreshTimeout()).isEqualTo(Duration.ofSeconds(1));
		});
	}

	@Test
	void keepsTheRefreshSettingsOfTheApplication() {
		this.runner
			.withPropertyValues(clusterNodes(), "spring.data.redis.lettuce.cluster.refresh.period=30s",
					"spring.data.redis.lettuce.cluster.refresh.dynamic-refresh-sources=false")
			.run((context) -> {
				assertThat(refresh(context).getRefreshPeriod()).isEqualTo(Duration.ofSeconds(30));
				assertThat(refresh(context).useDynamicRefreshSources()).isFalse();
				assertThat(clientOptions(context).getDisconnectedBehavior())
					.isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
			});
	}

	@Test
	void theApplicationsOwnCustomizerWins() {
		this.runner.withPropertyValues(clusterNodes())
			.withBean(LettuceClientOptionsBuilderCustomizer.class,
					() -> (builder) -> builder.disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS))
			.run((context) -> assertThat(clientOptions(context).getDisconnectedBehavior())
				.isEqualTo(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS));
	}

	@Test
	void canBeTurnedOff() {
		this.runner.withPropertyValues(clusterNodes(), "delayqueue.cluster.fast-failover=false").run((context) -> {
			assertThat(context).doesNotHaveBean("delayQueueFastFailoverClientOptions");
			assertThat(clientOptions(context).getDisconnectedBehavior())
				.isEqualTo(ClientOptions.DisconnectedBehavior.DEFAULT);
			assertThat(refresh(context).isPeriodicRefreshEnabled()).isFalse();
		});
	}

	@Test
	void healthTheEndpointAndTheServerCheckWorkOnACluster(CapturedOutput output) {
		cluster.masters().get(2).execute("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
		try {
			AllAutoConfigurations.runner().withPropertyValues(clusterNodes()).run((context) -> {
				assertThat(context).hasNotFailed();
				// the start-up check read every master and warned about the evicting one
				assertThat(output).contains("Redis maxmemory-policy is 'allkeys-lru'");
				DelayQueueEngine engine = context.getBean(DelayQueueEngine.class);
				Set<String> received = ConcurrentHashMap.newKeySet();
				DelayQueueListenerContainer container = engine
					.listenerContainer("ops", "g", String.class, (payload, message) -> {
						if (payload.startsWith("bad")) {
							throw new IllegalStateException("refused");
						}
						received.add(payload);
					})
					.retryPolicy(RetryPolicy.fixed(1, Duration.ofMillis(10)))
					.build();
				container.start();
				try {
					engine.template().send("ops", "good", Duration.ZERO);
					engine.template().send("ops", "bad", Duration.ZERO);
					engine.template().send("ops", "later", Duration.ofHours(1));
					await().atMost(Duration.ofSeconds(10))
						.until(() -> received.contains("good") && engine.admin().stats("ops").dead() == 1);
					assertThat(context.getBean(DelayQueueHealthIndicator.class).health().getStatus())
						.isEqualTo(Status.UP);
					DelayQueueEndpoint endpoint = context.getBean(DelayQueueEndpoint.class);
					QueuesDescriptor queues = endpoint.queues();
					assertThat(queues.error()).isNull();
					assertThat(queues.queues().get("ops").scheduled()).isEqualTo(1);
					QueueDescriptor queue = endpoint.queue("ops", null);
					assertThat(queue.deadLetters()).hasSize(1);
				}
				finally {
					container.stop();
				}
			});
		}
		finally {
			cluster.masters().get(2).execute("CONFIG", "SET", "maxmemory-policy", "noeviction");
		}
	}

	@Test
	void leavesASingleServerClientAsItIs() {
		this.runner
			.withPropertyValues("spring.data.redis.host=" + cluster.masters().get(0).host(),
					"spring.data.redis.port=" + cluster.masters().get(0).port())
			.run((context) -> {
				assertThat(clientOptions(context)).isNotInstanceOf(ClusterClientOptions.class);
				assertThat(clientOptions(context).getDisconnectedBehavior())
					.isEqualTo(ClientOptions.DisconnectedBehavior.DEFAULT);
			});
	}

}
