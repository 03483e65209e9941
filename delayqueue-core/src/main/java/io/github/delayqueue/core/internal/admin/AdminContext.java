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

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.github.delayqueue.core.internal.control.FlowControls;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.routing.QueueLayouts;

/**
 * What the admin operations need of their engine, given once when the engine is built.
 *
 * @param scripts the script runner
 * @param keyPrefix the engine's key prefix
 * @param keys a queue's keys (its name validated)
 * @param layouts the queues' partition layouts
 * @param controls the flow controls: pause and rate state in Redis, the listeners' gates
 * @param clock the JVM clock
 */
public record AdminContext(ScriptRunner scripts, String keyPrefix, Function<String, QueueKeys> keys,
		QueueLayouts layouts, FlowControls controls, Clock clock) {

	/**
	 * Returns the keys of every partition of a queue that holds messages (see
	 * {@link QueueLayouts#partitionKeys}).
	 * @param queue the queue
	 * @return the keys, partition 0 first
	 */
	public List<QueueKeys> partitionKeys(String queue) {
		return this.layouts.partitionKeys(queue);
	}

	/**
	 * Returns the partitions of a queue in the order a look-up of a message id reads
	 * them, as cancel does: the id's own partition first, then the others.
	 * @param queue the queue
	 * @param id the message id
	 * @return the keys
	 */
	public List<QueueKeys> lookUpOrder(String queue, String id) {
		List<QueueKeys> order = new ArrayList<>();
		order.add(this.layouts.keysFor(queue, id));
		for (QueueKeys keys : partitionKeys(queue)) {
			if (!order.contains(keys)) {
				order.add(keys);
			}
		}
		return order;
	}

}
