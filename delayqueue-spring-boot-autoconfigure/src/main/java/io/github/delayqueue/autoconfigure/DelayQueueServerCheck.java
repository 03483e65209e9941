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

package io.github.delayqueue.autoconfigure;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.ServerCheck;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Checks the Redis server's settings at start-up and logs which server it is
 * ({@code Redis 7.0.15}, {@code Valkey 8.0.1 (redis_version 7.2.4)}): an eviction policy
 * other than {@code noeviction} is logged as a warning (or fails the start-up with
 * {@code delayqueue.server-check.fail-on-eviction=true}); AOF switched off is logged. A
 * Redis that cannot be reached, or that hides its configuration, is logged and does not
 * stop the application.
 */
class DelayQueueServerCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(DelayQueueServerCheck.class);

	private final DelayQueueEngine engine;

	private final boolean failOnEviction;

	DelayQueueServerCheck(DelayQueueEngine engine, boolean failOnEviction) {
		this.engine = engine;
		this.failOnEviction = failOnEviction;
	}

	@Override
	public void afterSingletonsInstantiated() {
		ServerCheck check;
		try {
			check = this.engine.admin().checkServer();
		}
		catch (RuntimeException ex) {
			// Redis down, or a connection factory that is not usable yet: not a reason to
			// stop the application, whose listeners wait for Redis
			logger.warn("Cannot check the Redis server's settings now: " + ex.getMessage());
			return;
		}
		logger.info("delayqueue runs on " + check.describeServer());
		String product = check.product();
		if (check.maxmemoryPolicy() == null) {
			logger.info("Cannot read " + product + "'s maxmemory-policy (CONFIG is not available to this client); "
					+ "make sure it is noeviction, or messages may be lost when " + product + " runs out of memory");
		}
		for (String problem : check.problems()) {
			if (check.mayEvict() && problem.startsWith(product + " maxmemory-policy")) {
				if (this.failOnEviction) {
					throw new IllegalStateException(
							problem + ". (Start-up stopped by delayqueue.server-check.fail-on-eviction=true.)");
				}
				logger.warn(problem + ".");
			}
			else {
				logger.info(problem + ".");
			}
		}
	}

}
