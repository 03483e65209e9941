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

package io.github.delayqueue.core;

import java.util.OptionalLong;

import io.github.delayqueue.core.internal.redis.QueueNames;

/**
 * The flow controls of {@link DelayQueueAdmin}: pause, rate limits and size limits, each
 * stored in Redis for every instance and producer. Group names are checked by the admin.
 */
final class QueueControls {

	private final DelayQueueEngine engine;

	QueueControls(DelayQueueEngine engine) {
		this.engine = engine;
	}

	QueueControlState read(String queue) {
		QueueNames.queue(queue);
		return RedisCalls.inRedis("read the controls of queue '" + queue + "'",
				() -> this.engine.controls().read(queue));
	}

	/** Pauses (or resumes) a queue, or one group of it. */
	QueueControlState pause(String queue, String group, boolean pause) {
		QueueNames.queue(queue);
		String what = (pause ? "pause" : "resume") + " queue '" + queue + "'"
				+ ((group != null) ? ", group '" + group + "'" : "");
		return RedisCalls.inRedis(what,
				() -> pause ? this.engine.controls().pause(queue, group) : this.engine.controls().resume(queue, group));
	}

	/** Sets (or removes, {@code null}) the rate limit of a queue or one group of it. */
	QueueControlState rate(String queue, String group, RateLimit limit) {
		QueueNames.queue(queue);
		String what = ((limit != null) ? "limit the rate of" : "remove the rate limit of") + " queue '" + queue + "'"
				+ ((group != null) ? ", group '" + group + "'" : "");
		return RedisCalls.inRedis(what, () -> this.engine.controls().limitRate(queue, group, limit));
	}

	/** Sets the size limit of a queue, or removes it ({@code null}). */
	void limitSize(String queue, Long max) {
		QueueNames.queue(queue);
		if (max != null) {
			SizeLimits.check(queue, max);
		}
		RedisCalls.inRedis(
				((max != null) ? "limit the size of" : "remove the size limit of") + " queue '" + queue + "'", () -> {
					this.engine.layouts().verifyPartitions(queue);
					return this.engine.scripts().execute((connection) -> {
						SizeLimits.write(connection, this.engine.partitionKeys(queue), max);
						return null;
					});
				});
	}

	OptionalLong sizeLimit(String queue) {
		QueueNames.queue(queue);
		return RedisCalls.inRedis("read the size limit of queue '" + queue + "'", () -> this.engine.scripts()
			.execute((connection) -> SizeLimits.read(connection, this.engine.partitionKeys(queue).get(0))));
	}

}
