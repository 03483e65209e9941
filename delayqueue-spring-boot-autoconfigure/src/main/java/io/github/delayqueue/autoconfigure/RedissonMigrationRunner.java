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
import io.github.delayqueue.core.MigrationPayload;
import io.github.delayqueue.core.MigrationResult;
import io.github.delayqueue.core.RedissonMigration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;

/**
 * Moves the Redisson delayed queues named by {@code delayqueue.migration.redisson.queues}
 * into the delayqueue queues of the same names when the application starts (see
 * {@link RedissonMigration}); a start-up fails naming what could not be moved.
 */
class RedissonMigrationRunner implements ApplicationRunner {

	private static final Log logger = LogFactory.getLog(RedissonMigrationRunner.class);

	private final DelayQueueEngine engine;

	private final DelayQueueProperties.Migration.Redisson properties;

	private final MigrationPayload payload;

	RedissonMigrationRunner(DelayQueueEngine engine, DelayQueueProperties.Migration.Redisson properties) {
		this.engine = engine;
		this.properties = properties;
		this.payload = switch (properties.getPayload()) {
			case "string" -> MigrationPayload.string();
			case "json" -> MigrationPayload.json();
			case "bytes" -> MigrationPayload.bytes();
			default -> throw new IllegalStateException("delayqueue.migration.redisson.payload must be string, json or "
					+ "bytes (other codecs: RedissonMigration in code), but was '" + properties.getPayload() + "'");
		};
		for (String queue : properties.getQueues()) {
			RedissonMigration.from(queue).timeLimit(properties.getTimeLimit()).build();
		}
	}

	@Override
	public void run(ApplicationArguments args) {
		for (String queue : this.properties.getQueues()) {
			MigrationResult result = RedissonMigration.from(queue)
				.payload(this.payload)
				.timeLimit(this.properties.getTimeLimit())
				.build()
				.migrate(this.engine);
			logger.info("Moved Redisson delayed queue '" + queue + "' into queue '" + result.queue() + "': "
					+ result.scheduled() + " scheduled and " + result.ready() + " ready message(s)"
					+ ((result.gone() > 0) ? ", " + result.gone() + " taken by Redisson meanwhile" : "")
					+ (result.finished() ? "; nothing is left"
							: "; " + result.left() + " left after the time limit: they move at the next start-up"));
		}
	}

}
