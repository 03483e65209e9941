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

import io.github.delayqueue.autoconfigure.actuate.DelayQueueEndpointAutoConfiguration;
import io.github.delayqueue.autoconfigure.actuate.DelayQueueHealthContributorAutoConfiguration;
import io.github.delayqueue.autoconfigure.metrics.DelayQueueMetricsAutoConfiguration;
import io.github.delayqueue.test.RedisServer;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A context runner with Spring Boot's Redis and all of delayqueue's auto-configurations,
 * on a test Redis server, every actuator endpoint exposed.
 */
final class AllAutoConfigurations {

	private AllAutoConfigurations() {
	}

	static ApplicationContextRunner runner(RedisServer redis) {
		return runner().withPropertyValues("spring.data.redis.host=" + redis.host(),
				"spring.data.redis.port=" + redis.port());
	}

	/**
	 * A runner with no Redis address: the caller adds one.
	 * @return the runner
	 */
	static ApplicationContextRunner runner() {
		return new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
					DelayQueueRedisClusterAutoConfiguration.class, DelayQueueRedisReconnectAutoConfiguration.class,
					DelayQueueAutoConfiguration.class, DelayQueueMetricsAutoConfiguration.class,
					DelayQueueEndpointAutoConfiguration.class, DelayQueueHealthContributorAutoConfiguration.class))
			.withPropertyValues("management.endpoints.web.exposure.include=*");
	}

}
