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
import java.util.Arrays;
import java.util.List;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.redis.WireFormat;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Plans the upcoming ticks of recurring schedules: the scripts fire ticks and install the
 * next one atomically, but cannot read a cron expression, so the JVM keeps
 * {@value WireFormat#PLAN_AHEAD} upcoming ticks of each schedule in Redis. A plan is
 * computed from the state read and written only if that state is still the schedule's
 * ({@code schedule-plan.lua}): planners on any number of instances can race, and none
 * plans a tick twice.
 */
public final class SchedulePlanner {

	private static final Log logger = LogFactory.getLog(SchedulePlanner.class);

	private final ScriptRunner scripts;

	/** The definitions that could not be read, each logged once. */
	private final java.util.Set<String> unreadable = java.util.concurrent.ConcurrentHashMap.newKeySet();

	/**
	 * Creates a planner.
	 * @param scripts the script runner
	 */
	public SchedulePlanner(ScriptRunner scripts) {
		this.scripts = scripts;
	}

	/**
	 * Plans the upcoming ticks of schedules of a queue.
	 * @param keys the keys of the queue's partition 0
	 * @param names the schedules
	 * @param redisNow Redis now, epoch ms
	 */
	public void plan(QueueKeys keys, List<String> names, long redisNow) {
		for (String name : names) {
			plan(keys, name, redisNow);
		}
	}

	private void plan(QueueKeys keys, String name, long redisNow) {
		List<byte[]> fields = this.scripts.execute((connection) -> connection.hashCommands()
			.hMGet(QueueKeys.bytes(keys.schedules()), field("d", name), field("n", name), field("q", name),
					field("l", name), field("g", name), field("p", name)));
		String definition = string(fields.get(0));
		if (definition == null || fields.get(5) != null) {
			// deleted or paused meanwhile
			return;
		}
		String pending = orEmpty(fields.get(1));
		String upcoming = orEmpty(fields.get(2));
		List<String> known = upcoming.isEmpty() ? List.of() : Arrays.asList(upcoming.split(","));
		long after;
		int count;
		if (pending.isEmpty()) {
			// stalled: from the last tick, leaving out the ones missed beyond the grace
			long last = (fields.get(3) != null) ? Long.parseLong(string(fields.get(3))) : Long.MIN_VALUE;
			long grace = (fields.get(4) != null) ? Long.parseLong(string(fields.get(4))) : 60_000;
			after = Math.max(last, redisNow - grace - 1);
			count = WireFormat.PLAN_AHEAD;
		}
		else {
			after = Long.parseLong(known.isEmpty() ? pending : known.get(known.size() - 1));
			count = WireFormat.PLAN_AHEAD - known.size();
		}
		if (count <= 0) {
			return;
		}
		List<Long> ticks;
		try {
			ticks = Ticks.parse(definition).after(after, count);
		}
		catch (RuntimeException ex) {
			// not a Redis failure: retrying cannot help, and the queue's other messages
			// must keep moving; said once per definition
			if (this.unreadable.add(keys.queue() + "/" + name + "/" + definition)) {
				logger.error("Cannot plan the ticks of schedule '" + name + "' of queue '" + keys.queue()
						+ "': its definition '" + definition + "' cannot be read (" + ex.getMessage()
						+ "); was it written by a newer version? Register it again to replace it");
			}
			return;
		}
		List<Object> planned = this.scripts.run(Scripts.SCHEDULE_PLAN,
				List.of(keys.schedules(), keys.delayed(), keys.messages()), keys.wakeChannel(), name, definition,
				pending, upcoming, Ticks.join(ticks));
		if (ScriptRunner.asLong(planned.get(0)) == 2) {
			logger.warn("Schedule '" + name + "' of queue '" + keys.queue() + "' (" + definition
					+ ") matches no time from now on: it ends, and stays listed with no next tick. Register it "
					+ "with an expression that matches, or delete it");
		}
	}

	/**
	 * The name of a field of a schedule in the schedules hash.
	 * @param letter the field's letter (see {@code prelude.lua})
	 * @param name the schedule
	 * @return the field, encoded
	 */
	public static byte[] field(String letter, String name) {
		return (letter + ":" + name).getBytes(StandardCharsets.UTF_8);
	}

	private static String string(byte[] bytes) {
		return (bytes != null) ? new String(bytes, StandardCharsets.UTF_8) : null;
	}

	private static String orEmpty(byte[] bytes) {
		return (bytes != null) ? string(bytes) : "";
	}

}
