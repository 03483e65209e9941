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

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeSet;

import io.github.delayqueue.core.internal.InputText;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelaySchedules;
import io.github.delayqueue.core.InFlightMessage;
import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.QueueHistory;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard's JSON API, under {@code <path>/api}. Every read is bounded Redis work
 * (paged by cursor, never a whole-queue read); every write goes through
 * {@link DashboardWrites} first.
 */
@RestController
@RequestMapping("${delayqueue.dashboard.path:/delayqueue}/api")
class DashboardApi {

	private final DelayQueueEngine engine;

	private final ObjectProvider<DelayListenerEndpointRegistry> listeners;

	private final DashboardAccess access;

	DashboardApi(DelayQueueEngine engine, ObjectProvider<DelayListenerEndpointRegistry> listeners,
			DashboardAccess access) {
		this.engine = engine;
		this.listeners = listeners;
		this.access = access;
	}

	@GetMapping("/session")
	Map<String, Object> session(HttpServletRequest request) {
		return this.access.writes().session(request);
	}

	@GetMapping("/queues")
	List<Map<String, Object>> queues(HttpServletRequest request) {
		TreeSet<String> names = new TreeSet<>(this.engine.admin().queues());
		this.listeners.ifAvailable((registry) -> names.addAll(registry.getQueues()));
		List<Map<String, Object>> queues = new ArrayList<>();
		for (String name : names) {
			if (this.access.isVisible(name, request)) {
				queues.add(summary(name));
			}
		}
		return queues;
	}

	private Map<String, Object> summary(String queue) {
		Map<String, Object> summary = new LinkedHashMap<>();
		QueueStats stats = this.engine.admin().stats(queue);
		QueueControlState controls = this.engine.admin().controls(queue);
		QueueHistory hour = this.engine.admin().history(queue, QueueHistory.Span.HOUR);
		List<QueueHistory.Point> points = hour.points();
		QueueHistory.Point total = hour.total();
		long lastFive = 0;
		for (QueueHistory.Point point : points.subList(Math.max(0, points.size() - 5), points.size())) {
			lastFive += point.acked();
		}
		summary.put("queue", queue);
		summary.put("stats", stats);
		summary.put("paused", controls.paused());
		summary.put("pausedGroups", controls.pausedGroups());
		summary.put("rateLimit", (controls.rateLimit() != null) ? controls.rateLimit().toString() : null);
		summary.put("noConsumer",
				stats.groups().isEmpty() || stats.groups().stream().anyMatch((group) -> group.consumers() == 0));
		summary.put("latenessP50Ms", DashboardViews.millis(total.latenessPercentile(50)));
		summary.put("latenessP99Ms", DashboardViews.millis(total.latenessPercentile(99)));
		summary.put("ackedPerMinute", lastFive / 5.0);
		RecentDeadLetters.Recent recent = RecentDeadLetters.of(this.engine.admin(), queue, stats.dead());
		summary.put("deadLastFiveMinutes", recent.count());
		summary.put("deadLastFiveMinutesAtLeast", recent.atLeast());
		summary.put("newestDead", (recent.newest() != null) ? recent.newest().toString() : null);
		summary.put("groupRateLimits", controls.groupRateLimits().keySet());
		DashboardConcurrencyApi.show(summary, this.engine.admin(), stats, controls);
		// the hour's sparklines, one value a minute, oldest first
		summary.put("ackedByMinute", points.stream().map(QueueHistory.Point::acked).toList());
		summary.put("latenessP99ByMinute",
				points.stream().map((point) -> DashboardViews.millis(point.latenessPercentile(99))).toList());
		return summary;
	}

	@GetMapping("/queues/{queue}")
	Map<String, Object> queue(@PathVariable String queue, HttpServletRequest request) {
		requireVisible(queue, request);
		Map<String, Object> detail = summary(queue);
		OptionalLong sizeLimit = this.engine.admin().sizeLimit(queue);
		detail.put("sizeLimit", sizeLimit.isPresent() ? sizeLimit.getAsLong() : null);
		detail.put("partitions", this.engine.admin().partitionLayout(queue));
		Map<String, Map<Integer, String>> owners = new LinkedHashMap<>();
		QueueStats stats = (QueueStats) detail.get("stats");
		for (QueueStats.GroupStats group : stats.groups()) {
			owners.put(group.group(), this.engine.admin().partitionOwners(queue, group.group()));
		}
		detail.put("partitionOwners", owners);
		QueueControlState controls = this.engine.admin().controls(queue);
		Map<String, String> groupRates = new LinkedHashMap<>();
		controls.groupRateLimits().forEach((group, limit) -> groupRates.put(group, limit.toString()));
		detail.put("groupRateLimits", groupRates);
		return detail;
	}

	@GetMapping("/queues/{queue}/scheduled")
	List<Map<String, Object>> scheduled(@PathVariable String queue, @RequestParam(required = false) String after,
			@RequestParam(defaultValue = "50") int count, HttpServletRequest request) {
		requireVisible(queue, request);
		return this.engine.admin().scheduled(queue, after, count).stream().map(DashboardViews::scheduled).toList();
	}

	@GetMapping("/queues/{queue}/message")
	Map<String, Object> message(@PathVariable String queue, @RequestParam String id, HttpServletRequest request) {
		requireVisible(queue, request);
		return this.engine.admin().scheduledMessage(queue, id).map((found) -> {
			Map<String, Object> shown = DashboardViews.scheduled(found);
			shown.put("payloadHex", DashboardViews.hex(found.payload()));
			return shown;
		})
			.orElseThrow(() -> new DashboardAccess.NotFoundException("No scheduled message '" + id + "' in queue '"
					+ queue + "' (never sent, already due, or cancelled)"));
	}

	/**
	 * What Redis still shows of a message that is not scheduled, per group (see
	 * {@code DelayQueueAdmin.messageTrace}).
	 */
	@GetMapping("/queues/{queue}/message/trace")
	List<Map<String, Object>> trace(@PathVariable String queue, @RequestParam String id, HttpServletRequest request) {
		requireVisible(queue, request);
		return this.engine.admin().messageTrace(queue, id).stream().map((trace) -> {
			Map<String, Object> shown = new LinkedHashMap<>();
			shown.put("group", trace.group());
			shown.put("partition", trace.partition());
			shown.put("state", trace.state().name());
			shown.put("at", trace.at().toString());
			shown.put("attempt", trace.attempt());
			shown.put("errorClass", trace.errorClass());
			shown.put("errorMessage", trace.errorMessage());
			shown.put("consumer", trace.consumer());
			shown.put("entryId", trace.entryId());
			return shown;
		}).toList();
	}

	@GetMapping("/queues/{queue}/in-flight")
	List<Map<String, Object>> inFlight(@PathVariable String queue, @RequestParam(defaultValue = "IDLE") String order,
			@RequestParam(defaultValue = "50") int count, HttpServletRequest request) {
		requireVisible(queue, request);
		InFlightMessage.Order sort;
		try {
			sort = InFlightMessage.Order.valueOf(order.toUpperCase(java.util.Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"Order must be 'idle' or 'deliveries', but was " + InputText.quote(order));
		}
		return this.engine.admin().inFlight(queue, sort, count).stream().map((message) -> {
			Map<String, Object> shown = new LinkedHashMap<>();
			shown.put("group", message.group());
			shown.put("partition", message.partition());
			shown.put("entryId", message.entryId());
			shown.put("messageId", message.messageId());
			shown.put("consumer", message.consumer());
			shown.put("idleMs", message.idle().toMillis());
			// the entry entered its stream when it became due: the handler started since
			shown.put("readyMs", Math.max(0, System.currentTimeMillis()
					- Long.parseLong(message.entryId().substring(message.entryId().indexOf(':') + 1).split("-")[0])));
			shown.put("deliveries", message.deliveries());
			shown.put("retry", message.retry());
			return shown;
		}).toList();
	}

	@GetMapping("/queues/{queue}/dead-letters")
	List<Map<String, Object>> deadLetters(@PathVariable String queue, @RequestParam(required = false) String after,
			@RequestParam(defaultValue = "50") int count, HttpServletRequest request) {
		requireVisible(queue, request);
		if (count < 1 || count > 1000) {
			throw new IllegalArgumentException("Page size must be from 1 to 1000 dead letters, but was " + count);
		}
		return this.engine.admin().deadLetters(queue, after, count).stream().map(DashboardViews::deadLetter).toList();
	}

	@GetMapping("/queues/{queue}/history")
	Map<String, Object> history(@PathVariable String queue, @RequestParam(defaultValue = "HOUR") String span,
			HttpServletRequest request) {
		requireVisible(queue, request);
		QueueHistory.Span read;
		try {
			read = QueueHistory.Span.valueOf(span.toUpperCase(java.util.Locale.ROOT));
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalArgumentException(
					"Span must be 'hour', 'day' or 'week', but was " + InputText.quote(span));
		}
		QueueHistory history = this.engine.admin().history(queue, read);
		List<Map<String, Object>> points = new ArrayList<>();
		for (QueueHistory.Point point : history.points()) {
			Map<String, Object> shown = new LinkedHashMap<>();
			shown.put("start", point.start().toString());
			shown.put("delivered", point.delivered());
			shown.put("acked", point.acked());
			shown.put("retried", point.retried());
			shown.put("dead", point.dead());
			shown.put("expired", point.expired());
			shown.put("filtered", point.filtered());
			shown.put("latenessP50Ms", DashboardViews.millis(point.latenessPercentile(50)));
			shown.put("latenessP99Ms", DashboardViews.millis(point.latenessPercentile(99)));
			points.add(shown);
		}
		return Map.of("queue", queue, "span", read.name(), "intervalSeconds", read.interval().toSeconds(), "points",
				points);
	}

	@GetMapping("/queues/{queue}/schedules")
	List<Map<String, Object>> schedules(@PathVariable String queue, HttpServletRequest request) {
		requireVisible(queue, request);
		return this.engine.admin().schedules().list(queue).stream().map(DashboardViews::schedule).toList();
	}

	@PostMapping("/queues/{queue}/schedules/{name}/{action}")
	Map<String, Object> schedule(@PathVariable String queue, @PathVariable String name, @PathVariable String action,
			HttpServletRequest request) {
		requireWritable(queue, request);
		DelaySchedules.Action act = DelaySchedules.Action.parse(action);
		String done = this.engine.admin()
			.schedules()
			.apply(queue, name, act)
			.orElseThrow(() -> new DashboardAccess.NotFoundException(
					"No schedule " + InputText.quote(name) + " in queue '" + queue + "'"));
		DashboardAccess.audit(request, queue, "did '" + action + "' to schedule '" + name + "'");
		return Map.of("queue", queue, "schedule", name, "done", action, "result", done);
	}

	@PostMapping("/queues/{queue}/pause")
	Map<String, Object> pause(@PathVariable String queue, @RequestParam(required = false) String group,
			HttpServletRequest request) {
		requireWritable(queue, request);
		QueueControlState state = (group != null) ? this.engine.admin().pause(queue, group)
				: this.engine.admin().pause(queue);
		DashboardAccess.audit(request, queue, "paused " + ((group != null) ? "group '" + group + "'" : "the queue"));
		return DashboardViews.controls(state);
	}

	@PostMapping("/queues/{queue}/resume")
	Map<String, Object> resume(@PathVariable String queue, @RequestParam(required = false) String group,
			HttpServletRequest request) {
		requireWritable(queue, request);
		QueueControlState state = (group != null) ? this.engine.admin().resume(queue, group)
				: this.engine.admin().resume(queue);
		DashboardAccess.audit(request, queue, "resumed " + ((group != null) ? "group '" + group + "'" : "the queue"));
		return DashboardViews.controls(state);
	}

	@PostMapping("/queues/{queue}/rate-limit")
	Map<String, Object> rateLimit(@PathVariable String queue, @RequestParam(required = false) String rateLimit,
			@RequestParam(required = false) String group, HttpServletRequest request) {
		requireWritable(queue, request);
		QueueControlState state;
		if (rateLimit == null || rateLimit.isBlank()) {
			state = (group != null) ? this.engine.admin().removeRateLimit(queue, group)
					: this.engine.admin().removeRateLimit(queue);
		}
		else {
			RateLimit limit = RateLimit.parse(rateLimit.trim());
			state = (group != null) ? this.engine.admin().limitRate(queue, group, limit)
					: this.engine.admin().limitRate(queue, limit);
		}
		DashboardAccess.audit(request, queue,
				"set the rate limit " + ((group != null) ? "of group '" + group + "' " : "") + "to '"
						+ ((rateLimit != null) ? rateLimit.trim() : "") + "'");
		return DashboardViews.controls(state);
	}

	private void requireWritable(String queue, HttpServletRequest request) {
		this.access.requireWritable(queue, request);
	}

	private void requireVisible(String queue, HttpServletRequest request) {
		this.access.requireVisible(queue, request);
	}

}
