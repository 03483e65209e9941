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

package io.github.delayqueue.autoconfigure.actuate;

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.core.DelayQueueOutbox;
import io.github.delayqueue.core.internal.runtime.BoundedCalls;

/**
 * What the health and the dashboard show of an outbox: its table, its backlog (rows not
 * yet moved to Redis and the age of the oldest: the relay's lag) from a database
 * answering within a second, and whether its relay relays.
 */
public final class OutboxStatus {

	private OutboxStatus() {
	}

	/**
	 * The outbox's status.
	 * @param outbox the outbox
	 * @return {@code table}, {@code rows}, {@code oldest} (ISO-8601) and
	 * {@code oldestMillis}, or {@code error} when the database did not answer, and
	 * {@code relay}: {@code relaying} or {@code failing: <why>}
	 */
	public static Map<String, Object> of(DelayQueueOutbox outbox) {
		Map<String, Object> details = new LinkedHashMap<>();
		details.put("table", outbox.table());
		try {
			DelayQueueOutbox.Backlog backlog = BoundedCalls.call(DelayQueueEndpoint.READ_BOUND, "the database",
					outbox::backlog);
			details.put("rows", backlog.rows());
			details.put("oldest", backlog.oldest().toString());
			details.put("oldestMillis", backlog.oldest().toMillis());
		}
		catch (RuntimeException ex) {
			details.put("error", "The outbox's backlog cannot be read: " + ex.getMessage());
		}
		Throwable failure = outbox.lastFailure();
		details.put("relay", outbox.isHealthy() ? "relaying"
				: "failing: " + ((failure != null) ? failure.getMessage() : "its loop does not run"));
		return details;
	}

}
