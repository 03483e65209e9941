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

package io.github.delayqueue.core.aot;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What the core reads or reflects on at run time, for an AOT-processed application or a
 * native image: the Lua scripts and their shared prelude, the outbox DDL, and the
 * optional libraries it detects by name. Registered through
 * {@code META-INF/spring/aot.factories}. The payload types of listener methods are
 * registered by {@link DelayListenerReflectiveProcessor}.
 */
public class DelayQueueRuntimeHints implements RuntimeHintsRegistrar {

	/** The classes the core looks for with {@code ClassUtils.isPresent}. */
	static final String[] DETECTED = { "tools.jackson.databind.json.JsonMapper", "redis.clients.jedis.Jedis",
			"io.lettuce.core.api.async.RedisStreamAsyncCommands", "io.lettuce.core.RedisFuture",
			"io.lettuce.core.output.IntegerOutput" };

	@Override
	public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
		hints.resources().registerPattern("META-INF/delayqueue/scripts/*.lua");
		hints.resources().registerPattern("META-INF/delayqueue/protocol/v*/*.lua");
		hints.resources().registerPattern("META-INF/delayqueue/outbox/*.sql");
		for (String name : DETECTED) {
			hints.reflection().registerTypeIfPresent(classLoader, name, (type) -> {
			});
		}
	}

}
