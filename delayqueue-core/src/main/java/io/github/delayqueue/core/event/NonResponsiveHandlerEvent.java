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
 * A handler ran past the container's lease renewal limit (and any lease it extended): its
 * message was given up (retried per policy, or dead-lettered) and its thread left to
 * finish while a new worker replaced it.
 *
 * @param queue the queue
 * @param group the consumer group
 * @param consumer the container's consumer name
 * @param messageId the message the handler holds
 * @param attempt its attempt
 * @param runningFor how long the handler had run
 * @param time when it was given up
 */
public record NonResponsiveHandlerEvent(String queue, String group, String consumer, String messageId, int attempt,
		Duration runningFor, Instant time) implements DelayQueueEvent {
}
