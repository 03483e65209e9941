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

import java.time.Duration;

/**
 * A message being handled, or delivered and not yet acknowledged: an entry of a consumer
 * group's pending list. One whose idle time passes the visibility timeout is recovered by
 * another consumer.
 *
 * @param queue the queue
 * @param group the consumer group
 * @param partition the partition
 * @param entryId the stream entry id
 * @param messageId the message id, {@code null} when the entry was deleted meanwhile
 * @param consumer the consumer holding it
 * @param idle how long since it was last delivered (or its lease extended)
 * @param deliveries how many times it was delivered, recoveries included
 * @param retry whether it is a retry (read from the group's retry stream)
 */
public record InFlightMessage(String queue, String group, int partition, String entryId, String messageId,
		String consumer, Duration idle, long deliveries, boolean retry) {

	/**
	 * The orders {@link DelayQueueAdmin#inFlight} can sort by.
	 */
	public enum Order {

		/** The longest idle first. */
		IDLE,

		/** The most delivered first. */
		DELIVERIES

	}

}
