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

import java.time.Duration;
import java.time.Instant;

/**
 * A listener container received no message for its idle event interval
 * ({@code ListenerSetters.idleEventInterval}); published again after each further
 * interval while it stays idle.
 *
 * @param queue the queue
 * @param group the consumer group
 * @param consumer the container's consumer name
 * @param idleTime how long it has received nothing
 * @param time when
 */
public record ContainerIdleEvent(String queue, String group, String consumer, Duration idleTime,
		Instant time) implements DelayQueueEvent {
}
