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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.internal.redis.QueueKeys;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
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
