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

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import jakarta.servlet.http.HttpServletRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Who may see and change what, for every controller of the dashboard: a queue the user
 * may not see, or that is unknown, answers 404 alike; a write must pass
 * {@link DashboardWrites}; and every write that was done is logged under
 * {@code io.github.delayqueue.dashboard.audit} with the user's name.
 */
final class DashboardAccess {

	private static final Log audit = LogFactory.getLog("io.github.delayqueue.dashboard.audit");

	private final DelayQueueEngine engine;

	private final ObjectProvider<DelayListenerEndpointRegistry> listeners;

	private final DashboardWrites writes;

	private final DashboardQueueFilter filter;

	DashboardAccess(DelayQueueEngine engine, ObjectProvider<DelayListenerEndpointRegistry> listeners,
			DashboardWrites writes, DashboardQueueFilter filter) {
		this.engine = engine;
		this.listeners = listeners;
		this.writes = writes;
		this.filter = filter;
	}

	DashboardWrites writes() {
		return this.writes;
	}

	boolean isVisible(String queue, HttpServletRequest request) {
		return this.filter.isVisible(queue, request);
	}

	/** A queue the user may not see, or that is unknown, answers 404 alike. */
	void requireVisible(String queue, HttpServletRequest request) {
		this.engine.keys(queue);
		if (!this.filter.isVisible(queue, request)) {
			throw new NotFoundException("Unknown queue '" + queue + "'");
		}
		DelayListenerEndpointRegistry registry = this.listeners.getIfAvailable();
		if (registry != null && registry.getQueues().contains(queue)) {
			return;
		}
		if (!this.engine.admin().queues().contains(queue)) {
			throw new NotFoundException("Unknown queue '" + queue + "'");
		}
	}

	void requireWritable(String queue, HttpServletRequest request) {
		requireVisible(queue, request);
		this.writes.check(request);
	}

	/**
	 * Logs a write that was done: who, what, on which queue.
	 * @param request the request of the write
	 * @param queue the queue
	 * @param what what was done, in words ("cancelled 30 of 30 selected messages")
	 */
	static void audit(HttpServletRequest request, String queue, String what) {
		if (audit.isInfoEnabled()) {
			String user = (request.getUserPrincipal() != null) ? request.getUserPrincipal().getName() : "(anonymous)";
			audit.info("Dashboard user '" + user + "', queue '" + queue + "': " + what);
		}
	}

	/** Something the request names does not exist, or may not be seen. */
	static class NotFoundException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		NotFoundException(String message) {
			super(message);
		}

	}

}
