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
package io.github.delayqueue.core.event;

import java.time.Instant;

/**
 * Something a listener container of this engine did or saw. Delivered to the engine's
 * {@link DelayQueueEventListener}s on one thread of the engine's, in the order they
 * happened, never on a worker's thread, and never holding delivery back: when the
 * listeners fall more than {@value DelayQueueEventListener#MAX_WAITING} events behind,
 * newer ones are dropped (counted, and logged at WARN).
 */
public sealed interface DelayQueueEvent
		permits ContainerStartedEvent, ContainerStoppedEvent, ContainerFailedToStartEvent, ContainerIdleEvent,
		NonResponsiveHandlerEvent, QueuePausedEvent, QueueResumedEvent, PartitionTakenEvent, PartitionGivenUpEvent {

	/**
	 * @return the queue
	 */
	String queue();

	/**
	 * @return the consumer group
	 */
	String group();

	/**
	 * @return when it happened
	 */
	Instant time();

}
