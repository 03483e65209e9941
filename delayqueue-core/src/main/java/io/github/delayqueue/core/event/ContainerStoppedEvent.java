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
 * A listener container stopped.
 *
 * @param queue the queue
 * @param group the consumer group
 * @param consumer the container's consumer name
 * @param reason how it stopped
 * @param time when it stopped
 */
public record ContainerStoppedEvent(String queue, String group, String consumer, Reason reason,
		Instant time) implements DelayQueueEvent {

	/**
	 * How a container stopped.
	 */
	public enum Reason {

		/** Stopped, every running handler finished within the shutdown timeout. */
		NORMAL,

		/**
		 * Stopped with handlers still running after the shutdown timeout: they go on, and
		 * their messages are acknowledged when they return (or redelivered after the
		 * visibility timeout if the JVM ends first).
		 */
		SHUTDOWN_TIMEOUT,

		/** Stopping failed (see the log); what it held is redelivered after the lease. */
		ERROR

	}

}
