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

package io.github.delayqueue.samples.ordertimeout;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RespClient;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Lets the sample run with zero set-up: when no Redis answers at
 * {@code spring.data.redis.host}/{@code port}, starts one through {@code delayqueue-test}
 * and points the application at it. A sample convenience, not part of the starter: a real
 * application should fail when its Redis is missing.
 */
class EmbeddedRedisFallback implements ApplicationListener<ApplicationEnvironmentPreparedEvent> {

	private static final Log logger = LogFactory.getLog(EmbeddedRedisFallback.class);

	@Override
	public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
		ConfigurableEnvironment environment = event.getEnvironment();
		if (!environment.getProperty("sample.embedded-redis.enabled", Boolean.class, true)
				|| environment.containsProperty("spring.data.redis.url")) {
			return;
		}
		String host = environment.getProperty("spring.data.redis.host", "localhost");
		int port = environment.getProperty("spring.data.redis.port", Integer.class, 6379);
		if (answers(host, port, environment.getProperty("spring.data.redis.password"))) {
			logger.info("Using the Redis server at " + host + ":" + port);
			return;
		}
		RedisServer redis = RedisServer.builder().killedOnJvmExit(false).start();
		// after the application context has closed (its listeners stop first)
		SpringApplication.getShutdownHandlers().add(redis::close);
		environment.getPropertySources()
			.addFirst(new MapPropertySource("sampleEmbeddedRedis",
					Map.of("spring.data.redis.host", redis.host(), "spring.data.redis.port", redis.port())));
		logger.warn("No Redis answered at " + host + ":" + port + "; started an embedded one for this sample: "
				+ redis.describe() + ". Its data is deleted on exit.");
	}

	private static boolean answers(String host, int port, String password) {
		try {
			RespClient.call(host, port, password, Duration.ofSeconds(1), "PING");
			return true;
		}
		catch (RespClient.RedisErrorReply ex) {
			return true; // it answers; authentication is the application's business
		}
		catch (IOException ex) {
			return false;
		}
	}

}
