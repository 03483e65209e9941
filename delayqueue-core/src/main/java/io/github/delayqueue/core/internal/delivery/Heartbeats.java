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

package io.github.delayqueue.core.internal.delivery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;

/**
 * The engine instance's heartbeat, on one {@link SupervisedLoop} for all its containers:
 * every {@link #BEAT} one call renews the beat of each running container's consumer name
 * in one ZSET ({@code <prefix>:{heartbeat}:consumers}) and reads the members whose beat
 * lapsed. A member newly seen lapsed (its instance crashed or hung) is one signal to
 * every container of this instance, which then runs its recovery passes: that costs no
 * periodic command per queue or partition.
 */
public final class Heartbeats {

	private static final Log logger = LogFactory.getLog(Heartbeats.class);

	/** How often the beat is renewed and the lapsed members read. */
	public static final Duration BEAT = Duration.ofSeconds(2);

	/** How long a beat lasts: a member is lapsed once its beat is older than this. */
	public static final Duration STALENESS = Duration.ofSeconds(6);

	private final ScriptRunner scripts;

	private final String key;

	/** The consumer names of the running containers, with what each does on a lapse. */
	private final Map<String, Runnable> members = new ConcurrentHashMap<>();

	private final SupervisedLoop loop;

	/** The lapsed members seen at the last beat. */
	private Set<String> lapsed = Set.of();

	private boolean started;

	/**
	 * @param scripts runs the heartbeat script
	 * @param prefix the key prefix
	 */
	public Heartbeats(ScriptRunner scripts, String prefix) {
		this.scripts = scripts;
		this.key = QueueKeys.heartbeat(prefix);
		this.loop = new SupervisedLoop("heartbeat of the engine's containers", "delayqueue-heartbeat", this::beat);
	}

	/**
	 * Beats for a container from now on; starts the loop with the first one.
	 * @param consumer the container's consumer name (as it reads the streams)
	 * @param onLapse run (on the heartbeat's thread, so quickly) when some member lapsed
	 */
	synchronized void add(String consumer, Runnable onLapse) {
		this.members.put(consumer, onLapse);
		if (!this.started) {
			this.started = true;
			this.loop.start();
		}
		this.loop.wake();
	}

	/** Beats no more for a container (it stopped; its beat lapses by itself). */
	void remove(String consumer) {
		this.members.remove(consumer);
	}

	/**
	 * Looks the given consumers up.
	 * @param consumers consumer names
	 * @return those whose beat has not lapsed
	 */
	Set<String> live(List<String> consumers) {
		if (consumers.isEmpty()) {
			return Set.of();
		}
		List<Object> args = new ArrayList<>(List.of("live", STALENESS.toMillis()));
		args.addAll(consumers);
		Set<String> live = new HashSet<>();
		this.scripts.run(Scripts.HEARTBEAT, List.of(this.key), args.toArray())
			.forEach((name) -> live.add(ScriptRunner.asString(name)));
		return live;
	}

	/**
	 * @return why the heartbeat does not work now, {@code null} when it does
	 */
	public String problem() {
		return this.loop.problem();
	}

	/** Stops the loop (the engine closes). */
	public void close() {
		this.loop.stop(Duration.ofSeconds(2));
	}

	private long beat() {
		List<String> names = new ArrayList<>(this.members.keySet());
		if (!names.isEmpty()) {
			List<Object> args = new ArrayList<>(List.of("beat", STALENESS.toMillis()));
			args.addAll(names);
			Set<String> seen = new HashSet<>();
			this.scripts.run(Scripts.HEARTBEAT, List.of(this.key), args.toArray())
				.forEach((name) -> seen.add(ScriptRunner.asString(name)));
			Set<String> fresh = new HashSet<>(seen);
			fresh.removeAll(this.lapsed);
			this.lapsed = seen;
			if (!fresh.isEmpty()) {
				logger.info("The heartbeat of " + fresh + " lapsed: recovering their messages");
				this.members.values().forEach(Runnable::run);
			}
		}
		return TimeUnit.MILLISECONDS.toNanos(BEAT.toMillis());
	}

}
