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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;

import org.springframework.data.redis.connection.RedisConnection;
import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.internal.redis.RedisCalls;

/**
 * Reads a queue's state for {@link DelayQueueAdmin}: its stats over every partition, and
 * the owners of its partitions.
 */
public final class QueueInspection {

	private final AdminContext context;

	public QueueInspection(AdminContext context) {
		this.context = context;
	}

	/**
	 * Returns the names of all queues ever sent to or consumed under this key prefix.
	 * @return the queue names, sorted
	 */
	public Set<String> queues() {
		String registry = this.context.keyPrefix() + ":queues";
		return RedisCalls.inRedis("list queues", () -> this.context.scripts().execute((connection) -> {
			Set<String> names = new TreeSet<>();
			Set<byte[]> members = connection.setCommands().sMembers(QueueKeys.bytes(registry));
			if (members != null) {
				members.forEach((member) -> names.add(new String(member, StandardCharsets.UTF_8)));
			}
			return names;
		}));
	}

	/**
	 * Returns a snapshot of a queue.
	 * @param queue the queue
	 * @return its stats
	 */
	public QueueStats stats(String queue) {
		QueueNames.queue(queue);
		return RedisCalls.inRedis("read stats of queue '" + queue + "'",
				() -> this.context.scripts().execute((connection) -> {
					this.context.layouts().verifyPartitions(connection, queue);
					QueueStats total = null;
					for (QueueKeys keys : this.context.partitionKeys(queue)) {
						QueueStats partition = stats(connection, keys);
						total = (total == null) ? partition : sum(total, partition);
					}
					return total;
				}));
	}

	/**
	 * Returns which consumer of a group owns each partition of a queue, for a group that
	 * consumes it exclusively or in order; empty for a group that shares the partitions.
	 * @param queue the queue
	 * @param group the group
	 * @return consumer name by partition number, for the partitions owned now
	 */
	public SortedMap<Integer, String> partitionOwners(String queue, String group) {
		QueueNames.queue(queue);
		String checkedGroup = QueueNames.group(group);
		return RedisCalls.inRedis("read the partition owners of queue '" + queue + "'",
				() -> this.context.scripts().execute((connection) -> {
					this.context.layouts().verifyPartitions(connection, queue);
					SortedMap<Integer, String> owners = new TreeMap<>();
					for (QueueKeys keys : this.context.partitionKeys(queue)) {
						byte[] owner = connection.stringCommands().get(QueueKeys.bytes(keys.owner(checkedGroup)));
						if (owner != null) {
							owners.put(keys.partition(), new String(owner, StandardCharsets.UTF_8));
						}
					}
					return owners;
				}));
	}

	/**
	 * Returns the consumer groups a queue has: those Redis holds on the stream of any of
	 * its partitions, those of the listener containers built on this engine (a group is
	 * created in Redis when its container first connects), and those its controls name
	 * (so that a group paused or limited by mistake can be resumed or freed).
	 * @param queue the queue
	 * @return the groups, sorted
	 */
	public SortedSet<String> groups(String queue) {
		QueueNames.queue(queue);
		SortedSet<String> groups = new TreeSet<>(this.context.controls().groups(queue));
		return RedisCalls.inRedis("read the consumer groups of queue '" + queue + "'", () -> {
			QueueControlState controls = this.context.controls().read(queue);
			groups.addAll(controls.pausedGroups());
			groups.addAll(controls.groupRateLimits().keySet());
			groups.addAll(controls.groupConcurrencyLimits().keySet());
			return this.context.scripts().execute((connection) -> {
				this.context.layouts().verifyPartitions(connection, queue);
				for (QueueKeys keys : this.context.partitionKeys(queue)) {
					for (Map<String, Object> info : groupInfo(connection, keys.stream())) {
						groups.add(ScriptRunner.asString(info.get("name")));
					}
				}
				return groups;
			});
		});
	}

	/**
	 * Checks that a queue has a consumer group (see {@link #groups(String)}).
	 * @param queue the queue
	 * @param group the group
	 * @return the group
	 * @throws IllegalArgumentException when the name is invalid, or the queue has no such
	 * group, naming the groups it has
	 */
	public String requireGroup(String queue, String group) {
		QueueNames.group(group);
		if (this.context.controls().groups(queue).contains(group)) {
			// a listener of this engine: known without asking Redis
			return group;
		}
		SortedSet<String> groups = groups(queue);
		if (!groups.contains(group)) {
			throw new IllegalArgumentException("Queue '" + queue + "' has no consumer group '" + group + "'"
					+ (groups.isEmpty() ? ": it has none yet (a group appears when its first listener starts)"
							: "; its groups: " + String.join(", ", groups)));
		}
		return group;
	}

	/**
	 * Adds up the stats of two partitions: counts are summed, a group's consumers are the
	 * most seen in one partition (every consumer reads every partition), and an unknown
	 * ready count or lag (-1) stays unknown.
	 */
	private static QueueStats sum(QueueStats a, QueueStats b) {
		Map<String, QueueStats.GroupStats> groups = new LinkedHashMap<>();
		for (QueueStats.GroupStats group : a.groups()) {
			groups.put(group.group(), group);
		}
		for (QueueStats.GroupStats group : b.groups()) {
			groups.merge(group.group(), group,
					(x, y) -> new QueueStats.GroupStats(x.group(), Math.max(x.consumers(), y.consumers()),
							x.pending() + y.pending(), sumKnown(x.lag(), y.lag()),
							x.retryScheduled() + y.retryScheduled()));
		}
		return new QueueStats(a.queue(), a.scheduled() + b.scheduled(), sumKnown(a.ready(), b.ready()),
				a.inFlight() + b.inFlight(), a.dead() + b.dead(), new ArrayList<>(groups.values()));
	}

	private static long sumKnown(long a, long b) {
		return (a < 0 || b < 0) ? -1 : a + b;
	}

	private QueueStats stats(RedisConnection connection, QueueKeys keys) {
		// the far tier's messages are scheduled too
		byte[] far = connection.hashCommands().hGet(QueueKeys.bytes(keys.farState()), QueueKeys.bytes("n"));
		Long scheduled = orZero(connection.zSetCommands().zCard(QueueKeys.bytes(keys.delayed())))
				+ ((far != null) ? Long.parseLong(new String(far, StandardCharsets.US_ASCII)) : 0);
		long length = orZero(connection.streamCommands().xLen(QueueKeys.bytes(keys.stream())));
		// due messages with a priority wait in the urgent stream: counted as the others
		long urgentLength = orZero(connection.streamCommands().xLen(QueueKeys.bytes(keys.urgent())));
		Map<String, Map<String, Object>> urgent = new LinkedHashMap<>();
		if (urgentLength > 0) {
			for (Map<String, Object> info : groupInfo(connection, keys.urgent())) {
				urgent.put(ScriptRunner.asString(info.get("name")), info);
			}
		}
		// due messages waiting for their turn in a fair-share queue: each group is to
		// read
		// them
		long waiting = orZero(connection.zSetCommands().zCard(QueueKeys.bytes(keys.fair())));
		Long dead = connection.streamCommands().xLen(QueueKeys.bytes(keys.dead()));
		List<QueueStats.GroupStats> groups = new ArrayList<>();
		long inFlight = 0;
		long ready = length + urgentLength + waiting;
		boolean first = true;
		for (Map<String, Object> info : groupInfo(connection, keys.stream())) {
			String group = ScriptRunner.asString(info.get("name"));
			Map<String, Object> retry = groupInfo(connection, keys.retryStream(group)).stream()
				.filter((candidate) -> group.equals(ScriptRunner.asString(candidate.get("name"))))
				.findFirst()
				.orElse(Map.of());
			Map<String, Object> prioritized = urgent.get(group);
			long pending = number(info.get("pending")) + number(retry.get("pending"))
					+ ((prioritized != null) ? number(prioritized.get("pending")) : 0);
			long urgentLag = (urgentLength == 0) ? 0 : (prioritized == null) ? urgentLength
					: (prioritized.get("lag") != null) ? number(prioritized.get("lag")) : -1;
			long lag = (info.get("lag") != null && urgentLag >= 0) ? number(info.get("lag")) + urgentLag + waiting : -1;
			Long retries = connection.zSetCommands().zCard(QueueKeys.bytes(keys.retryDelayed(group)));
			groups.add(new QueueStats.GroupStats(group, number(info.get("consumers")), pending, lag,
					(retries != null) ? retries : 0));
			inFlight += pending;
			ready = first ? lag : (lag < 0 || ready < 0) ? -1 : Math.max(ready, lag);
			first = false;
		}
		return new QueueStats(keys.queue(), (scheduled != null) ? scheduled : 0, ready, inFlight,
				(dead != null) ? dead : 0, groups);
	}

	private static long orZero(Long value) {
		return (value != null) ? value : 0;
	}

	public static List<Map<String, Object>> groupInfo(RedisConnection connection, String stream) {
		List<Map<String, Object>> groups = new ArrayList<>();
		for (Object item : ScriptRunner.run(connection, Scripts.GROUPS, List.of(stream))) {
			Map<String, Object> fields = new LinkedHashMap<>();
			List<?> flat = (List<?>) item;
			for (int i = 0; i + 1 < flat.size(); i += 2) {
				fields.put(ScriptRunner.asString(flat.get(i)), flat.get(i + 1));
			}
			groups.add(fields);
		}
		return groups;
	}

	private static long number(Object value) {
		return (value != null) ? ScriptRunner.asLong(value) : 0;
	}

}
