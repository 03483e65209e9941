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

package io.github.delayqueue.core.internal.scheduling;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;

import io.github.delayqueue.core.DelaySchedule;
import io.github.delayqueue.core.ScheduleInfo;
import io.github.delayqueue.core.internal.redis.Envelope;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.RedisCalls;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.github.delayqueue.core.internal.routing.QueueLayouts;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The recurring schedules as Redis holds them, in each queue's schedules hash: writing
 * one ({@code schedule.lua}), reading them back, and the operator's actions
 * ({@code schedule-admin.lua}). {@code DelaySchedules} is its API.
 */
public final class ScheduleStore {

	private static final Log logger = LogFactory.getLog(ScheduleStore.class);

	private final ScriptRunner scripts;

	private final QueueLayouts layouts;

	private final Function<String, QueueKeys> keys;

	public ScheduleStore(ScriptRunner scripts, QueueLayouts layouts, Function<String, QueueKeys> keys) {
		this.scripts = scripts;
		this.layouts = layouts;
		this.keys = keys;
	}

	/**
	 * Creates or updates a schedule (see {@code DelaySchedules.register}).
	 * @param schedule the schedule
	 * @param ticks its ticks
	 * @param envelope its message's envelope, checked
	 * @return the schedule as the registration left it
	 */
	public ScheduleInfo register(DelaySchedule schedule, Ticks ticks, byte[] envelope) {
		QueueKeys keys = this.keys.apply(schedule.queue());
		String what = "register schedule '" + schedule.name() + "' of queue '" + schedule.queue() + "'";
		List<Object> reply = RedisCalls.inRedis(what, () -> {
			this.layouts.register(schedule.queue());
			long now = redisNow(keys);
			return this.scripts.run(Scripts.SCHEDULE, List.of(keys.schedules(), keys.delayed(), keys.messages()),
					keys.wakeChannel(), schedule.name(), ticks.definition(), envelope, policy(schedule.missedTicks()),
					schedule.missedAfter().toMillis(), Ticks.join(ticks.after(now, WireFormat.PLAN_AHEAD)));
		});
		long status = ScriptRunner.asLong(reply.get(0));
		if (status != 3 && logger.isInfoEnabled()) {
			logger.info(((status == 1) ? "Created" : "Updated") + " schedule '" + schedule.name() + "' of queue '"
					+ schedule.queue() + "': " + ticks.definition());
		}
		// as the script left it: a delete racing the registration cannot make it fail
		Map<String, byte[]> fields = WireFormat.fields(reply.subList(1, reply.size()));
		return info(schedule.queue(), schedule.name(), fields);
	}

	/**
	 * Lists a queue's schedules.
	 * @param queue the queue
	 * @return its schedules, by name
	 */
	public List<ScheduleInfo> list(String queue) {
		QueueKeys keys = this.keys.apply(queue);
		Map<byte[], byte[]> all = RedisCalls.inRedis("list the schedules of queue '" + queue + "'", () -> this.scripts
			.execute((connection) -> connection.hashCommands().hGetAll(QueueKeys.bytes(keys.schedules()))));
		Map<String, Map<String, byte[]>> byName = new TreeMap<>();
		if (all != null) {
			all.forEach((field, value) -> {
				String text = new String(field, StandardCharsets.UTF_8);
				if (text.length() > 2 && text.charAt(1) == ':') {
					byName.computeIfAbsent(text.substring(2), (name) -> new LinkedHashMap<>())
						.put(text.substring(0, 1), value);
				}
			});
		}
		List<ScheduleInfo> schedules = new ArrayList<>();
		byName.forEach((name, fields) -> {
			if (fields.containsKey("d") && fields.containsKey("e")) {
				schedules.add(info(queue, name, fields));
			}
		});
		return schedules;
	}

	/**
	 * Reads one schedule.
	 * @param queue the queue
	 * @param name the schedule
	 * @return the schedule, or empty when the queue has none of that name
	 */
	public Optional<ScheduleInfo> find(String queue, String name) {
		QueueKeys keys = this.keys.apply(queue);
		QueueNames.schedule(name);
		String[] letters = { "d", "e", "m", "g", "n", "l", "c", "x", "p", "u" };
		List<byte[]> values = RedisCalls.inRedis("read schedule '" + name + "' of queue '" + queue + "'",
				() -> this.scripts.execute((connection) -> {
					byte[][] fields = new byte[letters.length][];
					for (int i = 0; i < letters.length; i++) {
						fields[i] = SchedulePlanner.field(letters[i], name);
					}
					return connection.hashCommands().hMGet(QueueKeys.bytes(keys.schedules()), fields);
				}));
		Map<String, byte[]> fields = new LinkedHashMap<>();
		for (int i = 0; i < letters.length; i++) {
			if (values != null && values.get(i) != null) {
				fields.put(letters[i], values.get(i));
			}
		}
		if (!fields.containsKey("d") || !fields.containsKey("e")) {
			return Optional.empty();
		}
		return Optional.of(info(queue, name, fields));
	}

	/**
	 * Runs an operation of the schedule-admin script on one schedule.
	 * @param queue the queue
	 * @param name the schedule
	 * @param operation {@code delete}, {@code pause}, {@code resume} or {@code trigger}
	 * @param ticks the next ticks, for {@code resume}
	 * @return the script's reply
	 */
	public List<Object> admin(String queue, String name, String operation, String ticks) {
		QueueNames.schedule(name);
		QueueKeys keys = this.keys.apply(queue);
		return RedisCalls.inRedis(operation + " schedule '" + name + "' of queue '" + queue + "'",
				() -> this.scripts.run(Scripts.SCHEDULE_ADMIN,
						List.of(keys.schedules(), keys.delayed(), keys.messages(), keys.stream()), keys.wakeChannel(),
						operation, name, ticks));
	}

	/**
	 * Reads the Redis clock of a queue's first partition.
	 * @param queue the queue
	 * @return the time in epoch milliseconds
	 */
	/**
	 * Returns the id of a schedule's tick message.
	 * @param name the schedule
	 * @param tickMillis the tick, in epoch milliseconds
	 * @return the id
	 */
	public static String tickId(String name, long tickMillis) {
		return WireFormat.TICK_PREFIX + name + "/" + tickMillis;
	}

	public long now(String queue) {
		QueueKeys keys = this.keys.apply(queue);
		return RedisCalls.inRedis("read the clock of queue '" + queue + "'", () -> redisNow(keys));
	}

	private long redisNow(QueueKeys keys) {
		return ScriptRunner.asLong(this.scripts.run(Scripts.TIME, List.of(keys.delayed())).get(0));
	}

	private static String policy(DelaySchedule.MissedTicks missedTicks) {
		return (missedTicks == DelaySchedule.MissedTicks.SKIP) ? "skip" : "once";
	}

	private static ScheduleInfo info(String queue, String name, Map<String, byte[]> fields) {
		Ticks ticks;
		try {
			ticks = Ticks.parse(text(fields.get("d")));
		}
		catch (RuntimeException ex) {
			// written by a version that ticks in ways this one cannot read: listed all
			// the same
			ticks = null;
		}
		Envelope envelope = Envelope.decode(fields.get("e"));
		DelaySchedule.MissedTicks missed = "skip".equals(text(fields.get("m"))) ? DelaySchedule.MissedTicks.SKIP
				: DelaySchedule.MissedTicks.FIRE_ONCE;
		Duration missedAfter = Duration
			.ofMillis(number(fields.get("g"), DelaySchedule.DEFAULT_MISSED_AFTER.toMillis()));
		return new ScheduleInfo(queue, name, (ticks != null) ? ticks.cronExpression() : null,
				(ticks != null) ? ticks.zone() : null, (ticks != null) ? ticks.interval() : null, missed, missedAfter,
				fields.containsKey("p"), instant(fields.get("n")), instant(fields.get("l")), number(fields.get("c"), 0),
				number(fields.get("x"), 0), instant(fields.get("u")), envelope.headers(), envelope.payload());
	}

	private static String text(byte[] bytes) {
		return (bytes != null) ? new String(bytes, StandardCharsets.UTF_8) : null;
	}

	private static long number(byte[] bytes, long otherwise) {
		return (bytes != null) ? Long.parseLong(text(bytes)) : otherwise;
	}

	private static Instant instant(byte[] bytes) {
		return (bytes != null) ? Instant.ofEpochMilli(Long.parseLong(text(bytes))) : null;
	}

}
