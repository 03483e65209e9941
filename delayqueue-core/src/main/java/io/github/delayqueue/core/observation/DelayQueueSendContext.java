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
 * The context of a send's observation: the message's headers are its carrier, so a
 * tracing handler writes the trace context ({@code traceparent}) into them.
 */
public class DelayQueueSendContext extends SenderContext<Map<String, String>> {

	private final String queue;

	private final String messageId;

	/**
	 * Creates the context.
	 * @param queue the queue
	 * @param messageId the message id
	 * @param headers the message's headers, mutable: the trace context is added to them
	 */
	public DelayQueueSendContext(String queue, String messageId, Map<String, String> headers) {
		super((carrier, key, value) -> carrier.put(key, value));
		this.queue = queue;
		this.messageId = messageId;
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
	 * @return the message id
	 */
	public String getMessageId() {
		return this.messageId;
	}

}
