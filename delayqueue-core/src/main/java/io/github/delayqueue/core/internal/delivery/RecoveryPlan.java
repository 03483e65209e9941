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

import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;

/**
 * When a container's recovery passes (XPENDING/XCLAIM of entries idle past the visibility
 * timeout) run: at its start and once more one visibility timeout later (a consumer that
 * died just before, or never heartbeated), when a heartbeat lapse is signalled (now and
 * one visibility timeout later, when the dead consumer's entries are all past it), at
 * each slow sweep, and at today's period while the group has consumers that do not
 * heartbeat (instances of a release before heartbeats: {@link #legacySeen}). Thread-safe.
 */
final class RecoveryPlan {

	private final long visibilityNanos;

	private final long periodNanos;

	private final long legacyNanos;

	private final PriorityQueue<Long> planned = new PriorityQueue<>((a, b) -> Long.compare(a, b));

	/** Until when passes run at the period (System.nanoTime), as in releases before. */
	private long legacyUntil;

	private boolean legacy;

	/**
	 * @param visibilityNanos the visibility timeout
	 * @param periodNanos the period of the passes while consumers do not heartbeat
	 * @param sweepNanos the slow sweep's period
	 */
	RecoveryPlan(long visibilityNanos, long periodNanos, long sweepNanos) {
		this.visibilityNanos = visibilityNanos;
		this.periodNanos = periodNanos;
		// a sweep by another instance may renew it: kept over two sweeps and a margin
		this.legacyNanos = 2 * sweepNanos + TimeUnit.SECONDS.toNanos(1);
	}

	/** The container starts: a pass now and one a visibility timeout later. */
	synchronized void start(long now) {
		this.planned.clear();
		this.legacy = false;
		this.planned.add(now);
		this.planned.add(now + this.visibilityNanos + TimeUnit.MILLISECONDS.toNanos(100));
	}

	/** A heartbeat lapsed: a pass now and one a visibility timeout later. */
	synchronized void lapse(long now) {
		this.planned.add(now);
		this.planned.add(now + this.visibilityNanos + TimeUnit.MILLISECONDS.toNanos(100));
	}

	/** A pass at the given time. */
	synchronized void at(long when) {
		this.planned.add(when);
	}

	/**
	 * Consumers that hold entries and do not heartbeat were seen: passes run at the
	 * period for a while.
	 */
	synchronized void legacySeen(long now) {
		if (!this.legacy || now - this.legacyUntil >= 0) {
			this.planned.add(now + this.periodNanos);
		}
		this.legacy = true;
		this.legacyUntil = now + this.legacyNanos;
	}

	/**
	 * Takes the passes due.
	 * @param now {@code System.nanoTime()}
	 * @return whether a pass is due now
	 */
	synchronized boolean due(long now) {
		boolean due = false;
		while (!this.planned.isEmpty() && now - this.planned.peek() >= 0) {
			this.planned.poll();
			due = true;
		}
		if (due && this.legacy && now - this.legacyUntil < 0) {
			this.planned.add(now + this.periodNanos);
		}
		return due;
	}

	/**
	 * @param now {@code System.nanoTime()}
	 * @return the next pass planned (System.nanoTime), {@code now} plus a day for none
	 */
	synchronized long next(long now) {
		return this.planned.isEmpty() ? now + TimeUnit.DAYS.toNanos(1) : this.planned.peek();
	}

}
