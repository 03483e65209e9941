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

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;

import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The {@code outage} scenario: how soon messages flow again once Redis answers after an
 * outage. A redis-server of its own (AOF {@code always}) is killed with a message due
 * during the outage, and started again after {@code outage}; measured from its answer
 * (the restart returns once it answers {@code PING}) to the message's delivery, and to
 * the first send that succeeds. Run with Lettuce's reconnect delay (exponential, up to 30
 * s) and with the one the starter contributes
 * ({@code DelayQueueRedisReconnectAutoConfiguration}: 100 ms doubling to 1 s), with the
 * client timeout of a Spring Boot application (60 s).
 */
final class OutageScenario {

	/** The starter's reconnect delay (delayqueue.reconnect.max-delay = 1 s). */
	static Delay starterDelay() {
		return Delay.exponential(Duration.ofMillis(100), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS);
	}

	List<Map<String, Object>> run(Duration outage, int runs) throws InterruptedException {
		List<Map<String, Object>> results = new ArrayList<>();
		results.add(run("lettuce-default", null, outage, runs));
		results.add(run("starter", starterDelay(), outage, runs));
		return results;
	}

	private Map<String, Object> run(String client, Delay delay, Duration outage, int runs) throws InterruptedException {
		List<Double> deliveries = new ArrayList<>();
		List<Double> sends = new ArrayList<>();
		for (int i = 0; i < runs; i++) {
			double[] measured = once(delay, outage);
			deliveries.add(measured[0]);
			sends.add(measured[1]);
		}
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("scenario", "outage");
		result.put("client", client);
		result.put("outage_s", outage.toSeconds());
		result.put("runs", runs);
		result.put("answer_to_delivery_ms", deliveries);
		result.put("answer_to_delivery_median_ms", Scenarios.round(median(deliveries)));
		result.put("answer_to_send_ms", sends);
		result.put("answer_to_send_median_ms", Scenarios.round(median(sends)));
		return result;
	}

	/** One outage: {Redis answering to the delivery, to the first send that succeeds}. */
	private double[] once(Delay delay, Duration outage) throws InterruptedException {
		ClientResources.Builder builder = ClientResources.builder();
		if (delay != null) {
			builder.reconnectDelay(delay);
		}
		ClientResources resources = builder.build();
		try (RedisServer redis = RedisServer.builder().appendOnly(RedisServer.AppendFsync.ALWAYS).start()) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(redis.standaloneConfiguration(),
					LettuceClientConfiguration.builder()
						.clientResources(resources)
						.commandTimeout(Duration.ofSeconds(60))
						.build());
			factory.afterPropertiesSet();
			factory.start();
			AtomicLong delivered = new AtomicLong();
			try (DelayQueueEngine engine = DelayQueueEngine.builder(factory).build()) {
				DelayQueueListenerContainer container = engine
					.listenerContainer("outage", "bench", String.class, (payload, context) -> {
						if (payload.equals("due-during-the-outage")) {
							delivered.compareAndSet(0, System.nanoTime());
						}
					})
					.build();
				container.start();
				try {
					engine.template().send("outage", "warm-up", Duration.ZERO);
					engine.template().send("outage", "due-during-the-outage", outage.dividedBy(2));
					Thread.sleep(200);
					redis.kill();
					Thread.sleep(outage.toMillis());
					redis.startAgain();
					long answered = System.nanoTime();
					long sent = 0;
					long deadline = answered + TimeUnit.SECONDS.toNanos(60);
					while ((sent == 0 || delivered.get() == 0) && System.nanoTime() - deadline < 0) {
						if (sent == 0) {
							try {
								engine.template().send("outage", "after", Duration.ofHours(1));
								sent = System.nanoTime();
							}
							catch (DelayQueueException ex) {
								// not reconnected yet
							}
						}
						Thread.sleep(5);
					}
					return new double[] { millis(answered, delivered.get()), millis(answered, sent) };
				}
				finally {
					container.stop();
				}
			}
			finally {
				factory.destroy();
			}
		}
		finally {
			resources.shutdown();
		}
	}

	private static double millis(long from, long to) {
		return (to == 0) ? Double.NaN : Scenarios.round((to - from) / 1e6);
	}

	private static double median(List<Double> values) {
		List<Double> sorted = values.stream().sorted().toList();
		return sorted.get(sorted.size() / 2);
	}

}
