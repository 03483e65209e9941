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
package io.github.delayqueue.core.internal.delivery;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.event.ContainerIdleEvent;

/**
 * Publishes a container's {@link ContainerIdleEvent}s: when it has held no message and
 * received none for its idle event interval, and again after each further interval while
 * that lasts. Checked by the watchdog; costs the delivery path one counter per message
 * received ({@link Holdings#received()}).
 */
final class IdleWatch {

	private final ListenerContext context;

	private final Holdings holdings;

	/** The interval, {@code 0} when the container publishes no idle events. */
	private final long intervalNanos;

	private int seenReceived;

	private long idleSince;

	private long nextEvent;

	IdleWatch(ListenerContext context, Holdings holdings) {
		this.context = context;
		this.holdings = holdings;
		Duration interval = context.settings().idleEventInterval();
		this.intervalNanos = (interval != null && context.events().active()) ? interval.toNanos() : 0;
	}

	/** Counts the container idle from now on (it starts). */
	void start(long now) {
		this.seenReceived = this.holdings.received();
		this.idleSince = now;
		this.nextEvent = now + this.intervalNanos;
	}

	/**
	 * Publishes an idle event when one is due.
	 * @param now {@code System.nanoTime()}
	 * @return how long until the next check is due, in nanoseconds
	 */
	long check(long now) {
		if (this.intervalNanos == 0) {
			return Long.MAX_VALUE;
		}
		int received = this.holdings.received();
		if (received != this.seenReceived || this.holdings.size() > 0) {
			this.seenReceived = received;
			this.idleSince = now;
			this.nextEvent = now + this.intervalNanos;
		}
		else if (now - this.nextEvent >= 0) {
			long idle = now - this.idleSince;
			this.context.events()
				.publish((time) -> new ContainerIdleEvent(this.context.queue(), this.context.group(),
						this.context.consumer(), Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(idle)), time));
			this.nextEvent = now + this.intervalNanos;
		}
		// looked at again within a second: the event comes at most that late
		return Math.min(this.nextEvent - now, TimeUnit.SECONDS.toNanos(1));
	}

}
