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

import java.util.List;
import java.util.Map;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Counts the Redis commands run (those inside scripts included) from its making on, on
 * every master.
 */
final class CommandCount {

	private final RedisConnectionFactory connectionFactory;

	private final long processed;

	private final Map<String, Long> calls;

	private final Map<String, Long> usec;

	CommandCount(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.processed = processed(connectionFactory);
		this.calls = ServerInfo.commandCalls(connectionFactory);
		this.usec = ServerInfo.commandStat(connectionFactory, "usec");
	}

	/**
	 * @return the commands run since this count was made
	 */
	CommandsRun since() {
		return new CommandsRun(processed(this.connectionFactory) - this.processed, this.calls,
				ServerInfo.commandCalls(this.connectionFactory), this.usec,
				ServerInfo.commandStat(this.connectionFactory, "usec"));
	}

	/** The commands every master has processed so far. */
	static long processed(RedisConnectionFactory connectionFactory) {
		return sum(perMaster(connectionFactory));
	}

	/** The commands each master has processed so far. */
	static List<Long> perMaster(RedisConnectionFactory connectionFactory) {
		return ServerInfo.perMaster(connectionFactory, "stats", "total_commands_processed");
	}

	static long sum(List<Long> values) {
		return values.stream().mapToLong(Long::longValue).sum();
	}

	/**
	 * The commands run between two readings: the total, and the calls and microseconds by
	 * command.
	 */
	record CommandsRun(long total, Map<String, Long> callsBefore, Map<String, Long> callsAfter,
			Map<String, Long> usecBefore, Map<String, Long> usecAfter) {

		void putPerMessage(Map<String, Object> result, int n) {
			result.put("redis_commands_per_message", Scenarios.round(this.total / (double) n));
			result.put("redis_calls_per_message_by_command",
					ServerInfo.callsPerMessage(this.callsBefore, this.callsAfter, n));
			// a script's microseconds include those of the commands it ran
			result.put("redis_usec_per_message_by_command",
					ServerInfo.usecPerMessage(this.usecBefore, this.usecAfter, n));
		}

	}

}
