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

package io.github.delayqueue.core.internal.admin;

import java.util.List;
import java.util.OptionalLong;

import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.internal.redis.RedisCalls;
import io.github.delayqueue.core.internal.control.SizeLimits;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;

/**
 * The flow controls of {@link DelayQueueAdmin}: pause, rate, concurrency and size limits,
 * each stored in Redis for every instance and producer. Group names are checked by the
 * admin.
 */
public final class QueueControls {

	private final AdminContext context;

	public QueueControls(AdminContext context) {
		this.context = context;
	}

	public QueueControlState read(String queue) {
		QueueNames.queue(queue);
		return RedisCalls.inRedis("read the controls of queue '" + queue + "'",
				() -> this.context.controls().read(queue));
	}

	/** Pauses (or resumes) a queue, or one group of it. */
	public QueueControlState pause(String queue, String group, boolean pause) {
		QueueNames.queue(queue);
		String what = (pause ? "pause" : "resume") + " queue '" + queue + "'"
				+ ((group != null) ? ", group '" + group + "'" : "");
		return RedisCalls.inRedis(what, () -> pause ? this.context.controls().pause(queue, group)
				: this.context.controls().resume(queue, group));
	}

	/** Sets (or removes, {@code null}) the rate limit of a queue or one group of it. */
	public QueueControlState rate(String queue, String group, RateLimit limit) {
		QueueNames.queue(queue);
		String what = ((limit != null) ? "limit the rate of" : "remove the rate limit of") + " queue '" + queue + "'"
				+ ((group != null) ? ", group '" + group + "'" : "");
		return RedisCalls.inRedis(what, () -> this.context.controls().limitRate(queue, group, limit));
	}

	/**
	 * Sets (or removes, {@code null}) the concurrency limit of a queue or one group of
	 * it.
	 */
	public QueueControlState concurrency(String queue, String group, ConcurrencyLimit limit) {
		QueueNames.queue(queue);
		String what = ((limit != null) ? "limit the concurrency of" : "remove the concurrency limit of") + " queue '"
				+ queue + "'" + ((group != null) ? ", group '" + group + "'" : "");
		return RedisCalls.inRedis(what, () -> this.context.controls().limitConcurrency(queue, group, limit));
	}

	/**
	 * Counts the slots of a group's concurrency limit taken now, and the instances
	 * waiting for one (a limit of the whole group; a per-key limit's slots are not
	 * counted).
	 */
	public long[] slots(String queue, String group) {
		QueueNames.queue(queue);
		QueueNames.group(group);
		QueueKeys keys = this.context.partitionKeys(queue).get(0);
		List<Object> reply = RedisCalls.inRedis(
				"count the concurrency slots of queue '" + queue + "', group '" + group + "'",
				() -> this.context.scripts()
					.run(Scripts.SLOTS,
							List.of(keys.slots(group), keys.slotWaiters(group), keys.slotWaitersSeen(group)), "count"));
		return new long[] { ScriptRunner.asLong(reply.get(0)), ScriptRunner.asLong(reply.get(1)) };
	}

	/** Sets the size limit of a queue, or removes it ({@code null}). */
	public void limitSize(String queue, Long max) {
		QueueNames.queue(queue);
		if (max != null) {
			SizeLimits.check(queue, max);
		}
		RedisCalls.inRedis(
				((max != null) ? "limit the size of" : "remove the size limit of") + " queue '" + queue + "'", () -> {
					this.context.layouts().verifyPartitions(queue);
					return this.context.scripts().execute((connection) -> {
						SizeLimits.write(connection, this.context.partitionKeys(queue), max);
						return null;
					});
				});
	}

	public OptionalLong sizeLimit(String queue) {
		QueueNames.queue(queue);
		return RedisCalls.inRedis("read the size limit of queue '" + queue + "'", () -> this.context.scripts()
			.execute((connection) -> SizeLimits.read(connection, this.context.partitionKeys(queue).get(0))));
	}

}
