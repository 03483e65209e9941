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

import java.util.HashMap;
import java.util.List;
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

	/** A batch's messages' headers, to link; {@code null} for one message. */
	private final List<Map<String, String>> linkedHeaders;

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
		this(queue, group, messageId, attempt, headers, deadLetter, null);
	}

	private DelayQueueProcessContext(String queue, String group, String messageId, int attempt,
			Map<String, String> headers, boolean deadLetter, List<Map<String, String>> linkedHeaders) {
		super((carrier, key) -> carrier.get(key));
		this.linkedHeaders = linkedHeaders;
		this.deadLetter = deadLetter;
		this.queue = queue;
		this.group = group;
		this.messageId = messageId;
		this.attempt = attempt;
		setCarrier(headers);
		setRemoteServiceName("redis");
	}

	/**
	 * Creates the context of a batch listener's handler running on a batch: its carrier
	 * is empty (a batch continues no single message's trace), and each message's headers
	 * are kept for a tracing handler to link the batch's span to each message's creation
	 * context.
	 * @param queue the queue
	 * @param group the consumer group
	 * @param headers each message's headers, in the batch's order
	 * @return the context
	 */
	public static DelayQueueProcessContext batch(String queue, String group, List<Map<String, String>> headers) {
		return new DelayQueueProcessContext(queue, group, null, 0, new HashMap<>(), false, List.copyOf(headers));
	}

	/**
	 * @return whether a batch listener's handler runs on a batch
	 */
	public boolean isBatch() {
		return this.linkedHeaders != null;
	}

	/**
	 * @return how many messages the handler runs on: 1, or a batch's size
	 */
	public int getBatchSize() {
		return (this.linkedHeaders != null) ? this.linkedHeaders.size() : 1;
	}

	/**
	 * @return for a batch, each message's headers (the carriers of their trace contexts,
	 * to link), in the batch's order; empty for one message
	 */
	public List<Map<String, String>> getLinkedHeaders() {
		return (this.linkedHeaders != null) ? this.linkedHeaders : List.of();
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
	 * @return the message id, {@code null} for a batch
	 */
	public String getMessageId() {
		return this.messageId;
	}

	/**
	 * @return the attempt, from 1; 0 for a batch (each message has its own)
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
