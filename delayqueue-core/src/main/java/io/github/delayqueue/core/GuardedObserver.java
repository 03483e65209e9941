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

package io.github.delayqueue.core;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Shields the engine from an observer that throws: a failing metrics callback must not
 * fail a send that Redis applied, kill a worker, or make an ack look failed. Failures are
 * logged.
 */
final class GuardedObserver implements DelayQueueObserver {

	private static final Log logger = LogFactory.getLog(GuardedObserver.class);

	private final DelayQueueObserver delegate;

	GuardedObserver(DelayQueueObserver delegate) {
		this.delegate = delegate;
	}

	private void guard(String callback, Runnable call) {
		try {
			call.run();
		}
		catch (RuntimeException ex) {
			logger.warn("DelayQueueObserver." + callback + " threw; ignored: " + ex);
		}
	}

	@Override
	public void sent(SendResult result) {
		guard("sent", () -> this.delegate.sent(result));
	}

	@Override
	public void delivered(String queue, String group, int attempt, Duration lateness) {
		guard("delivered", () -> this.delegate.delivered(queue, group, attempt, lateness));
	}

	@Override
	public void acked(String queue, String group, Duration processing) {
		guard("acked", () -> this.delegate.acked(queue, group, processing));
	}

	@Override
	public void retried(String queue, String group, Duration processing, Throwable error) {
		guard("retried", () -> this.delegate.retried(queue, group, processing, error));
	}

	@Override
	public void dead(String queue, String group, Throwable error) {
		guard("dead", () -> this.delegate.dead(queue, group, error));
	}

	@Override
	public void recovered(String queue, String group, int count) {
		guard("recovered", () -> this.delegate.recovered(queue, group, count));
	}

}
