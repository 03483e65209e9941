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
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.internal.runtime.Failures;

/**
 * When the control state (pause, limits) of each watched queue was last read, when it is
 * to be read next, and why its reads fail while they do: what tells a queue's listeners
 * whether their gates are current. A queue's state is read when it is first watched, when
 * its notifications' subscription is confirmed (the first time and after every
 * resubscription), and then every {@link FlowControls#SLOW_POLL_PERIOD_MILLIS} ms, or
 * every {@link FlowControls#POLL_PERIOD_MILLIS} ms while the subscription is not
 * confirmed. Its gates may be stale, and its listeners report it rather than stay idle
 * unnoticed, when its state was never read within {@link #FIRST_READ_MILLIS} ms of being
 * watched (closed for good: an ACL that refuses the read, a meta key of the wrong type, a
 * Redis that answers errors), when its reads have failed for that long on end, or when
 * nothing was read for {@link #STALE_MILLIS} ms.
 */
final class ControlReads {

	/** How long a queue's state may be unread after it is watched, or fail on end. */
	static final long FIRST_READ_MILLIS = 3 * FlowControls.POLL_PERIOD_MILLIS;

	/** How long a queue's state may go unread: two slow polls and some. */
	static final long STALE_MILLIS = 2 * FlowControls.SLOW_POLL_PERIOD_MILLIS + 5_000;

	/** By queue: when its state was last read ({@code System.nanoTime()}). */
	private final Map<String, Long> readAt = new ConcurrentHashMap<>();

	/** By queue: when it was watched while its state was not current. */
	private final Map<String, Long> watchedAt = new ConcurrentHashMap<>();

	/** By queue: since when its reads fail, while they do. */
	private final Map<String, Long> failingSince = new ConcurrentHashMap<>();

	/** By queue: why its last read failed, while its reads fail. */
	private final Map<String, String> failures = new ConcurrentHashMap<>();

	/** Queues to read at the next round, whatever their period. */
	private final Set<String> requested = ConcurrentHashMap.newKeySet();

	/** A queue just watched is read at once, and has a grace until then. */
	void watched(String queue) {
		long now = System.nanoTime();
		this.readAt.computeIfPresent(queue, (name, at) -> (now - at > millis(STALE_MILLIS)) ? null : at);
		if (!this.readAt.containsKey(queue)) {
			this.watchedAt.put(queue, now);
		}
		this.requested.add(queue);
	}

	/** The state is to be read at the next round: notifications may have been lost. */
	void request(String queue) {
		this.requested.add(queue);
	}

	/**
	 * Tells how long until a queue's state is to be read, and takes a request.
	 * @param queue the queue
	 * @param periodMillis how often it is read
	 * @return nanoseconds, 0 or less: now
	 */
	long untilRead(String queue, long periodMillis) {
		if (this.requested.remove(queue)) {
			return 0;
		}
		Long at = this.readAt.get(queue);
		return (at == null) ? 0 : at + millis(periodMillis) - System.nanoTime();
	}

	void read(String queue) {
		this.readAt.put(queue, System.nanoTime());
		this.watchedAt.remove(queue);
		this.failingSince.remove(queue);
		this.failures.remove(queue);
	}

	void failed(String queue, RuntimeException ex) {
		long now = System.nanoTime();
		this.failingSince.putIfAbsent(queue, now);
		this.failures.put(queue, Failures.describe(ex));
	}

	/**
	 * Tells why a queue's state is not current: never read within
	 * {@link #FIRST_READ_MILLIS} ms of being watched, reads failing for that long on end,
	 * or not read for {@link #STALE_MILLIS} ms; with the last failure.
	 * @param queue the queue
	 * @return the reason, {@code null} while its state is current
	 */
	String problem(String queue) {
		long now = System.nanoTime();
		String failure = this.failures.get(queue);
		String because = (failure != null) ? ": " + failure : "";
		String what = "the control state (pause, limits) of queue '" + queue + "'";
		Long at = this.readAt.get(queue);
		if (at == null) {
			Long watched = this.watchedAt.get(queue);
			if (watched != null && now - watched < millis(FIRST_READ_MILLIS)) {
				return null;
			}
			return what + " was never read" + because + "; nothing starts until it is";
		}
		Long failing = this.failingSince.get(queue);
		if (failing != null && now - failing >= millis(FIRST_READ_MILLIS)) {
			return what + " cannot be read: its reads have failed for " + seconds(now - failing) + because
					+ "; pauses and limits changed meanwhile are not applied";
		}
		if (now - at >= millis(STALE_MILLIS)) {
			return what + " has not been read for " + seconds(now - at) + because
					+ "; pauses and limits changed meanwhile are not applied";
		}
		return null;
	}

	private static long millis(long millis) {
		return TimeUnit.MILLISECONDS.toNanos(millis);
	}

	private static String seconds(long nanos) {
		return TimeUnit.NANOSECONDS.toSeconds(nanos) + " s";
	}

}
