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

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.RateLimit;

/**
 * Whether the listeners of one (queue, group) may start handlers now: closed while the
 * queue or the group is paused. Readers and workers consult it before each read and each
 * handler start, in memory: an open gate costs the hot path no Redis call. Its waits are
 * on {@code java.util.concurrent} conditions, not monitors: a virtual-thread worker
 * waiting here leaves its carrier free.
 */
public final class FlowGate {

	private final ReentrantLock lock = new ReentrantLock();

	/** Signalled when the gate opens. */
	private final Condition opened = this.lock.newCondition();

	private volatile boolean closed;

	/** Whether the queue's state was applied once: until then the gate is closed. */
	private boolean stateRead;

	/** How many started containers use the gate: only they hear of its changes. */
	private int started;

	/** Whether they were told it is paused: told again after they all stopped. */
	private boolean toldPaused;

	private volatile RateLimit rateLimit;

	private volatile ConcurrencyLimit concurrencyLimit;

	/** Signalled when an instance freed a slot of the group while others waited. */
	private final Condition slotFreed = this.lock.newCondition();

	/** Bumped by each {@link #slotFreed()}, so that a waiter sees one it just missed. */
	private volatile long slotsFreed;

	/** Held by the one worker of this instance asking Redis for a permit. */
	private final ReentrantLock permitLock = new ReentrantLock(true);

	/** Until when ({@code System.nanoTime()}) a handler's push-back holds starts here. */
	private volatile long heldUntilNanos = System.nanoTime();

	/** Tells the other instances of a hold (best effort), or {@code null}. */
	private final Consumer<Duration> broadcast;

	/** Run each time the gate opens: the listeners' pools hand workers over again. */
	private final List<Runnable> openers = new CopyOnWriteArrayList<>();

	/**
	 * Tells the other instances that an owner joined the group (best effort), or null.
	 */
	private final Runnable announceOwner;

	/** Run when the group may have new owners: its shared listeners look for them. */
	private final List<Runnable> ownerWatchers = new CopyOnWriteArrayList<>();

	FlowGate(boolean closed, Consumer<Duration> broadcast, Runnable announceOwner) {
		this.closed = closed;
		this.broadcast = broadcast;
		this.announceOwner = announceOwner;
	}

	/**
	 * @return whether handlers may start
	 */
	public boolean isOpen() {
		return !this.closed;
	}

	/**
	 * Runs an action each time the gate opens, on the thread that opened it (it must not
	 * block).
	 * @param opened the action
	 */
	public void whenOpened(Runnable opened) {
		this.openers.add(opened);
	}

	/**
	 * Stops running an action {@link #whenOpened} added.
	 * @param opened the action
	 */
	public void noLongerWhenOpened(Runnable opened) {
		this.openers.remove(opened);
	}

	/**
	 * @return the rate limit handlers start under, or {@code null}
	 */
	public RateLimit rateLimit() {
		return this.rateLimit;
	}

	/**
	 * @return the concurrency limit handlers run under, or {@code null}
	 */
	public ConcurrencyLimit concurrencyLimit() {
		return this.concurrencyLimit;
	}

	/**
	 * @return how many freed slots were announced so far: pass it to
	 * {@link #awaitSlotFreed}
	 */
	public long slotsFreed() {
		return this.slotsFreed;
	}

	/** A slot of the group was freed (a notification): wakes the waiters. */
	public void slotFreed() {
		this.lock.lock();
		try {
			this.slotsFreed++;
			this.slotFreed.signalAll();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Waits until a slot is announced freed after {@code seen}, at most {@code millis}.
	 * @param seen what {@link #slotsFreed()} returned before the last ask
	 * @param millis the longest wait
	 */
	public void awaitSlotFreed(long seen, long millis) {
		this.lock.lock();
		try {
			if (this.slotsFreed == seen) {
				this.slotFreed.await(millis, TimeUnit.MILLISECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.lock.unlock();
		}
	}

	/**
	 * Runs an action whenever the group may have new exclusive or ordered members: one
	 * joined, or a notice of that may have been lost (the subscription was confirmed
	 * again). On the thread that learnt it: the action must not block.
	 * @param watcher the action
	 */
	public void whenOwnersMayHaveChanged(Runnable watcher) {
		this.ownerWatchers.add(watcher);
	}

	/**
	 * Stops running an action {@link #whenOwnersMayHaveChanged} added.
	 * @param watcher the action
	 */
	public void noLongerWhenOwnersMayHaveChanged(Runnable watcher) {
		this.ownerWatchers.remove(watcher);
	}

	/** The group may have new owners: tells the watchers here. */
	public void ownersMayHaveChanged() {
		this.ownerWatchers.forEach(Runnable::run);
	}

	/**
	 * An exclusive or ordered member of the group joined or left on this instance: tells
	 * the watchers here, and the other instances on the queue's control channel.
	 */
	public void ownersChangedEverywhere() {
		ownersMayHaveChanged();
		if (this.announceOwner != null) {
			this.announceOwner.run();
		}
	}

	/**
	 * Holds starts for a while on this instance, and tells the other instances on the
	 * queue's control channel: a handler pushed back.
	 * @param hold how long
	 */
	public void holdEverywhere(Duration hold) {
		holdFor(hold);
		if (this.broadcast != null) {
			this.broadcast.accept(hold);
		}
	}

	/**
	 * Holds starts on this instance for a while.
	 * @param hold how long
	 */
	public void holdFor(Duration hold) {
		long until = System.nanoTime() + hold.toNanos();
		if (until - this.heldUntilNanos > 0) {
			this.heldUntilNanos = until;
		}
	}

	/**
	 * @return how long starts are still held here by a push-back, in nanoseconds, or 0
	 */
	public long heldNanos() {
		return Math.max(0, this.heldUntilNanos - System.nanoTime());
	}

	/**
	 * @return the lock the worker asking Redis for a rate-limit permit holds
	 */
	public ReentrantLock permitLock() {
		return this.permitLock;
	}

	void rateLimit(RateLimit limit) {
		this.rateLimit = limit;
	}

	void concurrencyLimit(ConcurrencyLimit limit) {
		ConcurrencyLimit before = this.concurrencyLimit;
		this.concurrencyLimit = limit;
		if (limit == null || before == null || limit.max() > before.max()) {
			// raised or removed: waiters look again at once
			slotFreed();
		}
	}

	/**
	 * Closes or opens the gate, as the queue's state read from Redis says.
	 * @param closed whether the queue or group is paused
	 * @return what its started containers are to be told: nothing while none is started;
	 * the first state read after one started is a pause when paused (a container that
	 * starts while paused hears of it), else only changes
	 */
	Change set(boolean closed) {
		boolean opening = false;
		this.lock.lock();
		try {
			opening = this.closed && !closed;
			this.stateRead = true;
			this.closed = closed;
			this.opened.signalAll();
			if (this.started == 0 || closed == this.toldPaused) {
				return Change.NONE;
			}
			this.toldPaused = closed;
			return closed ? Change.PAUSED : Change.RESUMED;
		}
		finally {
			this.lock.unlock();
			if (opening) {
				this.openers.forEach(Runnable::run);
			}
		}
	}

	/** A container of the gate started: it hears of the state read next, and after. */
	void started() {
		this.lock.lock();
		try {
			this.started++;
		}
		finally {
			this.lock.unlock();
		}
	}

	/** A container of the gate stopped. */
	void stopped() {
		this.lock.lock();
		try {
			if (this.started > 0 && --this.started == 0) {
				this.toldPaused = false;
			}
		}
		finally {
			this.lock.unlock();
		}
	}

	/** What a {@link #set} changed. */
	enum Change {

		NONE, PAUSED, RESUMED

	}

	/**
	 * Waits until the gate is open, at most {@code millis}.
	 * @param millis the longest wait
	 * @return whether it is open
	 */
	public boolean awaitOpen(long millis) {
		if (!this.closed) {
			return true;
		}
		this.lock.lock();
		try {
			if (this.closed) {
				this.opened.await(millis, TimeUnit.MILLISECONDS);
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		finally {
			this.lock.unlock();
		}
		return !this.closed;
	}

}
