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

package io.github.delayqueue.core.observation;

import java.util.Map;

import io.micrometer.observation.transport.ReceiverContext;

/**
 * The context of a handler running on a message: one attempt, or a dead-letter handler on
 * a dead letter. The message's headers are its carrier, so a tracing handler continues
 * the trace the send started.
 */
public class DelayQueueProcessContext extends ReceiverContext<Map<String, String>> {

	private final String queue;

	private final String group;

	private final String messageId;

	private final int attempt;

	private final boolean deadLetter;

	/**
	 * Creates the context.
	 * @param queue the queue
	 * @param group the consumer group
	 * @param messageId the message id
	 * @param attempt the attempt, from 1
	 * @param headers the message's headers
	 */
	public DelayQueueProcessContext(String queue, String group, String messageId, int attempt,
			Map<String, String> headers) {
		this(queue, group, messageId, attempt, headers, false);
	}

	/**
	 * Creates the context of an attempt, or of a dead-letter handler.
	 * @param queue the queue
	 * @param group the consumer group
	 * @param messageId the message id
	 * @param attempt the attempt, from 1 (for a dead letter: the attempts it had)
	 * @param headers the message's headers
	 * @param deadLetter whether a dead-letter handler runs on it
	 */
	public DelayQueueProcessContext(String queue, String group, String messageId, int attempt,
			Map<String, String> headers, boolean deadLetter) {
		super((carrier, key) -> carrier.get(key));
		this.deadLetter = deadLetter;
		this.queue = queue;
		this.group = group;
		this.messageId = messageId;
		this.attempt = attempt;
		setCarrier(headers);
		setRemoteServiceName("redis");
	}

	/**
	 * @return the queue
	 */
	public String getQueue() {
		return this.queue;
	}

	/**
	 * @return the consumer group
	 */
	public String getGroup() {
		return this.group;
	}

	/**
	 * @return the message id
	 */
	public String getMessageId() {
		return this.messageId;
	}

	/**
	 * @return the attempt, from 1
	 */
	public int getAttempt() {
		return this.attempt;
	}

	/**
	 * @return whether a dead-letter handler runs on the message
	 */
	public boolean isDeadLetter() {
		return this.deadLetter;
	}

}
