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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.TreeMap;
import java.util.SortedMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.github.delayqueue.core.internal.redis.Scripts;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisClusterConnection;
import org.springframework.data.redis.connection.RedisClusterNode;
import org.springframework.data.redis.connection.RedisClusterServerCommands;
import org.springframework.data.redis.connection.RedisConnection;

/**
 * Inspects queues and manages dead letters: stats, list, replay, delete, purge. Obtain it
 * with {@link DelayQueueEngine#admin()}. Reads use the queue registry and per-queue keys,
 * never {@code SCAN}.
 */
public class DelayQueueAdmin {

	private static final String LARGEST_ENTRY_ID = "18446744073709551615-18446744073709551615";

	private final DelayQueueEngine engine;

	private final PartitionChanges partitionChanges;

	DelayQueueAdmin(DelayQueueEngine engine) {
		this.engine = engine;
		this.partitionChanges = new PartitionChanges(engine);
	}

	/**
	 * Reads a queue's partition count from Redis, and the state of a change of it.
	 * @param queue the queue
	 * @return its layout, with what the old partitions of a change in progress still hold
	 */
	public PartitionLayout partitionLayout(String queue) {
		return this.partitionChanges.layout(queue);
	}

	/**
	 * Starts changing a queue's partition count; nothing is lost. Redis stores the new
	 * count with the old one. From then on, engines that declare the new count send to
	 * the new partitions and their listeners read the old partitions too, until these
	 * drain; engines that still declare the old count keep working until they restart
	 * (they are refused then: declare the new count). Finish the change with
	 * {@link #finishPartitionChange(String)} once every application declares the new
	 * count and the old partitions are empty. A change between 1 and more partitions
	 * where every old partition is also a new one (1 to N) is finished at once. See
	 * {@code docs/scaling.md}.
	 * @param queue the queue
	 * @param count the new partition count, 1 to {@value QueueKeys#MAX_PARTITIONS}
	 * @return the new layout
	 * @throws IllegalArgumentException when the count is out of range or unchanged
	 * @throws IllegalStateException when an earlier change is still in progress
	 */
	public PartitionLayout changePartitions(String queue, int count) {
		return this.partitionChanges.change(queue, count);
	}

	/**
	 * Finishes a change of a queue's partition count: checks that its old partitions hold
	 * nothing (no scheduled message, no entry unread or unacknowledged by a group, no
	 * retry, no dead letter) and retires them, so that a send from an application that
	 * still declares the old count fails instead of going where nobody reads.
	 * @param queue the queue
	 * @return the layout, with no change in progress
	 * @throws IllegalStateException when no change is in progress, or when an old
	 * partition still holds something (the message lists what)
	 */
	public PartitionLayout finishPartitionChange(String queue) {
		return this.partitionChanges.finish(queue);
	}

	/**
	 * Returns the names of all queues ever sent to or consumed under this key prefix.
	 * @return the queue names, sorted
	 */
	public Set<String> queues() {
		String registry = this.engine.keyPrefix() + ":queues";
		return RedisCalls.inRedis("list queues", () -> this.engine.scripts().execute((connection) -> {
			Set<String> names = new TreeSet<>();
			Set<byte[]> members = connection.setCommands().sMembers(QueueKeys.bytes(registry));
			if (members != null) {
				members.forEach((member) -> names.add(new String(member, StandardCharsets.UTF_8)));
			}
			return names;
		}));
	}

	/**
	 * Reads the server settings that decide what delayqueue can promise: the
	 * {@code maxmemory-policy} ({@code CONFIG GET}) and the persistence ({@code INFO}).
	 * Settings the server does not let this client read are {@code null}. On Redis
	 * Cluster every master is read and the weakest answer reported (see
	 * {@link ServerCheck#weakest(List)}).
	 * @return what was read
	 * @throws DelayQueueException when Redis cannot be reached
	 */
	public ServerCheck checkServer() {
		return RedisCalls.inRedis("check the Redis server", () -> this.engine.scripts().execute((connection) -> {
			if (connection instanceof RedisClusterConnection cluster) {
				// a cluster connection's INFO and CONFIG name every key after its
				// node: read
				// each master on its own, and report the weakest
				List<ServerCheck> masters = new ArrayList<>();
				for (RedisClusterNode node : cluster.clusterGetNodes()) {
					if (node.isMaster() && !node.isMarkedAsFail()) {
						RedisClusterServerCommands server = cluster.serverCommands();
						masters.add(read((section) -> server.info(node, section),
								(parameter) -> server.getConfig(node, parameter)));
					}
				}
				return ServerCheck.weakest(masters);
			}
			return read(connection.serverCommands()::info, connection.serverCommands()::getConfig);
		}));
	}

	private static ServerCheck read(Function<String, Properties> info, Function<String, Properties> config) {
		Properties persistence = info.apply("persistence");
		Properties server = info.apply("server");
		String policy = null;
		String fsync = null;
		try {
			policy = config.apply("maxmemory-policy").getProperty("maxmemory-policy");
			fsync = config.apply("appendfsync").getProperty("appendfsync");
		}
		catch (DataAccessException ex) {
			// CONFIG disabled or not permitted (managed Redis, ACL): unknown
		}
		String aof = (persistence != null) ? persistence.getProperty("aof_enabled") : null;
		return new ServerCheck((server != null) ? server.getProperty("redis_version") : null, policy,
				(aof != null) ? "1".equals(aof.trim()) : null, fsync);
	}

	/**
	 * Reads the server's version ({@code INFO server}); on a cluster, the version of the
	 * master that serves a key.
	 * @param connection the connection
	 * @param key a key, for a cluster
	 * @return the version, or {@code null} when the server does not say
	 */
	static String serverVersion(RedisConnection connection, String key) {
		Properties server = (connection instanceof RedisClusterConnection cluster)
				? cluster.serverCommands().info(cluster.clusterGetNodeForKey(QueueKeys.bytes(key)), "server")
				: connection.serverCommands().info("server");
		return (server != null) ? server.getProperty("redis_version") : null;
	}

	/**
	 * Returns a snapshot of a queue.
	 * @param queue the queue
	 * @return its stats
	 */
	public QueueStats stats(String queue) {
		QueueNames.queue(queue);
		return RedisCalls.inRedis("read stats of queue '" + queue + "'",
				() -> this.engine.scripts().execute((connection) -> {
					this.engine.verifyPartitions(connection, queue);
					QueueStats total = null;
					for (QueueKeys keys : this.engine.partitionKeys(queue)) {
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
				() -> this.engine.scripts().execute((connection) -> {
					this.engine.verifyPartitions(connection, queue);
					SortedMap<Integer, String> owners = new TreeMap<>();
					for (QueueKeys keys : this.engine.partitionKeys(queue)) {
						byte[] owner = connection.stringCommands().get(QueueKeys.bytes(keys.owner(checkedGroup)));
						if (owner != null) {
							owners.put(keys.partition(), new String(owner, StandardCharsets.UTF_8));
						}
					}
					return owners;
				}));
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
		Long scheduled = connection.zSetCommands().zCard(QueueKeys.bytes(keys.delayed()));
		Long length = connection.streamCommands().xLen(QueueKeys.bytes(keys.stream()));
		Long dead = connection.streamCommands().xLen(QueueKeys.bytes(keys.dead()));
		List<QueueStats.GroupStats> groups = new ArrayList<>();
		long inFlight = 0;
		long ready = (length != null) ? length : 0;
		boolean first = true;
		for (Map<String, Object> info : groupInfo(connection, keys.stream())) {
			String group = ScriptRunner.asString(info.get("name"));
			Map<String, Object> retry = groupInfo(connection, keys.retryStream(group)).stream()
				.filter((candidate) -> group.equals(ScriptRunner.asString(candidate.get("name"))))
				.findFirst()
				.orElse(Map.of());
			long pending = number(info.get("pending")) + number(retry.get("pending"));
			long lag = (info.get("lag") != null) ? number(info.get("lag")) : -1;
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

	private static List<Map<String, Object>> groupInfo(RedisConnection connection, String stream) {
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

	/**
	 * Lists dead letters, oldest first.
	 * @param queue the queue
	 * @param after the entry id to start after ({@code <ms>-<seq>}), or {@code null} for
	 * the first page
	 * @param count the page size
	 * @return the page
	 */
	public List<DeadLetter> deadLetters(String queue, String after, int count) {
		QueueNames.queue(queue);
		if (count < 1) {
			throw new IllegalArgumentException("Page size must be at least 1, but was " + count);
		}
		int first = 0;
		String start = "-";
		if (after != null) {
			QueueNames.deadLetterId(after);
			first = QueueNames.deadLetterPartition(after);
			String streamId = QueueNames.deadLetterStreamId(after);
			// nothing comes after the largest id in its partition, and Redis rejects it
			// as
			// an exclusive start
			start = LARGEST_ENTRY_ID.equals(streamId) ? null : "(" + streamId;
		}
		int firstPartition = first;
		String firstStart = start;
		return RedisCalls.inRedis("list dead letters of queue '" + queue + "'",
				() -> this.engine.scripts().execute((connection) -> {
					this.engine.verifyPartitions(connection, queue);
					List<QueueKeys> partitions = this.engine.partitionKeys(queue);
					List<DeadLetter> page = new ArrayList<>();
					for (int partition = firstPartition; partition < partitions.size()
							&& page.size() < count; partition++) {
						String from = (partition == firstPartition) ? firstStart : "-";
						if (from == null) {
							continue;
						}
						List<Object> reply = ScriptRunner.run(connection, Scripts.DEAD_RANGE,
								List.of(partitions.get(partition).dead()), from, "+", count - page.size());
						for (Object item : reply) {
							page.add(WireFormat.deadLetter(queue, partition, (List<?>) item));
						}
					}
					return page;
				}));
	}

	/**
	 * Replays one dead letter: its group receives it again now, as attempt 1. The group's
	 * listener must be running somewhere for it to be delivered.
	 * @param queue the queue
	 * @param entryId the dead letter's entry id, {@code <ms>-<seq>}
	 * @return whether it was found and replayed
	 * @throws IllegalArgumentException when the entry id is not a stream id
	 */
	public boolean replay(String queue, String entryId) {
		QueueNames.deadLetterId(entryId);
		QueueKeys keys = partitionOf(queue, entryId);
		if (keys == null) {
			return false;
		}
		DeadLetter letter = find(queue, keys, entryId);
		if (letter == null) {
			return false;
		}
		return replay(keys, letter);
	}

	/**
	 * The keys of the partition a dead-letter entry id names, or {@code null} when the
	 * queue has no such partition.
	 */
	private QueueKeys partitionOf(String queue, String entryId) {
		verifyPartitions(queue);
		List<QueueKeys> partitions = this.engine.partitionKeys(queue);
		int partition = QueueNames.deadLetterPartition(entryId);
		return (partition < partitions.size()) ? partitions.get(partition) : null;
	}

	/** Checks the queue's partition count against Redis (once per queue and engine). */
	private void verifyPartitions(String queue) {
		RedisCalls.inRedis("read the partitions of queue '" + queue + "'", () -> {
			this.engine.verifyPartitions(queue);
			return null;
		});
	}

	private DeadLetter find(String queue, QueueKeys keys, String entryId) {
		String streamId = QueueNames.deadLetterStreamId(entryId);
		return RedisCalls.inRedis("read dead letter " + entryId, () -> this.engine.scripts().execute((c) -> {
			List<?> entries = ScriptRunner.run(c, Scripts.DEAD_RANGE, List.of(keys.dead()), streamId, streamId, 1);
			if (entries == null || entries.isEmpty()) {
				return null;
			}
			return WireFormat.deadLetter(queue, keys.partition(), (List<?>) entries.get(0));
		}));
	}

	private boolean replay(QueueKeys keys, DeadLetter letter) {
		String group = QueueNames.group(letter.group());
		List<Object> reply = RedisCalls.inRedis("replay dead letter " + letter.entryId(),
				() -> this.engine.scripts()
					.run(Scripts.REPLAY, List.of(keys.dead(), keys.retryDelayed(group)),
							QueueNames.deadLetterStreamId(letter.entryId()), group, keys.wakeChannel()));
		return ScriptRunner.asLong(reply.get(0)) == 1;
	}

	/**
	 * Replays every dead letter of a queue, or of one group of it.
	 * @param queue the queue
	 * @param group the group, or {@code null} for all groups
	 * @return how many were replayed
	 */
	public int replayAll(String queue, String group) {
		int replayed = 0;
		String after = null;
		while (true) {
			List<DeadLetter> page = deadLetters(queue, after, 100);
			if (page.isEmpty()) {
				return replayed;
			}
			for (DeadLetter letter : page) {
				if ((group == null || group.equals(letter.group()))
						&& replay(partitionOf(queue, letter.entryId()), letter)) {
					replayed++;
				}
			}
			after = page.get(page.size() - 1).entryId();
		}
	}

	/**
	 * Deletes one dead letter.
	 * @param queue the queue
	 * @param entryId the dead letter's entry id, {@code <ms>-<seq>}
	 * @return whether it existed
	 * @throws IllegalArgumentException when the entry id is not a stream id
	 */
	public boolean deleteDeadLetter(String queue, String entryId) {
		QueueNames.deadLetterId(entryId);
		QueueKeys keys = partitionOf(queue, entryId);
		if (keys == null) {
			return false;
		}
		Long deleted = RedisCalls.inRedis("delete dead letter " + entryId,
				() -> this.engine.scripts()
					.execute((c) -> c.streamCommands()
						.xDel(QueueKeys.bytes(keys.dead()), org.springframework.data.redis.connection.stream.RecordId
							.of(QueueNames.deadLetterStreamId(entryId)))));
		return deleted != null && deleted > 0;
	}

	/**
	 * Deletes all dead letters of a queue, in one atomic step.
	 * @param queue the queue
	 * @return how many were deleted: exactly those, also when dead letters are added
	 * concurrently
	 */
	public long purgeDeadLetters(String queue) {
		verifyPartitions(queue);
		long purged = 0;
		for (QueueKeys keys : this.engine.partitionKeys(queue)) {
			List<Object> reply = RedisCalls.inRedis("purge dead letters of queue '" + queue + "'",
					() -> this.engine.scripts().run(Scripts.PURGE_DEAD, List.of(keys.dead())));
			purged += ScriptRunner.asLong(reply.get(0));
		}
		return purged;
	}

}
