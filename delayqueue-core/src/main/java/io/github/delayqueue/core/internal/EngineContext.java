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

package io.github.delayqueue.core.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.Predicate;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.internal.control.FlowControls;
import io.github.delayqueue.core.internal.delivery.Heartbeats;
import io.github.delayqueue.core.internal.redis.MasterWatch;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.RedisClock;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.runtime.EventDispatcher;
import io.github.delayqueue.core.internal.runtime.LoopRunner;
import io.github.delayqueue.core.internal.scheduling.Schedulers;
import io.github.delayqueue.core.observation.DelayQueueObservations;

/**
 * What an engine hands to the listener containers built from it: the containers depend on
 * this, never on the engine, so the engine and the containers do not import each other.
 *
 * @param scripts the script runner
 * @param keys the keys of a queue (validating its name)
 * @param partitions the partition count of a queue
 * @param codec the payload codec
 * @param observer the observer
 * @param clock the JVM clock (lateness figures only)
 * @param schedulers the engine's schedulers
 * @param registry adds a queue to the registry of queues and checks its partition count
 * against Redis; returns the old partitions that drain after a change of that count
 * @param clientTimeout the Redis client's command timeout, or {@code null} when unknown
 * @param observations where the listeners record their observations
 * @param controls the flow controls: the pause state the listeners' gates follow
 * @param redisClock the Redis clock, by which messages expire
 * @param fairShare whether a queue is fair-share
 * @param masterWatch follows the master through role changes
 * @param events hands the containers' events to the engine's event listeners
 * @param workerThreads the engine's elastic pool of worker threads, shared by its
 * listeners
 * @param loops runs the steps of the listeners' loops that do not block
 * @param heartbeats the engine instance's heartbeat, which the containers join
 */
public record EngineContext(ScriptRunner scripts, Function<String, QueueKeys> keys,
		Function<String, Integer> partitions, MessageCodec codec, DelayQueueObserver observer, Clock clock,
		Schedulers schedulers, Function<String, List<QueueKeys>> registry, Duration clientTimeout,
		DelayQueueObservations observations, FlowControls controls, RedisClock redisClock, Predicate<String> fairShare,
		MasterWatch masterWatch, EventDispatcher events, Executor workerThreads, LoopRunner loops,
		Heartbeats heartbeats) {

	/**
	 * Returns how long a listener's blocking read may wait: its poll timeout, lowered
	 * when the client's command timeout would end the read first (the client would report
	 * a timeout, and the reader reconnect, on every idle poll).
	 * @param pollTimeout the configured poll timeout
	 * @return the poll timeout to use
	 */
	public Duration readBlock(Duration pollTimeout) {
		if (this.clientTimeout == null || this.clientTimeout.isZero() || this.clientTimeout.isNegative()) {
			return pollTimeout;
		}
		Duration margin = this.clientTimeout.dividedBy(4);
		if (margin.compareTo(Duration.ofMillis(500)) < 0) {
			margin = Duration.ofMillis(500);
		}
		Duration ceiling = this.clientTimeout.minus(margin);
		if (pollTimeout.compareTo(ceiling) <= 0) {
			return pollTimeout;
		}
		return (ceiling.compareTo(Duration.ofMillis(100)) > 0) ? ceiling : Duration.ofMillis(100);
	}

}
