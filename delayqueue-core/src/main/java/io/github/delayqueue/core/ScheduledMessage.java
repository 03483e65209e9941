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

package io.github.delayqueue.core;

import java.time.Instant;
import java.util.Map;

/**
 * A message waiting in a queue's schedule for its due time, as
 * {@link DelayQueueAdmin#scheduled} and {@link DelayQueueAdmin#scheduledMessage} read it.
 *
 * @param queue the queue
 * @param id the message id
 * @param partition the partition holding it
 * @param dueTime when it is due (Redis clock)
 * @param key the key its sender set, or {@code null}
 * @param headers its headers (empty when the envelope was unreadable)
 * @param payload the encoded payload (the raw envelope when it was unreadable)
 * @param priority its priority, 0 for none
 * @param expiresAt when it expires if not handled by then, or {@code null} for never
 * @param maxAttempts its own attempt limit, or 0 for its listener's
 */
public record ScheduledMessage(String queue, String id, int partition, Instant dueTime, String key,
		Map<String, String> headers, byte[] payload, int priority, Instant expiresAt, int maxAttempts) {

	/**
	 * A scheduled message without expiry or attempt limit of its own.
	 * @param queue the queue
	 * @param id the message id
	 * @param partition the partition holding it
	 * @param dueTime when it is due (Redis clock)
	 * @param key the key its sender set, or {@code null}
	 * @param headers its headers
	 * @param payload the encoded payload
	 * @param priority its priority, 0 for none
	 */
	public ScheduledMessage(String queue, String id, int partition, Instant dueTime, String key,
			Map<String, String> headers, byte[] payload, int priority) {
		this(queue, id, partition, dueTime, key, headers, payload, priority, null, 0);
	}

	/**
	 * Returns where a page that starts after this message starts: pass it as
	 * {@code after} to {@link DelayQueueAdmin#scheduled}.
	 * @return the cursor
	 */
	public String cursor() {
		return this.dueTime.toEpochMilli() + ":" + this.id;
	}

}
