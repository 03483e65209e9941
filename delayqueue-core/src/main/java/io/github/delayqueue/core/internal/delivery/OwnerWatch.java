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

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.internal.control.FlowGate;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;

/**
 * Whether a shared container's group has exclusive or ordered members alive: a shared
 * container must not read beside them (it would break their order, and a new owner would
 * claim its entries). Its readers ask before they read (at each connection and every
 * second), and are refused while an owner is alive (they stop reading, retry, and the
 * container is not healthy). The answer comes from Redis at most every
 * {@link #OWNERS_CHECK_NANOS} for all the container's readers (one call, not one per
 * partition), every half second while refused, and at once when an owner's start or stop
 * is told ({@link FlowGate#ownersChangedEverywhere}): then the readers break off their
 * blocking reads to ask.
 */
final class OwnerWatch {

	/**
	 * How long a shared container trusts its last look for owners of its group: an owner
	 * that joins tells every instance at once, so this only bounds how long a lost notice
	 * goes unnoticed.
	 */
	static final long OWNERS_CHECK_NANOS = TimeUnit.SECONDS.toNanos(30);

	/** How long a shared container refused beside an owner trusts that look. */
	private static final long REFUSED_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

	private final ListenerContext context;

	/** Makes every reader ask again now. */
	private final Runnable askAgain;

	/** Told that the group may have new owners. */
	private final Runnable ownersChanged = this::ownersMayHaveChanged;

	/** The last live exclusive member seen, and when (guarded by this). */
	private String liveOwner;

	private long ownersCheckedNanos;

	OwnerWatch(ListenerContext context, Runnable askAgain) {
		this.context = context;
		this.askAgain = askAgain;
	}

	/** The container starts: it looks afresh, and hears of owners joining or leaving. */
	void start() {
		forget();
		this.context.gate().whenOwnersMayHaveChanged(this.ownersChanged);
	}

	void stop() {
		this.context.gate().noLongerWhenOwnersMayHaveChanged(this.ownersChanged);
	}

	/**
	 * Refuses a reader while the group has a live owner.
	 * @throws IllegalStateException naming the owner
	 */
	void refuseBesideOwners() {
		String owner = liveOwner();
		if (owner != null) {
			throw new IllegalStateException("Group '" + this.context.group() + "' of queue '" + this.context.queue()
					+ "' is consumed exclusively or in order (member " + owner
					+ " is alive), and this listener shares its partitions: declare it exclusive or ordered too");
		}
	}

	/**
	 * The group may have new owners (one joined or left on some instance, or its notice
	 * may have been lost): every reader looks at once, breaking off a blocking read.
	 */
	private void ownersMayHaveChanged() {
		forget();
		this.askAgain.run();
	}

	private synchronized void forget() {
		this.ownersCheckedNanos = 0;
	}

	private synchronized String liveOwner() {
		long now = System.nanoTime();
		// while refused, looked at again soon: an owner that crashed leaves no notice
		long trusted = (this.liveOwner != null) ? REFUSED_CHECK_NANOS : OWNERS_CHECK_NANOS;
		if (this.ownersCheckedNanos == 0 || now - this.ownersCheckedNanos >= trusted) {
			List<Object> alive = this.context.scripts()
				.run(Scripts.MEMBERS, List.of(this.context.keys().members(this.context.group())),
						this.context.consumer(), 0, "any");
			this.liveOwner = alive.isEmpty() ? null : ScriptRunner.asString(alive.get(0));
			this.ownersCheckedNanos = now;
		}
		return this.liveOwner;
	}

}
