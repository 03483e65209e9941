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

import java.util.Map;
import java.util.function.Supplier;

import io.github.delayqueue.core.DelayQueueException;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@code delayqueue} endpoint over HTTP: the same operations, answering a request
 * that cannot be served with its status and the reason in the body ({@code {"error":
 * "…"}}): 400 for a bad request (unknown action, missing argument, malformed entry id or
 * queue name), 404 for an unknown queue or dead letter, 409 for an operation the queue's
 * state refuses (a partition change in progress or not drained), 503 when Redis cannot be
 * reached.
 */
@EndpointWebExtension(endpoint = DelayQueueEndpoint.class)
public class DelayQueueEndpointWebExtension {

	private final DelayQueueEndpoint endpoint;

	/**
	 * Creates the extension.
	 * @param endpoint the endpoint
	 */
	public DelayQueueEndpointWebExtension(DelayQueueEndpoint endpoint) {
		this.endpoint = endpoint;
	}

	/**
	 * See {@link DelayQueueEndpoint#queue(String, String)}.
	 * @param queue the queue
	 * @param after the entry id after which the page of dead letters starts, or
	 * {@code null}
	 * @return the queue, or the reason it cannot be shown
	 */
	@ReadOperation
	public WebEndpointResponse<Object> queue(@Selector String queue, @Nullable String after) {
		return answer(() -> this.endpoint.queue(queue, after));
	}

	/**
	 * See {@link DelayQueueEndpoint#act}.
	 * @param queue the queue
	 * @param action the action
	 * @param entryId the dead letter to replay
	 * @param group the group whose dead letters to replay
	 * @param messageId the message to cancel
	 * @param partitions the new partition count
	 * @param sizeLimit the queue's new maximum of waiting messages
	 * @param rateLimit the new rate limit
	 * @param schedule the recurring schedule to act on
	 * @param concurrencyLimit the new concurrency limit
	 * @return what was done, or why not
	 */
	@WriteOperation
	public WebEndpointResponse<Object> act(@Selector String queue, @Nullable String action, @Nullable String entryId,
			@Nullable String group, @Nullable String messageId, @Nullable Integer partitions, @Nullable Long sizeLimit,
			@Nullable String rateLimit, @Nullable String schedule, @Nullable String concurrencyLimit) {
		return answer(() -> this.endpoint.act(queue, action, entryId, group, messageId, partitions, sizeLimit,
				rateLimit, schedule, concurrencyLimit));
	}

	/**
	 * See {@link DelayQueueEndpoint#deleteDeadLetter(String, String)}.
	 * @param queue the queue
	 * @param entryId the dead letter's entry id
	 * @return what was deleted, or why not
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> deleteDeadLetter(@Selector String queue, @Selector String entryId) {
		return answer(() -> this.endpoint.deleteDeadLetter(queue, entryId));
	}

	/**
	 * See {@link DelayQueueEndpoint#purgeDeadLetters(String)}.
	 * @param queue the queue
	 * @return how many were deleted, or why not
	 */
	@DeleteOperation
	public WebEndpointResponse<Object> purgeDeadLetters(@Selector String queue) {
		return answer(() -> this.endpoint.purgeDeadLetters(queue));
	}

	private static WebEndpointResponse<Object> answer(Supplier<Object> operation) {
		try {
			return new WebEndpointResponse<>(operation.get(), WebEndpointResponse.STATUS_OK);
		}
		catch (DelayQueueEndpoint.NotFoundException ex) {
			return error(ex, WebEndpointResponse.STATUS_NOT_FOUND);
		}
		catch (IllegalArgumentException ex) {
			return error(ex, WebEndpointResponse.STATUS_BAD_REQUEST);
		}
		catch (IllegalStateException ex) {
			return error(ex, 409);
		}
		catch (DelayQueueException ex) {
			return error(ex, WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
		}
	}

	private static WebEndpointResponse<Object> error(RuntimeException ex, int status) {
		return new WebEndpointResponse<>(Map.of("error", String.valueOf(ex.getMessage())), status);
	}

}
