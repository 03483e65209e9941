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

package io.github.delayqueue.benchmark;

import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The Redis server's clock as seen from this JVM: the offset between the two is estimated
 * once from the {@code TIME} sample with the shortest round trip, so that lateness is
 * measured against the clock the engine schedules by.
 */
final class RedisClock {

	private final long offsetMicros;

	private RedisClock(long offsetMicros) {
		this.offsetMicros = offsetMicros;
	}

	static RedisClock measure(RedisConnectionFactory connectionFactory) {
		long bestRoundTrip = Long.MAX_VALUE;
		long bestOffset = 0;
		try (RedisConnection connection = connectionFactory.getConnection()) {
			for (int i = 0; i < 20; i++) {
				long before = jvmMicros();
				Long redisMicros = connection.serverCommands().time(TimeUnit.MICROSECONDS);
				long after = jvmMicros();
				if (redisMicros != null && after - before < bestRoundTrip) {
					bestRoundTrip = after - before;
					bestOffset = redisMicros - (before + after) / 2;
				}
			}
		}
		return new RedisClock(bestOffset);
	}

	private static long jvmMicros() {
		Instant now = Clock.systemUTC().instant();
		return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
	}

	/**
	 * @return now by the Redis clock, in microseconds since the epoch
	 */
	long nowMicros() {
		return jvmMicros() + this.offsetMicros;
	}

	/**
	 * @return now by the Redis clock, in milliseconds since the epoch
	 */
	long nowMillis() {
		return nowMicros() / 1000;
	}

	long offsetMicros() {
		return this.offsetMicros;
	}

}
