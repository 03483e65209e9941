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

package io.github.delayqueue.dashboard;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.internal.InputText;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard's writes on one message or dead letter: cancel a scheduled message, make
 * it due now or reschedule it; replay or delete a dead letter, replay all or purge a
 * queue's. Each goes through {@link DashboardAccess#requireWritable} first and is
 * audited; one that finds nothing answers 404. Selections are {@link DashboardBulkApi}'s.
 */
@RestController
@RequestMapping("${delayqueue.dashboard.path:/delayqueue}/api")
class DashboardMessageApi {

	private final DelayQueueEngine engine;

	private final DashboardAccess access;

	DashboardMessageApi(DelayQueueEngine engine, DashboardAccess access) {
		this.engine = engine;
		this.access = access;
	}

	@PostMapping("/queues/{queue}/message/cancel")
	Map<String, Object> cancel(@PathVariable String queue, @RequestParam String id, HttpServletRequest request) {
		this.access.requireWritable(queue, request);
		return found(this.engine.template().cancel(queue, id), queue, id, "cancelled", request);
	}

	@PostMapping("/queues/{queue}/message/due-now")
	Map<String, Object> dueNow(@PathVariable String queue, @RequestParam String id, HttpServletRequest request) {
		this.access.requireWritable(queue, request);
		return found(this.engine.template().reschedule(queue, id, Duration.ZERO), queue, id, "dueNow", request);
	}

	@PostMapping("/queues/{queue}/message/reschedule")
	Map<String, Object> reschedule(@PathVariable String queue, @RequestParam String id, @RequestParam String delay,
			HttpServletRequest request) {
		this.access.requireWritable(queue, request);
		Duration parsed;
		try {
			parsed = Duration
				.parse(delay.trim().toUpperCase(Locale.ROOT).startsWith("P") ? delay.trim() : "PT" + delay.trim());
		}
		catch (DateTimeParseException ex) {
			throw new IllegalArgumentException(
					"Delay " + InputText.quote(delay) + " is not a duration: use e.g. 30s, 5m, 2h or PT1H30M");
		}
		if (parsed.isNegative()) {
			throw new IllegalArgumentException("Delay must not be negative, but was " + delay);
		}
		return found(this.engine.template().reschedule(queue, id, parsed), queue, id, "rescheduled", request);
	}

	private static Map<String, Object> found(boolean done, String queue, String id, String what,
			HttpServletRequest request) {
		if (!done) {
			throw new DashboardAccess.NotFoundException("No scheduled message '" + id + "' in queue '" + queue
					+ "' (never sent, already due, or cancelled)");
		}
		DashboardAccess.audit(request, queue, "did '" + what + "' to message '" + id + "'");
		return Map.of("queue", queue, "id", id, what, true);
	}

	@PostMapping("/queues/{queue}/dead-letters/{entryId}/replay")
	Map<String, Object> replay(@PathVariable String queue, @PathVariable String entryId, HttpServletRequest request) {
		this.access.requireWritable(queue, request);
		return deadLetterFound(this.engine.admin().replay(queue, entryId), queue, entryId, "replayed", request);
	}

	@PostMapping("/queues/{queue}/dead-letters/replay-all")
	Map<String, Object> replayAll(@PathVariable String queue, @RequestParam(required = false) String group,
			HttpServletRequest request) {
		this.access.requireWritable(queue, request);
		int replayed = this.engine.admin().replayAll(queue, group);
		DashboardAccess.audit(request, queue, "replayed all " + replayed + " dead letters");
		return Map.of("queue", queue, "replayed", replayed);
	}

	@PostMapping("/queues/{queue}/dead-letters/{entryId}/delete")
	Map<String, Object> delete(@PathVariable String queue, @PathVariable String entryId, HttpServletRequest request) {
		this.access.requireWritable(queue, request);
		return deadLetterFound(this.engine.admin().deleteDeadLetter(queue, entryId), queue, entryId, "deleted",
				request);
	}

	private static Map<String, Object> deadLetterFound(boolean done, String queue, String entryId, String what,
			HttpServletRequest request) {
		if (!done) {
			throw new DashboardAccess.NotFoundException("No dead letter '" + entryId + "' in queue '" + queue + "'");
		}
		DashboardAccess.audit(request, queue, what + " dead letter '" + entryId + "'");
		return Map.of("queue", queue, "entryId", entryId, what, 1);
	}

	@PostMapping("/queues/{queue}/dead-letters/purge")
	Map<String, Object> purge(@PathVariable String queue, HttpServletRequest request) {
		this.access.requireWritable(queue, request);
		long purged = this.engine.admin().purgeDeadLetters(queue);
		DashboardAccess.audit(request, queue, "purged " + purged + " dead letters");
		return Map.of("queue", queue, "purged", purged);
	}

}
