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

package io.github.delayqueue.test;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link RedisTest} and {@link RedisServerExtension}.
 */
@RedisTest(appendFsync = "always", maxMemoryPolicy = "noeviction")
class RedisTestExtensionTests {

	private final RedisServer server;

	RedisTestExtensionTests(RedisServer server) {
		this.server = server;
	}

	@Test
	void injectsAServerOfItsOwn(RedisServer injected) {
		assertThat(injected).isSameAs(this.server);
		assertThat(injected.port()).isNotEqualTo(6379);
		assertThat(injected.info("aof_enabled")).isEqualTo("1");
	}

	@Test
	void injectsATemplatePointingAtTheServer(StringRedisTemplate template, RedisConnectionFactory factory) {
		template.opsForValue().set("injected", "yes");
		assertThat(this.server.execute("GET", "injected")).isEqualTo("yes");
		try (var connection = factory.getConnection()) {
			assertThat(connection.serverCommands().getClientList()).isNotEmpty();
		}
	}

	@Nested
	class WhenNested {

		@Test
		void sharesTheServerOfTheEnclosingClass(RedisServer injected) {
			assertThat(injected).isSameAs(RedisTestExtensionTests.this.server);
		}

	}

}
