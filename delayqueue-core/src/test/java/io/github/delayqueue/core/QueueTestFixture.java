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

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.RedisConnectionFactory;

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
