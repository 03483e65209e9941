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

import io.micrometer.observation.transport.SenderContext;

/**
 * The context of a send: one message's, a batch's, or the creation of one message of a
 * batch. The trace context is written into the message's headers (a batch's carrier is
 * not sent).
 */
public class DelayQueueSendContext extends SenderContext<Map<String, String>> {

	private final String queue;

	private final String messageId;

	private final int batchSize;

	private final boolean create;

	/**
	 * Creates the context of one message's send.
	 * @param queue the queue
	 * @param messageId the message id
	 * @param headers the message's headers, mutable: the trace context is added to them
	 */
	public DelayQueueSendContext(String queue, String messageId, Map<String, String> headers) {
		this(queue, messageId, headers, 1, false);
	}

	private DelayQueueSendContext(String queue, String messageId, Map<String, String> headers, int batchSize,
			boolean create) {
		super((carrier, key, value) -> carrier.put(key, value));
		this.queue = queue;
		this.messageId = messageId;
		this.batchSize = batchSize;
		this.create = create;
		setCarrier(headers);
		setRemoteServiceName("redis");
	}

	/**
	 * Creates the context of a batch send ({@code sendAll}).
	 * @param queue the queue of every message, or {@code null} when they go to several
	 * @param batchSize how many messages
	 * @return the context
	 */
	public static DelayQueueSendContext batch(String queue, int batchSize) {
		return new DelayQueueSendContext(queue, null, new java.util.HashMap<>(), batchSize, false);
	}

	/**
	 * Creates the context of the creation of one message of a batch.
	 * @param queue the queue
	 * @param messageId the message id
	 * @param headers the message's headers, mutable: the trace context is added to them
	 * @return the context
	 */
	public static DelayQueueSendContext create(String queue, String messageId, Map<String, String> headers) {
		return new DelayQueueSendContext(queue, messageId, headers, 1, true);
	}

	/**
	 * @return the queue, {@code null} for a batch to several queues
	 */
	public String getQueue() {
		return this.queue;
	}

	/**
	 * @return the message id, {@code null} for a batch
	 */
	public String getMessageId() {
		return this.messageId;
	}

	/**
	 * @return whether this is a batch send ({@code sendAll} of more than one message)
	 */
	public boolean isBatch() {
		return this.messageId == null;
	}

	/**
	 * @return how many messages the send carries: 1, or a batch's size
	 */
	public int getBatchSize() {
		return this.batchSize;
	}

	/**
	 * @return whether this is the creation of one message of a batch
	 */
	public boolean isCreate() {
		return this.create;
	}

}
