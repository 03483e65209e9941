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

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.ServerCheck;
import io.github.delayqueue.test.RedisBinary;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The start-up check of the Redis server's settings, against servers configured the safe
 * and the unsafe way.
 */
@ExtendWith(OutputCaptureExtension.class)
class DelayQueueServerCheckTests {

	private static RedisServer evicting;

	private static RedisServer safe;

	@BeforeAll
	static void startServers() {
		evicting = RedisServer.builder().maxMemory("64mb").maxMemoryPolicy("allkeys-lru").start();
		safe = RedisServer.builder().maxMemoryPolicy("noeviction").appendOnly(RedisServer.AppendFsync.ALWAYS).start();
	}

	@AfterAll
	static void stopServers() {
		evicting.close();
		safe.close();
	}

	@Test
	void warnsLoudlyAboutAnEvictionPolicy(CapturedOutput output) {
		AllAutoConfigurations.runner(evicting).run((context) -> {
			assertThat(context).hasNotFailed();
			ServerCheck check = context.getBean(DelayQueueEngine.class).admin().checkServer();
			assertThat(check.maxmemoryPolicy()).isEqualTo("allkeys-lru");
			assertThat(check.mayEvict()).isTrue();
		});
		assertThat(output).contains("WARN")
			.contains(product(evicting) + " maxmemory-policy is 'allkeys-lru'")
			.contains("Set maxmemory-policy to noeviction");
	}

	@Test
	void failsTheStartupOnAnEvictionPolicyWhenAskedTo() {
		AllAutoConfigurations.runner(evicting)
			.withPropertyValues("delayqueue.server-check.fail-on-eviction=true")
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasMessageContaining("maxmemory-policy is 'allkeys-lru'")
					.hasMessageContaining("delayqueue.server-check.fail-on-eviction=true");
			});
	}

	@Test
	void saysNothingAboutASafeServer(CapturedOutput output) {
		AllAutoConfigurations.runner(safe)
			.withPropertyValues("delayqueue.server-check.fail-on-eviction=true")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ServerCheck check = context.getBean(DelayQueueEngine.class).admin().checkServer();
				assertThat(check.appendOnly()).isTrue();
				assertThat(check.appendFsync()).isEqualTo("always");
				assertThat(check.problems()).isEmpty();
			});
		assertThat(output).doesNotContain("maxmemory-policy is").doesNotContain("appendonly is 'no'");
	}

	@Test
	void namesTheServerAsItNamesItselfAtStartUp(CapturedOutput output) {
		String redisVersion = safe.version();
		String expected = "valkey".equals(safe.info("server_name"))
				? "Valkey " + safe.info("valkey_version") + " (redis_version " + redisVersion + ")"
				: "Redis " + redisVersion;
		if (RedisBinary.VALKEY.equals(System.getProperty(RedisBinary.PROPERTY))) {
			assertThat(expected).as("the valkey-8.0 execution runs on Valkey").startsWith("Valkey ");
		}
		AllAutoConfigurations.runner(safe).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(DelayQueueEngine.class).admin().checkServer().describeServer())
				.isEqualTo(expected);
		});
		assertThat(output).contains("delayqueue runs on " + expected + "\n")
			.doesNotContain("Redis maxmemory-policy")
			.doesNotContain("Valkey maxmemory-policy");
	}

	@Test
	void canBeSwitchedOff(CapturedOutput output) {
		AllAutoConfigurations.runner(evicting)
			.withPropertyValues("delayqueue.server-check.enabled=false",
					"delayqueue.server-check.fail-on-eviction=true")
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(DelayQueueServerCheck.class));
		assertThat(output).doesNotContain("maxmemory-policy is");
	}

	/** What the server check calls the server: Valkey says server_name:valkey. */
	private static String product(RedisServer server) {
		return "valkey".equals(server.info("server_name")) ? "Valkey" : "Redis";
	}

}
