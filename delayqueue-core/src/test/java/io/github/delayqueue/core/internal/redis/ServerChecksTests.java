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

package io.github.delayqueue.core.internal.redis;

import java.util.List;
import java.util.Properties;

import io.github.delayqueue.core.ServerCheck;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the server check names a server from its {@code INFO server} (as Redis 7.0.15 and
 * Valkey 8.0.1 answer it), and how it says which is the weakest of a cluster's masters.
 * {@code ServerSupportTests} checks the same on the real servers.
 */
class ServerChecksTests {

	@Test
	void valkeyIsNamedByItsOwnVersionNotByItsRedisVersion() {
		assertThat(
				ServerChecks.name(info("redis_version", "7.2.4", "server_name", "valkey", "valkey_version", "8.0.1")))
			.isEqualTo("Valkey 8.0.1");
		assertThat(ServerChecks.name(info("redis_version", "7.0.15"))).isEqualTo("Redis 7.0.15");
		assertThat(ServerChecks.name(info("redis_version", "7.2.4", "server_name", "keydb"))).isEqualTo("Keydb");
		assertThat(ServerChecks.name(info())).isNull();
		assertThat(ServerChecks.name(null)).isNull();
	}

	@Test
	void aValkeyCheckSaysValkeyInItsProblemsAndItsDescription() {
		ServerCheck check = new ServerCheck("7.2.4", "allkeys-lru", false, "everysec", 1, 0, "Valkey 8.0.1");
		assertThat(check.describeServer()).isEqualTo("Valkey 8.0.1 (redis_version 7.2.4)");
		assertThat(check.product()).isEqualTo("Valkey");
		assertThat(check.problems()).hasSize(3)
			.allSatisfy((problem) -> assertThat(problem).contains("Valkey").doesNotContain("Redis"));
		ServerCheck redis = new ServerCheck("7.0.15", "noeviction", true, "always");
		assertThat(redis.server()).isEqualTo("Redis 7.0.15");
		assertThat(redis.describeServer()).isEqualTo("Redis 7.0.15");
		assertThat(new ServerCheck(null, null, null, null).describeServer()).isEqualTo("an unknown server");
	}

	@Test
	void theWeakestOfAClustersMastersNamesTheOldestServer() {
		ServerCheck newer = new ServerCheck("7.2.4", "noeviction", true, "always", null, null, "Valkey 8.1.0");
		ServerCheck older = new ServerCheck("7.2.4", "noeviction", true, "always", null, null, "Valkey 8.0.1");
		ServerCheck redis = new ServerCheck("7.0.15", "noeviction", true, "always");
		assertThat(ServerCheck.weakest(List.of(newer, older)).server()).isEqualTo("Valkey 8.0.1");
		assertThat(ServerCheck.weakest(List.of(older, newer)).server()).isEqualTo("Valkey 8.0.1");
		assertThat(ServerCheck.weakest(List.of(newer, redis, older)).server()).isEqualTo("Redis 7.0.15");
	}

	private static Properties info(String... pairs) {
		Properties properties = new Properties();
		for (int i = 0; i < pairs.length; i += 2) {
			properties.setProperty(pairs[i], pairs[i + 1]);
		}
		return properties;
	}

}
