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
 * A listener container started: it reads its queue's partitions (or, exclusive, those it
 * comes to own).
 *
 * @param queue the queue
 * @param group the consumer group
 * @param consumer the container's consumer name
 * @param time when it started
 */
public record ContainerStartedEvent(String queue, String group, String consumer,
		Instant time) implements DelayQueueEvent {
}
