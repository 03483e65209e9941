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
import java.util.List;

import io.github.delayqueue.test.RedisServer;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.awaitility.Awaitility.await;

/**
 * One Sentinel set for the flow-control contract suites run through Sentinel (a master
 * and a Sentinel watching it, on loopback), started once per test JVM by the first suite
 * that needs it and stopped when the JVM exits: the suites share the launched servers.
 */
final class SharedSentinel {

	private static RedisServer master;

	private static LettuceConnectionFactory factory;

	private SharedSentinel() {
	}

	/**
	 * @return the master, for direct commands
	 */
	static synchronized RedisServer master() {
		start();
		return master;
	}

	/**
	 * @return a connection factory that finds the master through the Sentinel
	 */
	static synchronized LettuceConnectionFactory connectionFactory() {
		start();
		return factory;
	}

	private static void start() {
		if (factory != null) {
			return;
		}
		RedisServer started = RedisServer.start();
		RedisServer sentinel = RedisServer.builder().sentinel("flow", started, 1).start();
		await("the Sentinel knows the master").atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.until(() -> ((List<?>) sentinel.execute("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "flow")).size() == 2);
		RedisSentinelConfiguration configuration = new RedisSentinelConfiguration().master("flow")
			.sentinel(sentinel.host(), sentinel.port());
		LettuceConnectionFactory created = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
		created.afterPropertiesSet();
		created.start();
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			created.destroy();
			sentinel.close();
			started.close();
		}, "shared-sentinel-stop"));
		master = started;
		factory = created;
	}

}
