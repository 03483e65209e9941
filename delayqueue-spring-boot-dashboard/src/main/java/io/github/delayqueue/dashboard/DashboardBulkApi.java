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
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.github.delayqueue.core.internal.InputText;
import io.github.delayqueue.core.DeadLetterError;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.ScheduledPosition;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard's reads and writes over many messages at once: a selection (at most
 * {@value #MAX_SELECTED} per request) cancelled, made due or replayed, dead letters by
 * error, and where a time falls in the schedule. Every write goes through the same checks
 * as one message's ({@link DashboardAccess}) and is audited with the user's name.
 */
@RestController
@RequestMapping("${delayqueue.dashboard.path:/delayqueue}/api")
class DashboardBulkApi {

	/** The most messages or dead letters one request may act on. */
	static final int MAX_SELECTED = 500;

	/** How many of each partition's newest dead letters are counted by error. */
	static final int ERRORS_READ = 2000;

	/** The most dead letters of one error a request replays or deletes. */
	static final int MAX_BY_ERROR = 1000;

	private final DelayQueueEngine engine;

	private final DashboardAccess access;

	DashboardBulkApi(DelayQueueEngine engine, DashboardAccess access) {
		this.engine = engine;
		this.access = access;
	}

	@GetMapping("/queues/{queue}/scheduled/position")
	Map<String, Object> position(@PathVariable String queue, @RequestParam long at, HttpServletRequest request) {
		this.access.requireVisible(queue, request);
		ScheduledPosition position = this.engine.admin().scheduledPosition(queue, Instant.ofEpochMilli(at));
		return Map.of("before", position.before(), "total", position.total(), "exact", position.exact(), "margin",
				position.margin(), "cursor", at + ":");
	}

	@PostMapping("/queues/{queue}/messages/selected/{action}")
	Map<String, Object> messages(@PathVariable String queue, @PathVariable String action,
			@RequestParam List<String> ids, HttpServletRequest request) {
		return switch (action) {
			case "cancel" -> each(queue, ids, "cancelled", "selected messages", request,
					(id) -> this.engine.template().cancel(queue, id));
			case "due-now" -> each(queue, ids, "made due now", "selected messages", request,
					(id) -> this.engine.template().reschedule(queue, id, Duration.ZERO));
			default -> throw new IllegalArgumentException(
					"Selected messages are cancelled or made due now ('cancel', 'due-now'), not "
							+ InputText.quote(action));
		};
	}

	@PostMapping("/queues/{queue}/dead-letters/selected/{action}")
	Map<String, Object> deadLetters(@PathVariable String queue, @PathVariable String action,
			@RequestParam List<String> ids, HttpServletRequest request) {
		return switch (action) {
			case "replay" -> each(queue, ids, "replayed", "selected dead letters", request,
					(id) -> this.engine.admin().replay(queue, id));
			case "delete" -> each(queue, ids, "deleted", "selected dead letters", request,
					(id) -> this.engine.admin().deleteDeadLetter(queue, id));
			default -> throw new IllegalArgumentException(
					"Selected dead letters are replayed or deleted, not " + InputText.quote(action));
		};
	}

	/**
	 * Acts on each id of a selection: those done, those not found (gone meanwhile), and
	 * those refused with the reason, each counted; never all-or-nothing, so a bad id
	 * loses nothing of the others.
	 */
	private Map<String, Object> each(String queue, List<String> ids, String done, String what,
			HttpServletRequest request, Predicate<String> action) {
		this.access.requireWritable(queue, request);
		LinkedHashSet<String> distinct = new LinkedHashSet<>(ids);
		if (distinct.isEmpty() || distinct.size() > MAX_SELECTED) {
			throw new IllegalArgumentException(
					"Select from 1 to " + MAX_SELECTED + " per request, but " + distinct.size() + " were selected");
		}
		int count = 0;
		List<String> notFound = new ArrayList<>();
		Map<String, String> refused = new LinkedHashMap<>();
		try {
			for (String id : distinct) {
				try {
					if (action.test(id)) {
						count++;
					}
					else {
						notFound.add(id);
					}
				}
				catch (IllegalArgumentException ex) {
					refused.put(id, String.valueOf(ex.getMessage()));
				}
			}
		}
		finally {
			// also when Redis failed part-way: what was done is in the log
			DashboardAccess.audit(request, queue, done + " " + count + " of " + distinct.size() + " " + what);
		}
		Map<String, Object> result = new LinkedHashMap<>();
		result.put("queue", queue);
		result.put("selected", distinct.size());
		result.put("done", count);
		result.put("notFound", notFound);
		result.put("refused", refused);
		return result;
	}

	@GetMapping("/queues/{queue}/dead-letters/errors")
	Map<String, Object> errors(@PathVariable String queue, HttpServletRequest request) {
		this.access.requireVisible(queue, request);
		List<Map<String, Object>> errors = new ArrayList<>();
		for (DeadLetterError error : this.engine.admin().deadLetterErrors(queue, ERRORS_READ)) {
			Map<String, Object> shown = new LinkedHashMap<>();
			shown.put("errorClass", error.errorClass());
			shown.put("reasonPrefix", error.reasonPrefix());
			shown.put("count", error.count());
			shown.put("newest", error.newest().toString());
			errors.add(shown);
		}
		return Map.of("queue", queue, "readPerPartition", ERRORS_READ, "errors", errors);
	}

	@PostMapping("/queues/{queue}/dead-letters/by-error/{action}")
	Map<String, Object> byError(@PathVariable String queue, @PathVariable String action,
			@RequestParam String errorClass, @RequestParam(defaultValue = "") String reasonPrefix,
			HttpServletRequest request) {
		boolean replay = "replay".equals(action);
		if (!replay && !"delete".equals(action)) {
			throw new IllegalArgumentException(
					"Dead letters of an error are replayed or deleted, not " + InputText.quote(action));
		}
		this.access.requireWritable(queue, request);
		DeadLetterError error = new DeadLetterError(errorClass, reasonPrefix, 0, Instant.EPOCH);
		int done = replay ? this.engine.admin().replayDeadLetters(queue, error, MAX_BY_ERROR)
				: this.engine.admin().deleteDeadLetters(queue, error, MAX_BY_ERROR);
		String what = replay ? "replayed" : "deleted";
		DashboardAccess.audit(request, queue,
				what + " " + done + " dead letters of error " + errorClass + " '" + reasonPrefix + "'");
		return Map.of("queue", queue, what, done, "max", MAX_BY_ERROR);
	}

}
