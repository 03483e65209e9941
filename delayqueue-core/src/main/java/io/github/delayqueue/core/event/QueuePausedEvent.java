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
 * A consumer group of a queue stopped starting handlers on this engine, because the queue
 * or the group was paused (by any instance: the change reaches every instance), or the
 * queue was found paused when its first container started.
 *
 * @param queue the queue
 * @param group the consumer group
 * @param time when this engine applied the pause
 */
public record QueuePausedEvent(String queue, String group, Instant time) implements DelayQueueEvent {
}
