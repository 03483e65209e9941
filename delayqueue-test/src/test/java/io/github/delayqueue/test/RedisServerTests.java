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

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

import org.springframework.dao.QueryTimeoutException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tests for {@link RedisServer}: each starts its own servers.
 */
class RedisServerTests {

	@Test
	void startsTwoServersSideBySide() {
		try (RedisServer first = RedisServer.start(); RedisServer second = RedisServer.start()) {
			assertThat(first.port()).isNotEqualTo(second.port()).isNotEqualTo(6379);
			assertThat(second.port()).isNotEqualTo(6379);
			first.execute("SET", "k", "first");
			second.execute("SET", "k", "second");
			assertThat(first.execute("GET", "k")).isEqualTo("first");
			assertThat(second.execute("GET", "k")).isEqualTo("second");
			assertThat(first.directory()).isNotEqualTo(second.directory());
		}
	}

	@Test
	void keepsAcknowledgedWritesAcrossKillAndRestartWithAofAlways() {
		try (RedisServer redis = RedisServer.builder().appendOnly(RedisServer.AppendFsync.ALWAYS).start()) {
			LettuceConnectionFactory factory = RedisServerExtension.connectionFactory(redis);
			try {
				StringRedisTemplate template = new StringRedisTemplate(factory);
				for (int i = 0; i < 100; i++) {
					template.opsForList().rightPush("list", Integer.toString(i));
				}
				int port = redis.port();
				redis.kill();
				assertThat(redis.isRunning()).isFalse();
				redis.startAgain();
				assertThat(redis.port()).isEqualTo(port);
				// the same client reconnects by itself
				assertThat(template.opsForList().size("list")).isEqualTo(100);
				assertThat(template.opsForList().index("list", 99)).isEqualTo("99");
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void losesUnpersistedDataOnKillWithoutAof() {
		try (RedisServer redis = RedisServer.start()) {
			redis.execute("SET", "k", "v");
			redis.kill();
			redis.startAgain();
			assertThat(redis.execute("GET", "k")).isNull();
		}
	}

	@Test
	void keepsDataAcrossGracefulRestartWithAof() {
		try (RedisServer redis = RedisServer.builder().appendOnly(RedisServer.AppendFsync.EVERYSEC).start()) {
			redis.execute("SET", "k", "v");
			redis.restart();
			assertThat(redis.execute("GET", "k")).isEqualTo("v");
		}
	}

	@Test
	void pausedServerTimesOutClientsAndAnswersAgainAfterResume() {
		try (RedisServer redis = RedisServer.start()) {
			LettuceConnectionFactory factory = RedisServerExtension.connectionFactory(redis, Duration.ofMillis(300));
			try {
				StringRedisTemplate template = new StringRedisTemplate(factory);
				template.opsForValue().set("k", "v");
				redis.pause();
				assertThatExceptionOfType(QueryTimeoutException.class)
					.isThrownBy(() -> template.opsForValue().get("k"));
				redis.resume();
				assertThat(template.opsForValue().get("k")).isEqualTo("v");
			}
			finally {
				factory.destroy();
			}
		}
	}

	@Test
	void closesAPausedServer() {
		RedisServer redis = RedisServer.start();
		redis.pause();
		redis.close();
		assertThat(redis.isRunning()).isFalse();
		assertThat(redis.directory()).doesNotExist();
	}

	@Test
	void requiresThePasswordWhenOneIsSet() {
		try (RedisServer redis = RedisServer.builder().password("s3cret").start()) {
			assertThat(redis.execute("PING")).isEqualTo("PONG");
			assertThat(redis.uri()).isEqualTo("redis://:s3cret@127.0.0.1:" + redis.port());
			assertThatExceptionOfType(IOException.class)
				.isThrownBy(() -> RespClient.call(redis.host(), redis.port(), null, Duration.ofSeconds(2), "GET", "k"))
				.withMessageContaining("NOAUTH");
		}
	}

	@Test
	void acceptsAclUsers() {
		try (RedisServer redis = RedisServer.builder().aclUser("app", "pw", "~dq:*", "+@all").start()) {
			assertThat(redis.execute("ACL", "WHOAMI")).isEqualTo("default");
			assertThat(redis.execute("ACL", "GETUSER", "app")).isNotNull();
			redis.requireVersion("7.0", "ACL DRYRUN");
			assertThat(redis.execute("ACL", "DRYRUN", "app", "SET", "dq:x", "1")).isEqualTo("OK");
		}
	}

	@Test
	void appliesMemoryLimitAndPolicy() {
		try (RedisServer redis = RedisServer.builder().maxMemory("8mb").maxMemoryPolicy("noeviction").start()) {
			assertThat(redis.info("maxmemory")).isEqualTo(Long.toString(8 * 1024 * 1024));
			assertThat(redis.info("maxmemory_policy")).isEqualTo("noeviction");
		}
	}

	@Test
	void enablesDebugCommand() {
		try (RedisServer redis = RedisServer.builder().enableDebugCommand().start()) {
			assertThat(redis.execute("DEBUG", "SLEEP", "0")).isEqualTo("OK");
		}
	}

	@Test
	void startsTheBinaryShippedInTheEmbeddedRedisArtifact() {
		Path embedded = RedisBinary.embedded();
		Assumptions.assumeTrue(embedded != null, "embedded-redis ships no binary for this platform");
		try (RedisServer redis = RedisServer.builder().binary(embedded).enableDebugCommand().start()) {
			assertThat(redis.info("redis_version")).startsWith("6.2");
			assertThat(redis.execute("DEBUG", "SLEEP", "0")).isEqualTo("OK");
		}
	}

	@Test
	void readsTheServerVersion() {
		try (RedisServer redis = RedisServer.start()) {
			String version = redis.version();
			assertThat(version).matches("\\d+\\.\\d+\\.\\d+").isEqualTo(redis.info("redis_version"));
			assertThat(redis.versionAtLeast(version)).isTrue();
			assertThat(redis.versionAtLeast("6.2")).as("every server the suite supports").isTrue();
			assertThat(redis.versionAtLeast("99.0")).isFalse();
		}
	}

	@Test
	void skipsATestThatNeedsANewerServerAndSaysWhy() {
		try (RedisServer redis = RedisServer.start()) {
			redis.requireVersion("6.2", "the oldest server the suite supports");
			assertThatExceptionOfType(TestAbortedException.class)
				.isThrownBy(() -> redis.requireVersion("99.0", "a future command"))
				.withMessageStartingWith(
						"Assumption failed: Needs Redis 99.0+ for a future command; the server is Redis "
								+ redis.version() + " (");
		}
	}

	@Test
	void comparesVersionsPartByPartNumerically() {
		assertThat(RedisServer.compareVersions("6.2.11", "7.0")).isNegative();
		assertThat(RedisServer.compareVersions("7.0.15", "7.0")).isPositive();
		assertThat(RedisServer.compareVersions("7.0", "7.0.0")).isZero();
		assertThat(RedisServer.compareVersions("7.10.0", "7.2")).isPositive();
		assertThat(RedisServer.compareVersions("7.2.0-rc1", "7.2")).isZero();
		assertThatIllegalArgumentException().isThrownBy(() -> RedisServer.compareVersions("unstable", "7.0"))
			.withMessageContaining("unstable");
	}

	@Test
	void reportsTheLogWhenTheServerCannotStart() {
		assertThatIllegalStateException()
			.isThrownBy(() -> RedisServer.builder().config("no-such-directive", "x").start())
			.withMessageContaining("no-such-directive");
	}

	@Test
	void writesTheServerLog() {
		try (RedisServer redis = RedisServer.start()) {
			assertThat(redis.log()).contains("Ready to accept connections");
		}
	}

}
