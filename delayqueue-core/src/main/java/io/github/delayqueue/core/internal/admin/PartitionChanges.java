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

package io.github.delayqueue.core.internal.admin;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.PartitionLayout;
import io.github.delayqueue.core.internal.redis.RedisCalls;
import io.github.delayqueue.core.internal.control.SizeLimits;

/**
 * Changes a queue's partition count without losing a message: the new count is stored in
 * Redis with the old one; consumers that declare the new count read the old partitions
 * too until they drain; the change is finished once they hold nothing, which retires them
 * (sends to them are refused from then on). See {@code docs/scaling.md}.
 */
public final class PartitionChanges {

	private static final byte[] PARTITIONS = "partitions".getBytes(StandardCharsets.UTF_8);

	private static final byte[] PREVIOUS = "previous".getBytes(StandardCharsets.UTF_8);

	private final AdminContext context;

	public PartitionChanges(AdminContext context) {
		this.context = context;
	}

	public PartitionLayout layout(String queue) {
		QueueKeys first = this.context.keys().apply(queue);
		return RedisCalls.inRedis("read the partitions of queue '" + queue + "'", () -> {
			int[] counts = counts(first);
			List<String> held = (counts[1] > 0) ? held(first.drainingPartitions(counts[0], counts[1]), "check")
					: List.of();
			return new PartitionLayout(queue, counts[0], counts[1], held);
		});
	}

	public PartitionLayout change(String queue, int count) {
		QueueKeys first = this.context.keys().apply(queue);
		if (count < 1 || count > QueueKeys.MAX_PARTITIONS) {
			throw new IllegalArgumentException("Partitions of queue '" + queue + "' must be between 1 and "
					+ QueueKeys.MAX_PARTITIONS + ", but was " + count);
		}
		return RedisCalls.inRedis("change the partitions of queue '" + queue + "'", () -> {
			int[] counts = counts(first);
			if (counts[1] > 0) {
				throw new IllegalStateException("Queue '" + queue + "' is already changing from " + counts[1] + " to "
						+ counts[0] + " partitions: finish that change first (finishPartitionChange), once its old "
						+ "partitions drained");
			}
			if (counts[0] == count) {
				throw new IllegalArgumentException("Queue '" + queue + "' already has " + count + " partition(s)");
			}
			List<QueueKeys> draining = first.drainingPartitions(count, counts[0]);
			// the size limit, if any, is copied to the partitions of the new layout
			OptionalLong limit = this.context.scripts()
				.execute((connection) -> SizeLimits.read(connection, first.partition(0, counts[0])));
			// a partition retired by an earlier change may be one of the new layout
			for (int partition = 0; partition < count; partition++) {
				QueueKeys keys = first.partition(partition, count);
				this.context.scripts().execute((connection) -> {
					connection.keyCommands().del(QueueKeys.bytes(keys.retired()));
					if (limit.isPresent()) {
						SizeLimits.write(connection, List.of(keys), limit.getAsLong());
					}
					return null;
				});
			}
			List<Object> reply = this.context.scripts()
				.run(Scripts.CHANGE_PARTITIONS, List.of(first.meta()), counts[0], count,
						draining.isEmpty() ? "0" : "1");
			if (ScriptRunner.asLong(reply.get(0)) != 1) {
				throw new IllegalStateException("Queue '" + queue + "' changed its partitions meanwhile (now "
						+ ScriptRunner.asLong(reply.get(1)) + ", previous " + ScriptRunner.asLong(reply.get(2))
						+ "); read them again before changing");
			}
			return new PartitionLayout(queue, count, draining.isEmpty() ? 0 : counts[0], List.of());
		});
	}

	public PartitionLayout finish(String queue) {
		QueueKeys first = this.context.keys().apply(queue);
		return RedisCalls.inRedis("finish the partition change of queue '" + queue + "'", () -> {
			int[] counts = counts(first);
			if (counts[1] == 0) {
				throw new IllegalStateException("Queue '" + queue + "' has no change of its partition count in "
						+ "progress (it has " + counts[0] + " partition(s))");
			}
			List<QueueKeys> draining = first.drainingPartitions(counts[0], counts[1]);
			refuseUnlessDrained(queue, counts, held(draining, "check"));
			List<QueueKeys> retired = new ArrayList<>();
			for (QueueKeys keys : draining) {
				List<String> held = held(List.of(keys), "retire");
				if (!held.isEmpty()) {
					// a message arrived since the check: the partitions stay in use
					for (QueueKeys undo : retired) {
						this.context.scripts()
							.execute((connection) -> connection.keyCommands().del(QueueKeys.bytes(undo.retired())));
					}
					refuseUnlessDrained(queue, counts, held);
				}
				retired.add(keys);
			}
			this.context.scripts()
				.execute((connection) -> connection.hashCommands().hDel(QueueKeys.bytes(first.meta()), PREVIOUS));
			return new PartitionLayout(queue, counts[0], 0, List.of());
		});
	}

	private static void refuseUnlessDrained(String queue, int[] counts, List<String> held) {
		if (!held.isEmpty()) {
			throw new IllegalStateException("Queue '" + queue + "' still holds messages in partitions of its old "
					+ "layout (" + counts[1] + " partitions): " + String.join("; ", held) + ". Consumers that "
					+ "declare " + counts[0] + " partitions drain them; finish the change once they are empty");
		}
	}

	/** The partition count in Redis, and the count before a change in progress or 0. */
	private int[] counts(QueueKeys first) {
		List<byte[]> values = this.context.scripts()
			.execute((connection) -> connection.hashCommands()
				.hMGet(QueueKeys.bytes(first.meta()), PARTITIONS, PREVIOUS));
		return new int[] { count(values, 0, 1), count(values, 1, 0) };
	}

	private static int count(List<byte[]> values, int index, int absent) {
		byte[] value = (values != null) ? values.get(index) : null;
		return (value != null) ? Integer.parseInt(new String(value, StandardCharsets.UTF_8)) : absent;
	}

	private static String groupName(List<?> fields) {
		for (int i = 0; i + 1 < fields.size(); i += 2) {
			if ("name".equals(ScriptRunner.asString(fields.get(i)))) {
				return ScriptRunner.asString(fields.get(i + 1));
			}
		}
		throw new IllegalStateException("XINFO GROUPS returned a group without a name: " + fields);
	}

	/**
	 * What old partitions hold, each line naming its partition; retires each drained one
	 * when asked.
	 */
	private List<String> held(List<QueueKeys> partitions, String mode) {
		List<String> held = new ArrayList<>();
		for (QueueKeys keys : partitions) {
			// every key the script touches is passed: the groups' retry keys too
			List<String> scriptKeys = new ArrayList<>(
					List.of(keys.delayed(), keys.stream(), keys.dead(), keys.retired()));
			List<Object> args = new ArrayList<>(List.of(mode));
			for (Object group : this.context.scripts().run(Scripts.GROUPS, List.of(keys.stream()))) {
				String name = groupName((List<?>) group);
				scriptKeys.add(keys.retryDelayed(name));
				scriptKeys.add(keys.retryStream(name));
				args.add(name);
			}
			scriptKeys.add(keys.urgent());
			scriptKeys.add(keys.fair());
			scriptKeys.add(keys.farState());
			List<Object> reply = this.context.scripts().run(Scripts.RETIRE, scriptKeys, args.toArray());
			for (Object line : reply) {
				held.add("partition " + keys.partition() + " ({" + keys.tag() + "}): " + ScriptRunner.asString(line));
			}
		}
		return held;
	}

}
