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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.internal.runtime.Failures;

/**
 * When the control state (pause, limits) of each watched queue was last read, and why its
 * reads fail while they do: what tells a queue's listeners whether their gates are
 * current. A queue whose state was not read for three poll periods may have stale gates,
 * closed for good if it was never read (an ACL that refuses the read, a meta key of the
 * wrong type, a Redis that answers errors): its listeners report it rather than stay idle
 * unnoticed.
 */
final class ControlReads {

	private static final long CURRENT_NANOS = 3 * TimeUnit.MILLISECONDS.toNanos(FlowControls.POLL_PERIOD_MILLIS);

	/** By queue: when its state was last read ({@code System.nanoTime()}). */
	private final Map<String, Long> readAt = new ConcurrentHashMap<>();

	/** By queue: why its last read failed, while its reads fail. */
	private final Map<String, String> failures = new ConcurrentHashMap<>();

	/** A queue just watched has the grace of a fresh read. */
	void watched(String queue) {
		this.readAt.putIfAbsent(queue, System.nanoTime());
	}

	void read(String queue) {
		this.readAt.put(queue, System.nanoTime());
		this.failures.remove(queue);
	}

	void failed(String queue, RuntimeException ex) {
		this.failures.put(queue, Failures.describe(ex));
	}

	/**
	 * Tells why a queue's state is not current: not read within the last three poll
	 * periods (nor first watched that recently), with the last failure.
	 * @param queue the queue
	 * @return the reason, {@code null} while its state is current
	 */
	String problem(String queue) {
		Long at = this.readAt.get(queue);
		long age = (at != null) ? System.nanoTime() - at : Long.MAX_VALUE;
		if (age < CURRENT_NANOS) {
			return null;
		}
		String failure = this.failures.get(queue);
		return "the control state (pause, limits) of queue '" + queue + "' "
				+ ((at != null) ? "has not been read for " + TimeUnit.NANOSECONDS.toSeconds(age) + " s"
						: "was never read")
				+ ((failure != null) ? ": " + failure : "") + "; nothing starts until it is";
	}

}
