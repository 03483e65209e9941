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

package io.github.delayqueue.core.internal.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The Lua scripts of the engine, one per state transition, read once from
 * {@code META-INF/delayqueue/scripts/} and run with EVALSHA (falling back to EVAL when
 * the server does not have them, e.g. after a restart or {@code SCRIPT FLUSH}).
 */
public final class Scripts {

	/** Schedules messages, or makes due ones ready. */
	public static final RedisScript<List<Object>> SEND = protocol("send");

	/** Moves due messages and retries to their streams. */
	public static final RedisScript<List<Object>> PROMOTE = load("promote");

	/**
	 * {@link #PROMOTE} flagged {@code allow-oom} (Redis 7+): it runs when Redis is over
	 * {@code maxmemory}, since each move frees more than it takes (a ZSET and a HASH
	 * entry for one stream entry). Without it, a full server could never deliver what is
	 * scheduled, and nothing would free the memory.
	 */
	public static final RedisScript<List<Object>> PROMOTE_ALLOW_OOM = load("promote", "#!lua flags=allow-oom\n");

	/** Schedules a retry or dead-letters a failed delivery. */
	public static final RedisScript<List<Object>> NACK = load("nack");

	/** Renews leases. */
	public static final RedisScript<List<Object>> EXTEND = load("extend");

	/** Claims entries whose lease expired. */
	public static final RedisScript<List<Object>> RECOVER = load("recover");

	/** Trims what every group has acknowledged. */
	public static final RedisScript<List<Object>> TRIM = load("trim");

	/** Cancels a scheduled message. */
	public static final RedisScript<List<Object>> CANCEL = protocol("cancel");

	/** Moves a scheduled message to another time. */
	public static final RedisScript<List<Object>> RESCHEDULE = protocol("reschedule");

	/** Reads the far tier: a message by id, or a page in due order. */
	public static final RedisScript<List<Object>> FAR_READ = load("far-read");

	/** Takes a permit of a rate limit, or holds every start for a while. */
	public static final RedisScript<List<Object>> RATE = bare("rate");

	/** Takes, frees, renews or counts concurrency slots. */
	public static final RedisScript<List<Object>> SLOTS = bare("slots");

	/** Reads the clock of a partition's server. */
	public static final RedisScript<List<Object>> TIME = load("time");

	/** Adds an engine's counts of a minute to a queue's history. */
	public static final RedisScript<List<Object>> HISTORY = load("history");

	/** Replays a dead letter. */
	public static final RedisScript<List<Object>> REPLAY = load("replay");

	/** Gives back a stopping consumer's unprocessed entries. */
	public static final RedisScript<List<Object>> RELEASE = load("release");

	/** Reads the consumer groups of a stream. */
	public static final RedisScript<List<Object>> GROUPS = load("groups");

	/** Declares a queue's partition count, or reads the one declared before. */
	public static final RedisScript<List<Object>> DECLARE_PARTITIONS = load("declare-partitions");

	/** Changes a queue's partition count. */
	public static final RedisScript<List<Object>> CHANGE_PARTITIONS = load("change-partitions");

	/** Checks that an old partition drained, and retires it. */
	public static final RedisScript<List<Object>> RETIRE = load("retire");

	/** Fills a fair-share queue's stream before a read (see {@code fair-fill.lua}). */
	public static final RedisScript<List<Object>> FAIR_FILL = load("fair-fill");

	/** Reads dead letters for a dead-letter handler's consumer group. */
	public static final RedisScript<List<Object>> DEAD_READ = load("dead-read");

	/** Reads a page of dead letters. */
	public static final RedisScript<List<Object>> DEAD_RANGE = load("dead-range");

	/** Counts dead letters by error, or lists those of one error. */
	public static final RedisScript<List<Object>> DEAD_ERRORS = load("dead-errors");

	/** Removes dead letters past their retention. */
	public static final RedisScript<List<Object>> TRIM_DEAD = load("trim-dead");

	/** The slow sweep of a partition for a group, by one instance per period. */
	public static final RedisScript<List<Object>> SWEEP = load("sweep");

	/** The engine instances' heartbeat. */
	public static final RedisScript<List<Object>> HEARTBEAT = load("heartbeat");

	/** Removes a consumer from its group where it holds nothing (clean stop). */
	public static final RedisScript<List<Object>> FORGET_CONSUMER = load("forget-consumer");

	/**
	 * Pauses or resumes a queue or a group of it, and publishes the queue's pause state.
	 */
	public static final RedisScript<List<Object>> CONTROL = load("control");

	/** Deletes all dead letters of a queue and counts them. */
	public static final RedisScript<List<Object>> PURGE_DEAD = load("purge-dead");

	/** Creates or updates a recurring schedule. */
	public static final RedisScript<List<Object>> SCHEDULE = load("schedule");

	/** Adds upcoming ticks to a recurring schedule. */
	public static final RedisScript<List<Object>> SCHEDULE_PLAN = load("schedule-plan");

	/** Deletes, pauses, resumes or triggers a recurring schedule. */
	public static final RedisScript<List<Object>> SCHEDULE_ADMIN = load("schedule-admin");

	private Scripts() {
	}

	/** Heartbeat, join and leave of an exclusive group's members. */
	public static final RedisScript<List<Object>> MEMBERS = load("members");

	/** Takes, renews or gives up a partition's lease. */
	public static final RedisScript<List<Object>> OWN = load("own");

	/** Gives a partition's new owner every entry pending in its streams. */
	public static final RedisScript<List<Object>> TAKE_OVER = load("take-over");

	/**
	 * A script of the producer protocol, as the build assembled it
	 * ({@link ProtocolScripts}): the very file other languages' clients run.
	 */
	@SuppressWarnings("unchecked")
	private static RedisScript<List<Object>> protocol(String name) {
		return (RedisScript<List<Object>>) (RedisScript<?>) RedisScript.of(ProtocolScripts.load(name), List.class);
	}

	private static RedisScript<List<Object>> load(String name) {
		return load(name, "");
	}

	/**
	 * A script run once per handler start, without the prelude: Redis runs a script's
	 * whole text at each call, and the prelude's definitions cost it tens of
	 * microseconds, several times what such a script does.
	 */
	@SuppressWarnings("unchecked")
	private static RedisScript<List<Object>> bare(String name) {
		return (RedisScript<List<Object>>) (RedisScript<?>) RedisScript.of(read(name), List.class);
	}

	private static String read(String name) {
		String path = "META-INF/delayqueue/scripts/" + name + ".lua";
		try (InputStream in = Scripts.class.getClassLoader().getResourceAsStream(path)) {
			if (in == null) {
				throw new IllegalStateException("Missing script " + path);
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read script " + path, ex);
		}
	}

	@SuppressWarnings("unchecked")
	private static RedisScript<List<Object>> load(String name, String shebang) {
		String source = shebang + WireFormat.prelude() + read(name);
		return (RedisScript<List<Object>>) (RedisScript<?>) RedisScript.of(source, List.class);
	}

}
