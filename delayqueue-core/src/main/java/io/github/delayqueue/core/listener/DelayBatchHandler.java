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

import java.util.List;

/**
 * Handles the messages of one (queue, group) in batches: up to the container's
 * {@code batchSize} messages per call, gathered for at most its {@code batchWait}. Each
 * message keeps its own lease, attempts, retries, expiry and dead letter. Returning
 * normally acknowledges every message of the batch; throwing {@link BatchFailedException}
 * fails the messages it names (each retried on its own, or dead-lettered) and
 * acknowledges the others; throwing anything else fails them all (a
 * {@link SnoozeException} snoozes them all, a {@link RateLimitedException} pushes them
 * all back). Delivery is at-least-once: make the handler idempotent.
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface DelayBatchHandler<T> {

	/**
	 * Handles one batch.
	 * @param payloads the decoded payloads, in the order of {@code contexts}
	 * @param contexts each message's delivery: id, attempt, due time, headers, lease
	 * @throws BatchFailedException to fail some messages of the batch
	 * @throws Exception to fail every message of the batch
	 */
	void handle(List<T> payloads, List<DelayMessageContext> contexts) throws Exception;

	/**
	 * Returns whether this handler accepts {@code null} payloads (see
	 * {@link DelayMessageHandler#acceptsNullPayload()}); a message whose payload decodes
	 * to {@code null} is otherwise dead-lettered as undecodable, and the rest of its
	 * batch is handled.
	 * @return {@code true} to receive {@code null} payloads; {@code false} by default
	 */
	default boolean acceptsNullPayload() {
		return false;
	}

}
