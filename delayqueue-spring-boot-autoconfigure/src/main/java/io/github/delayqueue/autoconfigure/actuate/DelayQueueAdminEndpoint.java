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

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code delayqueue} actuator endpoint with write operations, used instead of
 * {@link DelayQueueEndpoint} when {@code delayqueue.admin.enabled=true}:
 * <ul>
 * <li>{@code POST /actuator/delayqueue/{queue}} with {@code {"action": "replay",
 * "entryId": "…"}} replays one dead letter, without {@code entryId} every dead letter (of
 * {@code group} when given); with {@code {"action": "cancel", "messageId": "…"}} cancels
 * a scheduled message;</li>
 * <li>{@code DELETE /actuator/delayqueue/{queue}/{entryId}} deletes one dead letter;</li>
 * <li>{@code DELETE /actuator/delayqueue/{queue}} purges the queue's dead letters.</li>
 * </ul>
 * Secure these like any other write endpoint (see docs/actuator.md).
 */
@Endpoint(id = "delayqueue")
public class DelayQueueAdminEndpoint extends DelayQueueEndpoint {

	/**
	 * Creates the endpoint.
	 * @param engine the engine
	 * @param listeners the listener registry, if any
	 */
	public DelayQueueAdminEndpoint(DelayQueueEngine engine, ObjectProvider<DelayListenerEndpointRegistry> listeners) {
		super(engine, listeners);
	}

	/**
	 * Replays dead letters or cancels a scheduled message.
	 * @param queue the queue
	 * @param action {@code replay} or {@code cancel}
	 * @param entryId the dead letter to replay ({@code replay}); all when absent
	 * @param group the group whose dead letters to replay ({@code replay} without
	 * {@code entryId}); all groups when absent
	 * @param messageId the message to cancel ({@code cancel})
	 * @return what was done
	 */
	@WriteOperation
	public Map<String, Object> act(@Selector String queue, String action, @Nullable String entryId,
			@Nullable String group, @Nullable String messageId) {
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("queue", queue);
		result.put("action", action);
		switch (action) {
			case "replay" -> {
				if (entryId != null) {
					result.put("replayed", engine().admin().replay(queue, entryId) ? 1 : 0);
				}
				else {
					result.put("replayed", engine().admin().replayAll(queue, group));
				}
			}
			case "cancel" -> {
				if (messageId == null) {
					throw new IllegalArgumentException("Action 'cancel' needs a messageId");
				}
				result.put("cancelled", engine().template().cancel(queue, messageId));
			}
			default -> throw new IllegalArgumentException("Unknown action '" + action
					+ "'; use 'replay' (entryId or group optional) or 'cancel' (messageId)");
		}
		return result;
	}

	/**
	 * Deletes one dead letter.
	 * @param queue the queue
	 * @param entryId the dead letter's entry id
	 * @return whether it existed
	 */
	@DeleteOperation
	public Map<String, Object> deleteDeadLetter(@Selector String queue, @Selector String entryId) {
		return Map.of("queue", queue, "entryId", entryId, "deleted", engine().admin().deleteDeadLetter(queue, entryId));
	}

	/**
	 * Deletes every dead letter of a queue.
	 * @param queue the queue
	 * @return how many were deleted
	 */
	@DeleteOperation
	public Map<String, Object> purgeDeadLetters(@Selector String queue) {
		return Map.of("queue", queue, "purged", engine().admin().purgeDeadLetters(queue));
	}

}
