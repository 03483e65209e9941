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

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import io.github.delayqueue.core.internal.redis.QueueKeys;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.stream.StreamInfo;

/**
 * What the flow-control contract suites share: a queue named after the test, and the
 * engines and listener containers a test started, stopped after it.
 */
abstract class QueueTestFixture {

	protected final RedisConnectionFactory connectionFactory;

	private final List<DelayQueueEngine> engines = new CopyOnWriteArrayList<>();

	private final List<DelayQueueListenerContainer> containers = new CopyOnWriteArrayList<>();

	/** The test's queue, named after the test method. */
	protected String queue;

	QueueTestFixture(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@BeforeEach
	void queueName(TestInfo info) {
		this.queue = info.getTestMethod().orElseThrow().getName();
	}

	@AfterEach
	void stop() {
		this.containers.forEach(DelayQueueListenerContainer::stop);
		this.engines.forEach(DelayQueueEngine::close);
	}

	/** Stops the listener containers started so far. */
	protected void stopListeners() {
		this.containers.forEach(DelayQueueListenerContainer::stop);
	}

	/** Builds an engine, closed after the test. */
	protected DelayQueueEngine build(DelayQueueEngineBuilder builder) {
		DelayQueueEngine engine = builder.build();
		this.engines.add(engine);
		return engine;
	}

	/**
	 * The messages due and not yet read by the queue's slowest group, as
	 * {@link QueueStats#ready()} tells it; where the server cannot (Redis 6.2: no
	 * {@code lag} in {@code XINFO GROUPS}, the stats say -1), counted in each partition's
	 * streams past each group's last read. Single servers only.
	 */
	protected long ready(DelayQueueEngine engine) {
		QueueStats stats = engine.admin().stats(this.queue);
		if (stats.ready() >= 0) {
			return stats.ready();
		}
		int partitions = engine.admin().partitionLayout(this.queue).partitions();
		Map<String, Long> byGroup = new TreeMap<>();
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (int p = 0; p < partitions; p++) {
				QueueKeys keys = engine.keys(this.queue).partition(p, partitions);
				for (String stream : List.of(keys.stream(), keys.urgent())) {
					if (connection.keyCommands().exists(bytes(stream)) != Boolean.TRUE) {
						continue;
					}
					for (StreamInfo.XInfoGroup group : connection.streamCommands().xInfoGroups(bytes(stream))) {
						List<?> unread = connection.streamCommands()
							.xRange(bytes(stream),
									Range.of(Range.Bound.exclusive(group.lastDeliveredId()), Range.Bound.unbounded()));
						byGroup.merge(group.groupName(), (long) unread.size(), Long::sum);
					}
				}
			}
		}
		return byGroup.values().stream().mapToLong(Long::longValue).max().orElse(0);
	}

	/**
	 * Waits for a condition; when it does not come, fails naming what the test saw, the
	 * queue's keys in Redis and the stacks of the engine's threads, so a stall in a full
	 * build (where it cannot be watched) says which part waited.
	 * @param engine the engine whose queue to describe
	 * @param group the listener's group
	 * @param atMost how long to wait
	 * @param condition what to wait for
	 * @param seen what the test saw, read when the wait failed
	 */
	protected void awaitOrExplain(DelayQueueEngine engine, String group, Duration atMost, Callable<Boolean> condition,
			Supplier<String> seen) {
		try {
			Awaitility.await().atMost(atMost).until(condition);
		}
		catch (ConditionTimeoutException ex) {
			throw new AssertionError("not within " + atMost + ": " + seen.get() + "\n" + explain(engine, group), ex);
		}
	}

	/**
	 * The queue's stats, its keys in Redis (every partition's delayed set, streams and
	 * groups, the group's slots and owner) and the stacks of the delayqueue threads.
	 * @param engine the engine whose queue to describe
	 * @param group the listener's group
	 * @return the description, several lines
	 */
	protected String explain(DelayQueueEngine engine, String group) {
		StringBuilder out = new StringBuilder();
		try {
			out.append("stats: ").append(engine.admin().stats(this.queue)).append('\n');
			for (DelayQueueListenerContainer container : this.containers) {
				out.append("container ")
					.append(container.consumerName())
					.append(": held ")
					.append(container.heldMessages())
					.append(", ")
					.append(container.isHealthy() ? "healthy" : "unhealthy: " + container.unhealthyReason())
					.append('\n');
			}
			int partitions = engine.admin().partitionLayout(this.queue).partitions();
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				QueueKeys first = engine.keys(this.queue);
				for (String key : List.of(first.slots(group), first.slotWaiters(group), first.slotWaitersSeen(group),
						first.slotsByKey(group), first.controlChannel())) {
					describe(connection, key, out);
				}
				for (int p = 0; p < partitions; p++) {
					QueueKeys keys = first.partition(p, partitions);
					for (String key : List.of(keys.delayed(), keys.stream(), keys.urgent(), keys.owner(group),
							keys.members(group))) {
						describe(connection, key, out);
					}
					for (String stream : List.of(keys.stream(), keys.urgent(), keys.retryStream(group))) {
						if (connection.keyCommands().exists(bytes(stream)) == Boolean.TRUE) {
							try {
								connection.streamCommands()
									.xPending(bytes(stream), group, Range.unbounded(), 10L)
									.forEach((message) -> out.append("  pending in ")
										.append(stream)
										.append(": ")
										.append(message.getIdAsString())
										.append(" of ")
										.append(message.getConsumerName())
										.append(", idle ")
										.append(message.getElapsedTimeSinceLastDelivery().toMillis())
										.append(" ms, delivered ")
										.append(message.getTotalDeliveryCount())
										.append('\n'));
							}
							catch (RuntimeException ex) {
								out.append("  (no pending entries of ")
									.append(stream)
									.append(": ")
									.append(ex)
									.append(")\n");
							}
						}
					}
				}
			}
		}
		catch (RuntimeException ex) {
			out.append("(could not read Redis: ").append(ex).append(")\n");
		}
		Thread.getAllStackTraces().forEach((thread, stack) -> {
			if (thread.getName().startsWith("delayqueue")) {
				out.append("thread ").append(thread.getName()).append(' ').append(thread.getState()).append('\n');
				Arrays.stream(stack).limit(14).forEach((frame) -> out.append("    at ").append(frame).append('\n'));
			}
		});
		return out.toString();
	}

	private static void describe(RedisConnection connection, String key, StringBuilder out) {
		String type = text(connection.execute("TYPE", bytes(key)));
		out.append(key).append(" (").append(type).append("): ");
		Object value = switch (type) {
			case "string" -> connection.execute("GET", bytes(key));
			case "hash" -> connection.execute("HGETALL", bytes(key));
			case "zset" -> connection.zSetCommands()
				.zRangeWithScores(bytes(key), 0, 9)
				.stream()
				.map((tuple) -> text(tuple.getValue()) + "=" + tuple.getScore())
				.toList();
			case "set" -> connection.execute("SMEMBERS", bytes(key));
			case "stream" -> "length " + connection.streamCommands().xLen(bytes(key)) + ", groups "
					+ connection.streamCommands().xInfoGroups(bytes(key)).toString();
			default -> "";
		};
		out.append(text(value)).append('\n');
	}

	private static String text(Object value) {
		if (value instanceof byte[] raw) {
			return new String(raw, StandardCharsets.UTF_8);
		}
		if (value instanceof List<?> list) {
			List<String> items = new ArrayList<>();
			list.forEach((item) -> items.add(text(item)));
			return items.toString();
		}
		return String.valueOf(value);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	/** Sleeps, keeping the interrupt. */
	protected static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	/** Starts a container, stopped after the test. */
	protected DelayQueueListenerContainer start(DelayQueueListenerContainer container) {
		container.start();
		this.containers.add(container);
		return container;
	}

}
