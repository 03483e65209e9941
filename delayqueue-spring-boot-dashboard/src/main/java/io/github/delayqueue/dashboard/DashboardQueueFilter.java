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

import jakarta.servlet.http.HttpServletRequest;

/**
 * Decides which queues a user sees on the dashboard. A queue a user may not see is
 * answered 404, for reads and writes alike. Declare a bean of this type to decide per
 * user (e.g. with {@link HttpServletRequest#isUserInRole(String)}); the default shows the
 * queues matching {@code delayqueue.dashboard.queues} to everyone.
 */
@FunctionalInterface
public interface DashboardQueueFilter {

	/**
	 * Returns whether the user of a request may see a queue.
	 * @param queue the queue
	 * @param request the request, with its user
	 * @return whether the queue is shown
	 */
	boolean isVisible(String queue, HttpServletRequest request);

}
