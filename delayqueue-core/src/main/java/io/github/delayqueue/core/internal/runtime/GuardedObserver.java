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

package io.github.delayqueue.core.internal.runtime;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.SendResult;

/**
 * Calls every observer in turn and shields the engine from one that throws: a failing
 * metrics callback must not fail a send that Redis applied, kill a worker, make an ack
 * look failed, or keep the other observers from being called. Failures (exceptions,
 * linkage errors, assertion errors) are logged.
 */
public final class GuardedObserver implements DelayQueueObserver {

	private static final Log logger = LogFactory.getLog(GuardedObserver.class);

	private final List<DelayQueueObserver> delegates;

	public GuardedObserver(List<DelayQueueObserver> delegates) {
		this.delegates = List.copyOf(delegates);
	}

	private void guard(String callback, Consumer<DelayQueueObserver> call) {
		for (DelayQueueObserver delegate : this.delegates) {
			try {
				call.accept(delegate);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				// an Error too (a class a metrics library misses, an assert): it would
				// skip
				// the other observers and fail a handled message's attempt; the JVM's own
				// errors (out of memory) still go up
				logger.warn("DelayQueueObserver." + callback + " of " + delegate.getClass().getName()
						+ " threw; ignored: " + ex);
			}
		}
	}

	@Override
	public void sent(SendResult result) {
		guard("sent", (observer) -> observer.sent(result));
	}

	@Override
	public void delivered(String queue, String group, int attempt, Duration lateness) {
		guard("delivered", (observer) -> observer.delivered(queue, group, attempt, lateness));
	}

	@Override
	public void acked(String queue, String group, Duration processing) {
		guard("acked", (observer) -> observer.acked(queue, group, processing));
	}

	@Override
	public void retried(String queue, String group, Duration processing, Throwable error) {
		guard("retried", (observer) -> observer.retried(queue, group, processing, error));
	}

	@Override
	public void dead(String queue, String group, Duration processing, Throwable error) {
		guard("dead", (observer) -> observer.dead(queue, group, processing, error));
	}

	@Override
	public void expired(String queue, String group, boolean deadLettered) {
		guard("expired", (observer) -> observer.expired(queue, group, deadLettered));
	}

	@Override
	public void rateLimited(String queue, String group, boolean redelayed) {
		guard("rateLimited", (observer) -> observer.rateLimited(queue, group, redelayed));
	}

	@Override
	public void snoozed(String queue, String group, Duration delay) {
		guard("snoozed", (observer) -> observer.snoozed(queue, group, delay));
	}

	@Override
	public void recovered(String queue, String group, int count) {
		guard("recovered", (observer) -> observer.recovered(queue, group, count));
	}

	@Override
	public void filtered(String queue, String group) {
		guard("filtered", (observer) -> observer.filtered(queue, group));
	}

	@Override
	public void abandoned(String queue, String group) {
		guard("abandoned", (observer) -> observer.abandoned(queue, group));
	}

}
