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

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.runtime.Failures;

/**
 * The concurrency slots a container holds, and their upkeep: those freed here wait to go
 * to Redis with the next take or {@link #flush}; those held are renewed with the leases
 * (a slot that lapsed is lost, and said); after a change of master they are held again on
 * the new one, and those freed in the last seconds freed again. What slots are taken, and
 * when, is {@link ConcurrencySlots}'.
 */
final class HeldSlots {

	/** How long a limit is taken to be contended after the last sign of it. */
	private static final long CONTENDED_NANOS = TimeUnit.SECONDS.toNanos(1);

	private static final Log logger = LogFactory.getLog(HeldSlots.class);

	private final ListenerContext context;

	private final SlotScript script;

	/** The slots held here. */
	private final Set<String> held = ConcurrentHashMap.newKeySet();

	/** Slots freed here, to go with the next take or the next acknowledgements. */
	private final Queue<String> toFree = new ConcurrentLinkedQueue<>();

	private final RecentFrees recentFrees = new RecentFrees();

	/**
	 * Until when (System.nanoTime) the limit is taken to be contended: a free found
	 * instances waiting for a slot. Meanwhile a freed slot goes to Redis at once, not
	 * with the next acknowledgements.
	 */
	private volatile long contendedUntil = System.nanoTime();

	/**
	 * Set when the master changed: the slots held are held again before the next take.
	 */
	private volatile boolean serverChanged;

	/** Wakes the acker: see {@link #whenFreed}. */
	private volatile Runnable onFreed = () -> {
	};

	HeldSlots(ListenerContext context, SlotScript script) {
		this.context = context;
		this.script = script;
	}

	/** A slot Redis gave this container. */
	void add(String slot) {
		this.held.add(slot);
	}

	/**
	 * @return whether the slot was held here (and is not any more)
	 */
	boolean remove(String slot) {
		return this.held.remove(slot);
	}

	/**
	 * @return how many slots this container holds
	 */
	int size() {
		return this.held.size();
	}

	/** Slots to free with the next call to Redis. */
	void freeLater(String slot) {
		this.toFree.add(slot);
	}

	/**
	 * Slots to free with the next call to Redis (a call that failed may have taken them).
	 */
	void freeLater(Collection<String> slots) {
		this.toFree.addAll(slots);
	}

	/**
	 * @return the slots freed here meanwhile, to go with the call about to be sent
	 */
	List<String> drain() {
		List<String> slots = new ArrayList<>();
		for (String slot = this.toFree.poll(); slot != null; slot = this.toFree.poll()) {
			slots.add(slot);
		}
		return slots;
	}

	/** Redis freed these just now: freed again on a new master. */
	void freed(List<String> slots) {
		this.recentFrees.add(slots);
	}

	/**
	 * @return whether freed slots wait to go to Redis
	 */
	boolean hasFreed() {
		return !this.toFree.isEmpty();
	}

	/**
	 * @return whether other instances were seen waiting for a slot in the last second
	 */
	boolean contended() {
		return System.nanoTime() - this.contendedUntil < 0;
	}

	/** Wakes the acker when freed slots wait: it carries them. */
	void nudge() {
		if (!this.toFree.isEmpty()) {
			this.onFreed.run();
		}
	}

	/** Sends the freed slots to Redis now; on failure, they wait. */
	void flush() {
		List<String> freeing = drain();
		if (freeing.isEmpty()) {
			return;
		}
		try {
			free(freeing);
			this.recentFrees.add(freeing);
		}
		catch (RuntimeException ex) {
			this.toFree.addAll(freeing);
			logger.debug("Cannot free concurrency slots of " + this.context.label() + " now: " + Failures.describe(ex));
		}
	}

	private void free(List<String> slots) {
		if (this.script.free(slots)) {
			this.contendedUntil = System.nanoTime() + CONTENDED_NANOS;
		}
	}

	/**
	 * Renews the slots held here, with the leases; frees those given back meanwhile. A
	 * slot that lapsed (Redis out of reach longer than the visibility timeout: its
	 * messages' leases lapsed too) is lost to its holder, and said: the limit may have
	 * been passed meanwhile.
	 */
	void renew() {
		renew(false);
	}

	/**
	 * @param failover whether the master changed: a slot the new one does not have is
	 * held again (its handler runs)
	 */
	private void renew(boolean failover) {
		flush();
		List<String> slots = new ArrayList<>(this.held);
		if (slots.isEmpty()) {
			return;
		}
		List<String> missing = this.script.renew(slots, failover);
		List<String> freedMeanwhile = new ArrayList<>();
		for (String slot : missing) {
			if (!this.held.contains(slot)) {
				// freed while the renewal ran: freed again
				freedMeanwhile.add(slot);
			}
			else if (!failover) {
				this.held.remove(slot);
			}
		}
		this.toFree.addAll(freedMeanwhile);
		int lost = missing.size() - freedMeanwhile.size();
		if (lost > 0 && !failover) {
			logger.warn(lost + " concurrency slot(s) of " + this.context.label()
					+ " lapsed while their handlers ran (Redis unreachable longer than the visibility timeout): "
					+ "the limit may have been passed meanwhile");
		}
	}

	/**
	 * The master is another server: before the next take, the slots held here are held on
	 * it again, and those freed in the last seconds freed again.
	 */
	void serverChanged() {
		this.serverChanged = true;
		this.onFreed.run();
	}

	/**
	 * Sets what runs when a slot was freed to go to Redis later, or the master changed:
	 * the acker is woken to carry them.
	 * @param onFreed the action; it must not block
	 */
	void whenFreed(Runnable onFreed) {
		this.onFreed = onFreed;
	}

	/**
	 * After a change of master, holds the slots held here again on the new one and frees
	 * again those freed in the last seconds (run by the {@link Acker}'s loop, so that it
	 * comes soon whether or not a take follows); on failure, tried again.
	 */
	void followServer() {
		if (!this.serverChanged) {
			return;
		}
		try {
			holdAgain();
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot hold the concurrency slots of " + this.context.label() + " on the new master yet: "
					+ Failures.describe(ex));
		}
	}

	private void holdAgain() {
		List<String> freed = this.recentFrees.all();
		this.serverChanged = false;
		try {
			if (!freed.isEmpty()) {
				free(freed);
			}
			int before = this.held.size();
			renew(true);
			logger.info("Held the " + before + " concurrency slot(s) of " + this.context.label()
					+ " again on the new master, and freed again the " + freed.size() + " freed in the last "
					+ TimeUnit.NANOSECONDS.toSeconds(Acker.RECENT_NANOS) + " s");
		}
		catch (RuntimeException ex) {
			this.serverChanged = true;
			throw ex;
		}
	}

	/** Holds the slots again on a new master before a take, when it changed. */
	void followBeforeTake() {
		if (this.serverChanged) {
			holdAgain();
		}
	}

}
