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

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The Redis clock as the listeners need it to tell whether a message expired: for each
 * partition (on Cluster, each master has its own clock), a reading at most a second old,
 * carried forward by the JVM's monotonic clock. The estimate errs late: a reading is
 * dated when its call was sent, so the estimate is at least the server's time, by up to a
 * round trip. A message may therefore be taken as expired up to a round trip early, never
 * handed over after its expiry.
 */
public final class RedisClock {

	private static final Log logger = LogFactory.getLog(RedisClock.class);

	private static final long MAX_AGE_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final ScriptRunner scripts;

	private final Map<String, Reading> readings = new ConcurrentHashMap<>();

	/**
	 * @param scripts the engine's script runner
	 */
	public RedisClock(ScriptRunner scripts) {
		this.scripts = scripts;
	}

	/**
	 * Returns the time on the server of a partition, epoch ms, no earlier than its own
	 * clock; reads it when the last reading is a second old.
	 * @param keys the partition
	 * @return the epoch ms
	 */
	public long millis(QueueKeys keys) {
		long now = System.nanoTime();
		Reading reading = this.readings.get(keys.tag());
		if (reading == null || now - reading.sentNanos() > MAX_AGE_NANOS) {
			long sent = System.nanoTime();
			try {
				List<Object> reply = this.scripts.run(Scripts.TIME, Collections.singletonList(keys.stream()));
				reading = new Reading(ScriptRunner.asLong(reply.get(0)), sent);
				this.readings.put(keys.tag(), reading);
			}
			catch (RuntimeException ex) {
				// Redis unreachable: the last reading carried forward, else the JVM clock
				// (nothing can be acknowledged meanwhile anyway)
				logger.debug("Cannot read the Redis clock of " + keys.tag() + ": " + ex);
				if (reading == null) {
					return System.currentTimeMillis();
				}
			}
			now = System.nanoTime();
		}
		return reading.millis() + TimeUnit.NANOSECONDS.toMillis(now - reading.sentNanos());
	}

	private record Reading(long millis, long sentNanos) {
	}

}
