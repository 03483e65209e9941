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
package io.github.delayqueue.core.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A recurring schedule under faults: five application instances (JVMs) declare the same
 * schedule at once, ticking every second; for 60 s one instance at a time is killed with
 * SIGKILL and another started (declaring it again), and Redis is killed and restarted
 * (AOF always) once. Each tick of the minute comes due exactly once, never early.
 */
@Tag("faults")
class ScheduleReliabilityTests {

	private static final String QUEUE = "recurring";

	private static final String SCHEDULE = "heartbeat";

	private final List<AutoCloseable> resources = new ArrayList<>();

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	private ReliabilitySupport.ChildJvm instance(RedisServer redis) throws Exception {
		ReliabilitySupport.ChildJvm child = new ReliabilitySupport.ChildJvm(ScheduleInstance.class,
				Integer.toString(redis.port()), QUEUE, SCHEDULE);
		synchronized (this.resources) {
			this.resources.add(child);
		}
		child.awaitLine("STARTED ", Duration.ofSeconds(60));
		return child;
	}

	@Test
	void fiveInstancesKilledAndRestartedAndARedisRestartFireEachTickOfAMinuteExactlyOnce() throws Exception {
		RedisServer redis = RedisServer.builder().appendOnly(RedisServer.AppendFsync.ALWAYS).start();
		this.resources.add(redis);
		QueueKeys keys = new QueueKeys("dq", QUEUE);
		// a group that reads nothing keeps every entry in the stream (no trim passes it):
		// the audit of what came due
		redis.execute("XGROUP", "CREATE", keys.stream(), "audit", "0", "MKSTREAM");
		ExecutorService starter = Executors.newFixedThreadPool(5);
		List<Future<ReliabilitySupport.ChildJvm>> starting = new ArrayList<>();
		for (int i = 0; i < 5; i++) {
			starting.add(starter.submit(() -> instance(redis)));
		}
		List<ReliabilitySupport.ChildJvm> instances = new ArrayList<>();
		for (Future<ReliabilitySupport.ChildJvm> future : starting) {
			instances.add(future.get());
		}
		starter.shutdown();
		long from = ReliabilitySupport.redisMillis(redis);
		long until = from + 60_000;
		boolean redisRestarted = false;
		int killed = 0;
		while (ReliabilitySupport.redisMillis(redis) < until - 3_000) {
			Thread.sleep(1_500 + ThreadLocalRandom.current().nextInt(2_500));
			if (!redisRestarted && ReliabilitySupport.redisMillis(redis) > from + 30_000) {
				redis.kill();
				redis.startAgain();
				redisRestarted = true;
				continue;
			}
			ReliabilitySupport.ChildJvm victim = instances
				.remove(ThreadLocalRandom.current().nextInt(instances.size()));
			assertThat(victim.kill()).as("the instance ended on SIGKILL").isTrue();
			killed++;
			instances.add(instance(redis));
		}
		while (ReliabilitySupport.redisMillis(redis) < until + 1_000) {
			Thread.sleep(100);
		}
		for (ReliabilitySupport.ChildJvm instance : instances) {
			instance.kill();
		}
		Map<Long, Integer> fired = new TreeMap<>();
		List<Long> lateness = new ArrayList<>();
		for (Object entry : (List<?>) redis.execute("XRANGE", keys.stream(), "-", "+")) {
			List<?> pair = (List<?>) entry;
			long addedAt = Long.parseLong(pair.get(0).toString().split("-")[0]);
			List<?> fields = (List<?>) pair.get(1);
			String id = fields.get(1).toString();
			long tick = Long.parseLong(id.substring(id.lastIndexOf('/') + 1));
			fired.merge(tick, 1, Integer::sum);
			lateness.add(addedAt - tick);
		}
		assertThat(fired.values()).as("messages per tick %s", fired).containsOnly(1);
		long first = (from / 1000 + 1) * 1000;
		List<Long> minute = new ArrayList<>();
		for (long tick = first; tick < first + 60_000; tick += 1000) {
			minute.add(tick);
		}
		assertThat(fired.keySet()).as("every tick of the minute").containsAll(minute);
		assertThat(lateness).as("never early").allSatisfy((late) -> assertThat(late).isNotNegative());
		List<Long> sorted = lateness.stream().sorted().toList();
		System.out.println("Recurring schedule under faults: " + fired.size() + " ticks, " + minute.size()
				+ " in the minute checked, each once; " + killed + " instances killed, Redis restarted once; "
				+ "lateness (entry added - tick) p50 " + sorted.get(sorted.size() / 2) + " ms, p99 "
				+ sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1) + " ms, max " + sorted.get(sorted.size() - 1)
				+ " ms");
	}

}
