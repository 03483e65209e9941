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

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.QueueStats;
import jakarta.servlet.http.HttpServletRequest;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard's concurrency limits: set or removed for a queue or one group (a write,
 * checked and audited as the others), and shown with the slots each group has taken.
 */
@RestController
@RequestMapping("${delayqueue.dashboard.path:/delayqueue}/api")
class DashboardConcurrencyApi {

	private final DelayQueueEngine engine;

	private final DashboardAccess access;

	DashboardConcurrencyApi(DelayQueueEngine engine, DashboardAccess access) {
		this.engine = engine;
		this.access = access;
	}

	@PostMapping("/queues/{queue}/concurrency-limit")
	Map<String, Object> concurrencyLimit(@PathVariable String queue,
			@RequestParam(required = false) String concurrencyLimit, @RequestParam(required = false) String group,
			HttpServletRequest request) {
		this.access.requireWritable(queue, request);
		DelayQueueAdmin admin = this.engine.admin();
		QueueControlState state;
		String text = (concurrencyLimit != null) ? concurrencyLimit.trim() : "";
		if (text.isEmpty()) {
			state = (group != null) ? admin.removeConcurrencyLimit(queue, group) : admin.removeConcurrencyLimit(queue);
		}
		else {
			ConcurrencyLimit limit = ConcurrencyLimit.parse(text);
			state = (group != null) ? admin.limitConcurrency(queue, group, limit)
					: admin.limitConcurrency(queue, limit);
		}
		DashboardAccess.audit(request, queue, "set the concurrency limit "
				+ ((group != null) ? "of group '" + group + "' " : "") + "to '" + text + "'");
		return DashboardViews.controls(state);
	}

	/**
	 * Shows a queue's concurrency limits in its summary: the queue's, the groups with one
	 * of their own, and the slots each group under a limit of the whole group has taken.
	 */
	static void show(Map<String, Object> summary, DelayQueueAdmin admin, QueueStats stats, QueueControlState controls) {
		summary.put("concurrencyLimit",
				(controls.concurrencyLimit() != null) ? controls.concurrencyLimit().toString() : null);
		Map<String, String> limits = new LinkedHashMap<>();
		controls.groupConcurrencyLimits().forEach((group, limit) -> limits.put(group, limit.toString()));
		summary.put("groupConcurrencyLimits", limits);
		Map<String, Object> slots = new LinkedHashMap<>();
		for (QueueStats.GroupStats group : stats.groups()) {
			ConcurrencyLimit limit = controls.concurrencyLimit(group.group());
			if (limit != null && !limit.perKey()) {
				slots.put(group.group(), Map.of("taken", admin.concurrencySlotsTaken(stats.queue(), group.group()),
						"limit", limit.max()));
			}
		}
		summary.put("concurrencySlots", slots);
	}

}
