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

package io.github.delayqueue.benchmark;

import java.util.List;
import java.util.Map;

import io.github.delayqueue.test.DatabaseServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Runs every benchmark scenario with tiny figures against a real Redis, so that the
 * harness cannot rot unnoticed. Asserts only that each scenario runs end to end and
 * reports its figures: speed and lateness targets are measured by the full runs, not by
 * tests.
 */
@RedisTest
class BenchmarkSmokeTests {

	@Test
	void runsEveryScenarioEndToEnd(LettuceConnectionFactory connectionFactory) throws Exception {
		List<Map<String, Object>> results = Benchmark.run(connectionFactory, Map.of("scenario", "smoke", "n", "200"));
		assertThat(results).extracting((result) -> result.get("scenario"))
			.startsWith("burst", "spread", "memory", "idle", "pause", "rate", "concurrency-cap", "concurrency-cost",
					"concurrency-cost", "concurrency-cost", "concurrency-cost", "dashboard", "priority", "fairness");
		assertThat(results.get(0)).containsEntry("complete", true)
			.containsEntry("acked", 200)
			.containsKeys("enqueue_per_s", "drain_per_s", "lateness_p99_ms");
		assertThat((double) results.get(0).get("redis_commands_per_message")).isPositive();
		assertThat(results.get(0)).containsKey("redis_calls_per_message_by_command");
		// the CPU split at the due instant: what the send spent, then the consumers
		assertThat(results.get(0)).containsEntry("sent_after_due", 0)
			.containsKeys("jvm_cpu_send_us_per_message", "jvm_cpu_consume_us_per_message",
					"redis_cpu_send_us_per_message", "redis_cpu_consume_us_per_message");
		assertThat((double) results.get(0).get("jvm_cpu_send_us_per_message")
				+ (double) results.get(0).get("jvm_cpu_consume_us_per_message"))
			.isCloseTo((double) results.get(0).get("jvm_cpu_us_per_message"),
					org.assertj.core.data.Offset.offset(0.05));
		assertThat(results.get(results.size() - 1)).containsEntry("scenario", "sends").containsEntry("scheduled", 200L);
		assertThat((double) results.get(results.size() - 1).get("sends_per_s")).isPositive();
		assertThat(results.get(1)).containsEntry("complete", true).containsEntry("received", 200);
		assertThat(results.get(2)).containsEntry("scheduled", 2000L).containsEntry("payload_bytes", 64);
		assertThat((double) results.get(2).get("bytes_per_message")).isPositive();
		assertThat((double) results.get(3).get("commands_per_s")).isPositive();
		assertThat((int) results.get(4).get("cycles")).isPositive();
		assertThat(results.get(4)).containsKeys("start_after_pause_p99_ms", "first_start_after_resume_max_ms");
		// 500/s with a burst of 10 over three instances: never more than 510 in a second
		assertThat(results.get(5)).containsEntry("started", 600).containsKey("achieved_per_s");
		assertThat((int) results.get(5).get("most_in_any_1s_window")).isBetween(1, 510);
		// the concurrency limit: never more running than the limit (4); its cost runs
		// drain all
		assertThat(results.get(6)).containsEntry("handled", 300);
		assertThat((int) results.get(6).get("most_running")).isLessThanOrEqualTo(4);
		assertThat(results.subList(7, 11)).allSatisfy((cost) -> assertThat(cost).containsEntry("handled", 500));
		assertThat(results.get(11)).containsEntry("dead_letters", 200)
			.containsKeys("scheduled_page_after_1000_p50_ms", "in_flight_max_ms");
		assertThat((long) results.get(11).get("history_bytes_at_bound")).isPositive();
		// a backlog of 2000 and 100 prioritized messages at concurrency 8
		assertThat((long) results.get(12).get("others_started_before_last_prioritized")).isLessThanOrEqualTo(16);
		// key a's backlog of 2000, keys b-k one each, at concurrency 8: fair share and
		// not
		assertThat(results.get(13)).containsEntry("fair_complete", true).containsEntry("plain_complete", true);
		assertThat((int) results.get(13).get("fair_starts_before_other_keys_max")).isLessThanOrEqualTo(2 * 8 * 11);
		assertThat((int) results.get(13).get("plain_starts_before_other_keys_max")).isGreaterThan(1900);
		// the burst drained by a batch listener
		assertThat(results.get(14)).containsEntry("scenario", "burst")
			.containsEntry("batch_size", 50)
			.containsEntry("complete", true)
			.containsEntry("acked", 200);
		assertThat((double) results.get(14).get("redis_cpu_us_per_message")).isPositive();
		assertThat((double) results.get(14).get("jvm_cpu_us_per_message")).isPositive();
		// 500 transactions from 4 threads on PostgreSQL, where the machine has it
		if (DatabaseServer.isAvailable(DatabaseServer.Kind.POSTGRESQL)) {
			assertThat(results.get(15)).containsEntry("scenario", "outbox")
				.containsEntry("after_commit_in_redis", 500)
				.containsEntry("outbox_in_redis", 500);
			// timed, 4 writers for 2 s: every committed message reached Redis
			assertThat(results.get(16)).containsEntry("scenario", "outbox").containsEntry("seconds", 2);
			assertThat(results.get(16).get("outbox_in_redis")).isEqualTo(results.get(16).get("outbox_transactions"));
			assertThat((int) results.get(16).get("outbox_transactions")).isPositive();
		}
		else {
			assertThat(results).hasSize(12);
		}
		// a sustained 1,000 a second for 2 s, every message delivered
		assertThat(results.get(results.size() - 2)).containsEntry("scenario", "sustained")
			.containsEntry("n", 2000)
			.containsEntry("complete", true)
			.containsEntry("received", 2000);
		assertThat((double) results.get(results.size() - 2).get("jvm_cpu_us_per_message")).isPositive();
	}

	@Test
	void runsTheFootprintScenarioInAJvmOfItsOwn(LettuceConnectionFactory connectionFactory) throws Exception {
		String redis = "redis://" + connectionFactory.getHostName() + ":" + connectionFactory.getPort();
		List<Map<String, Object>> results = Benchmark.run(connectionFactory, Map.of("scenario", "footprint", "redis",
				redis, "shapes", "2x1x1x1", "seconds", "1", "n", "200", "warm-up", "100"));
		assertThat(results).singleElement().satisfies((result) -> {
			assertThat(result).containsEntry("shape", "2x1x1x1")
				.containsEntry("complete", true)
				.containsEntry("received", 200)
				.containsKeys("idle_commands_per_s", "idle_redis_cpu_percent", "heap_after_gc_mb",
						"jvm_cpu_us_per_delivery", "lateness_p99_ms", "listeners_ready_ms");
			// the instance's own connections, not this JVM's
			assertThat((int) result.get("connections")).isPositive();
			assertThat((List<?>) result.get("threads_per_instance")).singleElement()
				.satisfies((threads) -> assertThat((int) threads).isGreaterThan(2));
			assertThat((double) result.get("idle_commands_per_s")).isPositive();
		});
	}

	@Test
	void rejectsAnUnknownScenario(LettuceConnectionFactory connectionFactory) {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> Benchmark.run(connectionFactory, Map.of("scenario", "nope")))
			.withMessageContaining("Unknown scenario 'nope'");
	}

	@Test
	void parsesRedisUris() {
		LettuceConnectionFactory factory = Benchmark.connect("redis://:secret@127.0.0.1:6391/2");
		try {
			assertThat(factory.getStandaloneConfiguration().getPort()).isEqualTo(6391);
			assertThat(factory.getStandaloneConfiguration().getDatabase()).isEqualTo(2);
			assertThat(factory.getStandaloneConfiguration().getPassword().get())
				.containsExactly("secret".toCharArray());
		}
		finally {
			factory.destroy();
		}
		assertThatIllegalArgumentException().isThrownBy(() -> Benchmark.connect("http://x:1"))
			.withMessageContaining("redis://HOST:PORT");
	}

}
