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
import java.util.TreeSet;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import io.github.delayqueue.core.internal.runtime.BoundedCalls;
import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of delayqueue: {@code DOWN} when Redis cannot be reached, when a listener that
 * should run (auto-startup on, application started) is not running, or when a running
 * listener is not healthy (a part of it ended, or has failed for seconds on end: see
 * {@link DelayQueueListenerContainer#unhealthyReason()}); {@code UP} otherwise. Details:
 * each listener (queue, group, running, healthy, and the reason when it is not) and each
 * queue's counts; when DOWN for a listener, {@code reason} names the first such listener
 * and why.
 */
public class DelayQueueHealthIndicator extends AbstractHealthIndicator {

	private final DelayQueueEngine engine;

	private final ObjectProvider<DelayListenerEndpointRegistry> listeners;

	/**
	 * Creates the indicator.
	 * @param engine the engine
	 * @param listeners the listener registry, if any
	 */
	public DelayQueueHealthIndicator(DelayQueueEngine engine, ObjectProvider<DelayListenerEndpointRegistry> listeners) {
		super("DelayQueue health check failed");
		this.engine = engine;
		this.listeners = listeners;
	}

	/**
	 * Answers within about a second: a Redis that does not answer in time is DOWN, with
	 * the reason, never a hung health check.
	 */
	@Override
	protected void doHealthCheck(Health.Builder builder) {
		try {
			BoundedCalls.call(DelayQueueEndpoint.READ_BOUND, () -> {
				check(builder);
				return null;
			});
		}
		catch (BoundedCalls.TimeoutException ex) {
			builder.down().withDetail("error", ex.getMessage());
		}
		finally {
			// also while Redis is down: then the outbox holds what is sent
			if (this.engine.hasOutbox()) {
				builder.withDetail("outbox", OutboxStatus.of(this.engine.outbox()));
			}
		}
	}

	private void check(Health.Builder builder) {
		TreeSet<String> queues = new TreeSet<>(this.engine.admin().queues());
		Map<String, Object> listenerDetails = new LinkedHashMap<>();
		String down = null;
		DelayListenerEndpointRegistry registry = this.listeners.getIfAvailable();
		if (registry != null) {
			queues.addAll(registry.getQueues());
			for (String id : registry.getListenerContainerIds()) {
				DelayQueueListenerContainer container = registry.getListenerContainer(id);
				boolean running = container.isRunning();
				String problem = running ? container.unhealthyReason() : null;
				Map<String, Object> details = new LinkedHashMap<>(
						Map.of("queue", container.queue(), "group", container.group(), "running", running, "healthy",
								running && problem == null, "abandonedHandlers", container.abandonedHandlers()));
				if (problem != null) {
					details.put("reason", problem);
				}
				listenerDetails.put(id, details);
				// running but not served (a part being replaced, failing) is not healthy
				// either
				if (down == null && registry.isRunning() && container.isAutoStartup() && !running) {
					down = "listener '" + id + "' is not running";
				}
				else if (down == null && problem != null) {
					down = "listener '" + id + "' is not healthy: " + problem;
				}
			}
		}
		Map<String, Object> queueDetails = new LinkedHashMap<>();
		for (String queue : queues) {
			try {
				queueDetails.put(queue, queueDetails(queue));
			}
			catch (RuntimeException ex) {
				// one queue's keys of the wrong type: the others and the listeners are
				// still reported
				String error = Failures.describe(ex);
				queueDetails.put(queue, Map.of("error", error));
				down = (down != null) ? down : "cannot read the counts of queue '" + queue + "': " + error;
			}
		}
		if (down != null) {
			builder.down().withDetail("reason", down);
		}
		else {
			builder.up();
		}
		builder.withDetail("listeners", listenerDetails).withDetail("queues", queueDetails);
	}

	private Map<String, Object> queueDetails(String queue) {
		QueueStats stats = this.engine.admin().stats(queue);
		QueueControlState controls = this.engine.admin().controls(queue);
		Map<String, Object> details = new LinkedHashMap<>(
				Map.of("scheduled", stats.scheduled(), "ready", stats.ready(), "inFlight", stats.inFlight(), "dead",
						stats.dead(), "paused", controls.paused(), "pausedGroups", controls.pausedGroups()));
		limits(details, "rateLimit", controls.rateLimit(), "groupRateLimits", controls.groupRateLimits());
		limits(details, "concurrencyLimit", controls.concurrencyLimit(), "groupConcurrencyLimits",
				controls.groupConcurrencyLimits());
		return details;
	}

	/** Shows a queue's limit and its groups' own, as text, when set. */
	private static void limits(Map<String, Object> details, String name, Object limit, String groupsName,
			Map<String, ?> groupLimits) {
		if (limit != null) {
			details.put(name, limit.toString());
		}
		if (!groupLimits.isEmpty()) {
			Map<String, String> groups = new LinkedHashMap<>();
			groupLimits.forEach((group, each) -> groups.put(group, each.toString()));
			details.put(groupsName, groups);
		}
	}

}
