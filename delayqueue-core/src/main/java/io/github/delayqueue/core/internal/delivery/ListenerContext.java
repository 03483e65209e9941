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

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.internal.control.FlowGate;
import io.github.delayqueue.core.listener.ListenerSettings;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.RedisClock;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.runtime.EventDispatcher;
import io.github.delayqueue.core.internal.scheduling.Schedulers;
import io.github.delayqueue.core.observation.DelayQueueObservations;

/**
 * What the parts of one listener container share: where it reads (queue keys, group,
 * consumer name), how (settings), and the engine's services it uses.
 *
 * @param scripts the script runner
 * @param keys the queue's keys
 * @param group the consumer group
 * @param consumer this container's consumer name in the group
 * @param settings the container's settings
 * @param observer the engine's observer
 * @param codec the payload codec
 * @param clock the JVM clock (lateness figures only)
 * @param readBlock how long a blocking read waits: the poll timeout, below the client's
 * command timeout
 * @param observations where attempts are observed
 * @param gate whether handlers may start: closed while the queue or group is paused
 * @param redisClock the Redis clock, by which messages expire
 * @param fairShare whether the queue is fair-share: a reader fills the stream before it
 * reads
 * @param events hands the container's events to the engine's event listeners
 * @param schedulers the engine's schedulers, told of the retries this container schedules
 */
public record ListenerContext(ScriptRunner scripts, QueueKeys keys, String group, String consumer,
		ListenerSettings settings, DelayQueueObserver observer, MessageCodec codec, Clock clock, Duration readBlock,
		DelayQueueObservations observations, FlowGate gate, RedisClock redisClock, boolean fairShare,
		EventDispatcher events, Schedulers schedulers) {

	/**
	 * @return the queue
	 */
	public String queue() {
		return this.keys.queue();
	}

	/**
	 * @return the streams the container reads: the queue's, the group's retry stream, and
	 * the queue's urgent stream (due messages with a priority)
	 */
	public List<String> streams() {
		return List.of(this.keys.stream(), this.keys.retryStream(this.group), this.keys.urgent());
	}

	/**
	 * Returns the same listener's context on another partition of the queue.
	 * @param partition the keys of the partition
	 * @return the context
	 */
	public ListenerContext forPartition(QueueKeys partition) {
		return new ListenerContext(this.scripts, partition, this.group, this.consumer, this.settings, this.observer,
				this.codec, this.clock, this.readBlock, this.observations, this.gate, this.redisClock, this.fairShare,
				this.events, this.schedulers);
	}

	/**
	 * @return {@code queue 'q', group 'g'} for log lines ({@code queue 'q' (partition 3),
	 * group 'g'} in partitions 1 and above)
	 */
	public String label() {
		String partition = (this.keys.partition() == 0) ? "" : " (partition " + this.keys.partition() + ")";
		return "queue '" + queue() + "'" + partition + ", group '" + this.group + "'";
	}

	/**
	 * @param role the role of a thread, e.g. {@code reader}
	 * @return a thread name naming the queue and group
	 */
	public String threadName(String role) {
		return "delayqueue-" + this.keys.tag() + "-" + this.group + "-" + role;
	}

}
