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

import java.io.UncheckedIOException;
import java.util.List;

import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.test.RedisBinary;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.script.RedisScript;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server check names the server as it names itself, and what the engine uses of the
 * server it decides on what the server answers, not on its {@code redis_version} (Valkey
 * 8.0.1 reports 7.2.4). Runs on every server of the compatibility table (the default,
 * {@code redis-6.2} and {@code valkey-8.0} executions).
 */
@RedisTest
class ServerSupportTests {

	private final RedisServer redis;

	private final RedisConnectionFactory connectionFactory;

	ServerSupportTests(RedisServer redis, RedisConnectionFactory connectionFactory) {
		this.redis = redis;
		this.connectionFactory = connectionFactory;
	}

	@Test
	void theServerCheckNamesTheServerAsItNamesItself() {
		String serverName = this.redis.info("server_name");
		String redisVersion = this.redis.info("redis_version");
		if (RedisBinary.VALKEY.equals(System.getProperty(RedisBinary.PROPERTY))) {
			assertThat(serverName).as("the valkey-8.0 execution runs on Valkey").isEqualTo("valkey");
		}
		boolean valkey = "valkey".equals(serverName);
		String expected = valkey ? "Valkey " + this.redis.info("valkey_version") : "Redis " + redisVersion;
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build()) {
			ServerCheck check = engine.admin().checkServer();
			assertThat(check.server()).isEqualTo(expected);
			assertThat(check.version()).isEqualTo(redisVersion);
			assertThat(check.product()).isEqualTo(valkey ? "Valkey" : "Redis");
			assertThat(check.describeServer())
				.isEqualTo(valkey ? expected + " (redis_version " + redisVersion + ")" : expected);
		}
	}

	@Test
	void scriptFlagsAreUsedWhereTheServerTakesThem() {
		boolean takesFlags;
		try {
			this.redis.execute("EVAL", "#!lua flags=no-writes\nreturn 1", "0");
			takesFlags = true;
		}
		catch (UncheckedIOException ex) {
			assertThat(ex).hasStackTraceContaining("Error compiling script");
			takesFlags = false;
		}
		RedisScript<List<Object>> flagged = script("#!lua flags=no-writes\nreturn {'flagged'}");
		RedisScript<List<Object>> plain = script("return {'plain'}");
		ScriptRunner runner = new ScriptRunner(this.connectionFactory);
		for (int i = 0; i < 2; i++) {
			List<Object> reply = runner.run(flagged, plain, List.of());
			assertThat(new String((byte[]) reply.get(0))).isEqualTo(takesFlags ? "flagged" : "plain");
		}
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	private static RedisScript<List<Object>> script(String source) {
		return (RedisScript) RedisScript.of(source, List.class);
	}

}
