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

package io.github.delayqueue.core.internal.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;

import org.springframework.data.redis.connection.RedisConnection;
import io.github.delayqueue.core.Partitioner;
import io.github.delayqueue.core.internal.control.SizeLimits;

/**
 * The partition layout of an engine's queues: the counts declared on the engine, checked
 * once per queue against the count Redis holds (stored on first use), the keys of each
 * partition, the old partitions that drain during a change of the count, the routing of a
 * message key to its partition, and the registry of queues.
 */
public final class QueueLayouts {

	private final ScriptRunner scripts;

	private final Function<String, QueueKeys> keys;

	private final Map<String, Integer> partitions;

	private final Partitioner partitioner;

	private final Set<String> registered = ConcurrentHashMap.newKeySet();

	private final Set<String> partitionsVerified = ConcurrentHashMap.newKeySet();

	private final Map<String, List<QueueKeys>> partitionKeys = new ConcurrentHashMap<>();

	/** By queue: the old partitions still draining after a count change, as verified. */
	private final Map<String, List<QueueKeys>> draining = new ConcurrentHashMap<>();

	/** By queue: the size limits declared on the engine, written on first use. */
	private final Map<String, Long> sizeLimits;

	public QueueLayouts(ScriptRunner scripts, Function<String, QueueKeys> keys, Map<String, Integer> partitions,
			Partitioner partitioner, Map<String, Long> sizeLimits) {
		this.scripts = scripts;
		this.keys = keys;
		this.partitions = Map.copyOf(partitions);
		this.partitioner = partitioner;
		this.sizeLimits = Map.copyOf(sizeLimits);
	}

	/**
	 * Returns how many partitions a queue has, as declared on this engine.
	 * @param queue the queue
	 * @return the partition count, 1 unless declared
	 */
	public int partitions(String queue) {
		return this.partitions.getOrDefault(QueueNames.queue(queue), 1);
	}

	/**
	 * Returns the keys of every partition of a queue that holds messages: its current
	 * partitions, then, while a change of its partition count is in progress, the old
	 * partitions that drain (see {@link DelayQueueAdmin#changePartitions(String, int)}).
	 * The old ones are known once the queue's count was checked against Redis.
	 * @param queue the queue
	 * @return the keys, partition 0 first
	 */
	public List<QueueKeys> partitionKeys(String queue) {
		List<QueueKeys> current = currentPartitions(queue);
		List<QueueKeys> old = this.draining.get(current.get(0).queue());
		if (old == null) {
			return current;
		}
		List<QueueKeys> all = new ArrayList<>(current);
		all.addAll(old);
		return all;
	}

	/**
	 * Returns the old partitions of a queue that still drain after a change of its
	 * partition count, as seen when the count was checked against Redis.
	 * @param queue the queue
	 * @return their keys, none when no change is in progress
	 */
	public List<QueueKeys> drainingPartitions(String queue) {
		return this.draining.getOrDefault(QueueNames.queue(queue), List.of());
	}

	/** The partitions sends go to: those of the count declared here. */
	private List<QueueKeys> currentPartitions(String queue) {
		List<QueueKeys> known = (queue != null) ? this.partitionKeys.get(queue) : null;
		if (known != null) {
			// the send path asks once per message: no validation or allocation again
			return known;
		}
		return this.partitionKeys.computeIfAbsent(QueueNames.queue(queue), (name) -> {
			QueueKeys first = this.keys.apply(name);
			int count = partitions(name);
			List<QueueKeys> all = new ArrayList<>(count);
			for (int partition = 0; partition < count; partition++) {
				all.add(first.partition(partition, count));
			}
			return List.copyOf(all);
		});
	}

	/**
	 * Returns the keys of the partition a message key maps to.
	 * @param queue the queue
	 * @param key the message's key (its id when it has none)
	 * @return the keys of its partition
	 */
	public QueueKeys keysFor(String queue, String key) {
		List<QueueKeys> all = currentPartitions(queue);
		int count = all.size();
		if (count == 1) {
			return all.get(0);
		}
		int partition = this.partitioner.partition(key, count);
		if (partition < 0 || partition >= count) {
			throw new IllegalStateException("The partitioner " + this.partitioner + " mapped key '" + key
					+ "' of queue '" + queue + "' to partition " + partition + ", outside 0 to " + (count - 1));
		}
		return all.get(partition);
	}

	public void register(RedisConnection connection, QueueKeys keys) {
		verifyPartitions(connection, keys.queue());
		if (!this.registered.contains(keys.queue())) {
			connection.setCommands().sAdd(QueueKeys.bytes(keys.registry()), QueueKeys.bytes(keys.queue()));
			Long limit = this.sizeLimits.get(keys.queue());
			if (limit != null) {
				SizeLimits.write(connection, currentPartitions(keys.queue()), limit);
			}
			this.registered.add(keys.queue());
		}
	}

	/**
	 * Checks, once per queue and engine, that Redis holds the partition count declared
	 * here, storing it on first use.
	 * @throws IllegalStateException when Redis holds another count
	 */
	public void verifyPartitions(RedisConnection connection, String queue) {
		if (this.partitionsVerified.contains(queue)) {
			return;
		}
		int declared = partitions(queue);
		List<Object> reply = ScriptRunner.run(connection, Scripts.DECLARE_PARTITIONS,
				List.of(this.keys.apply(queue).meta()), declared);
		long stored = ScriptRunner.asLong(reply.get(0));
		long previous = ScriptRunner.asLong(reply.get(1));
		if (stored != declared) {
			String how = "(DelayQueueEngineBuilder.partitions, delayqueue.queues." + queue + ".partitions)";
			if (previous == declared) {
				throw new IllegalStateException("Queue '" + queue + "' is changing from " + previous + " to " + stored
						+ " partitions, but the old count (" + declared + ") is declared here: declare " + stored + " "
						+ how);
			}
			throw new IllegalStateException("Queue '" + queue + "' has " + stored + " partition(s) in Redis, but "
					+ declared + " are declared here. Producers and consumers of a queue must declare the same "
					+ "count " + how + "; a queue can grow from 1 partition, any other change is made with "
					+ "DelayQueueAdmin.changePartitions (see docs/scaling.md)");
		}
		if (previous > 0) {
			this.draining.put(queue, this.keys.apply(queue).drainingPartitions(declared, (int) previous));
		}
		else {
			this.draining.remove(queue);
		}
		this.partitionsVerified.add(queue);
	}

	/**
	 * Checks, once per queue and engine, that Redis holds the partition count declared
	 * here (see {@link #verifyPartitions(RedisConnection, String)}).
	 * @param queue the queue
	 * @throws IllegalStateException when Redis holds another count
	 */
	public void verifyPartitions(String queue) {
		if (!this.partitionsVerified.contains(QueueNames.queue(queue))) {
			this.scripts.execute((connection) -> {
				verifyPartitions(connection, queue);
				return null;
			});
		}
	}

	/**
	 * Adds a queue to the registry of queues and checks its partition count against Redis
	 * (once per queue and engine).
	 * @param queue the queue
	 * @throws IllegalStateException when Redis holds another partition count
	 */
	public void register(String queue) {
		QueueKeys keys = this.keys.apply(queue);
		if (!this.registered.contains(queue) || !this.partitionsVerified.contains(queue)) {
			this.scripts.execute((connection) -> {
				register(connection, keys);
				return null;
			});
		}
	}

}
