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

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * What the partition test suites share: an engine declaring the test's queue (named after
 * the test method) with a given partition count, and resources closed after each test in
 * reverse order.
 */
abstract class PartitionedQueueFixture {

	final RedisConnectionFactory connectionFactory;

	/** The server holding a key: the only one, or the cluster master of its slot. */
	final Function<String, RedisServer> serverFor;

	final int partitions;

	private final List<AutoCloseable> resources = new ArrayList<>();

	String queue;

	DelayQueueEngine engine;

	PartitionedQueueFixture(RedisConnectionFactory connectionFactory, Function<String, RedisServer> serverFor,
			int partitions) {
		this.connectionFactory = connectionFactory;
		this.serverFor = serverFor;
		this.partitions = partitions;
	}

	@BeforeEach
	void engine(TestInfo info) {
		this.queue = info.getTestMethod().orElseThrow().getName();
		this.engine = track(
				DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, this.partitions).build());
	}

	@AfterEach
	void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
	}

	<T extends AutoCloseable> T track(T resource) {
		this.resources.add(resource);
		return resource;
	}

}
