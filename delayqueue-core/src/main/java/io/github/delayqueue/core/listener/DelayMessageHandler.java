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

package io.github.delayqueue.core.listener;

/**
 * Handles the messages of one (queue, group). Returning normally acknowledges the
 * message; throwing fails this attempt, which is retried per the container's
 * {@link RetryPolicy} or dead-lettered. Handlers may see a message more than once
 * (at-least-once delivery): make them idempotent, e.g. keyed by
 * {@link DelayMessageContext#id()}.
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface DelayMessageHandler<T> {

	/**
	 * Handles one message.
	 * @param payload the decoded payload
	 * @param context the delivery's id, attempt, due time, headers and lease
	 * @throws Exception to fail this attempt
	 */
	void handle(T payload, DelayMessageContext context) throws Exception;

	/**
	 * Returns whether this handler accepts a {@code null} payload. A payload can decode
	 * to {@code null}, e.g. the JSON {@code null}. A handler that returns {@code true}
	 * receives it as {@code null}; otherwise such a message is not handed to
	 * {@link #handle} but dead-lettered as undecodable, like any payload the codec cannot
	 * read.
	 * @return {@code true} to receive {@code null} payloads; {@code false} by default
	 */
	default boolean acceptsNullPayload() {
		return false;
	}

}
