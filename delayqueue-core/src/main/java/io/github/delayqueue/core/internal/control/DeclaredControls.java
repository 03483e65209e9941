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

package io.github.delayqueue.core.internal.control;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.RateLimit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The flow controls declared on the engine at start-up (a queue paused, a rate or
 * concurrency limit): each is written into Redis once, when its queue is first watched,
 * before its state is read. A queue declared paused stays closed here until its pause is
 * written.
 */
final class DeclaredControls {

	private static final Log logger = LogFactory.getLog(DeclaredControls.class);

	/** Queues to pause when first watched. */
	private final Set<String> pause = ConcurrentHashMap.newKeySet();

	/** Rate limits to write when their queue is first watched. */
	private final Map<String, RateLimit> rateLimits = new ConcurrentHashMap<>();

	/** Concurrency limits to write when their queue is first watched. */
	private final Map<String, ConcurrencyLimit> concurrencyLimits = new ConcurrentHashMap<>();

	DeclaredControls(Set<String> pause, Map<String, RateLimit> rateLimits,
			Map<String, ConcurrencyLimit> concurrencyLimits) {
		this.pause.addAll(pause);
		this.rateLimits.putAll(rateLimits);
		this.concurrencyLimits.putAll(concurrencyLimits);
	}

	/**
	 * @param queue the queue
	 * @return whether the queue is declared paused and the pause not written yet
	 */
	boolean pausePending(String queue) {
		return this.pause.contains(queue);
	}

	/**
	 * Writes what is declared for a queue and not written yet; a failure is retried at
	 * the next call.
	 * @param queue the queue
	 * @param controls where to write it
	 */
	void write(String queue, FlowControls controls) {
		RateLimit rate = this.rateLimits.get(queue);
		if (rate != null) {
			controls.limitRate(queue, null, rate);
			this.rateLimits.remove(queue);
			logger.info("Queue '" + queue + "' is rate limited to " + rate + ": declared at start-up");
		}
		ConcurrencyLimit concurrency = this.concurrencyLimits.get(queue);
		if (concurrency != null) {
			controls.limitConcurrency(queue, null, concurrency);
			this.concurrencyLimits.remove(queue);
			logger.info("Queue '" + queue + "' runs at most " + concurrency + " handlers at once (each group): "
					+ "declared at start-up");
		}
		if (this.pause.contains(queue)) {
			controls.pause(queue, null);
			this.pause.remove(queue);
			logger.info("Queue '" + queue + "' is paused: declared paused at start-up");
		}
	}

}
