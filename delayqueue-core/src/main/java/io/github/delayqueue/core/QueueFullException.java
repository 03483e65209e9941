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

/**
 * A send refused because its queue holds its maximum of waiting messages (its size limit,
 * see {@link DelayQueueAdmin#limitSize(String, long)}): nothing of the message was
 * written. Thrown by the sends of one message; {@code sendAll} reports a refusal per
 * message ({@link SendResult.Status#REFUSED}) instead.
 */
public class QueueFullException extends DelayQueueException {

	private static final long serialVersionUID = 1L;

	private final String queue;

	private final String messageId;

	private final long limit;

	/**
	 * Creates an exception.
	 * @param queue the queue
	 * @param messageId the refused message's id
	 * @param limit the queue's size limit
	 * @param partitions the queue's partition count
	 * @param partition the partition that refused it
	 */
	public QueueFullException(String queue, String messageId, long limit, int partitions, int partition) {
		super("Queue '" + queue + "' is full: message '" + messageId + "' was refused and nothing was written. "
				+ "The queue's size limit is " + limit + " waiting (scheduled or ready) messages"
				+ ((partitions > 1) ? ", " + ((limit + partitions - 1) / partitions) + " in each of its " + partitions
						+ " partitions (partition " + partition + " is full)" : "")
				+ "; send again later, or raise the limit (DelayQueueAdmin.limitSize)", null);
		this.queue = queue;
		this.messageId = messageId;
		this.limit = limit;
	}

	/**
	 * @return the queue
	 */
	public String getQueue() {
		return this.queue;
	}

	/**
	 * @return the refused message's id
	 */
	public String getMessageId() {
		return this.messageId;
	}

	/**
	 * @return the queue's size limit when the message was refused
	 */
	public long getLimit() {
		return this.limit;
	}

}
