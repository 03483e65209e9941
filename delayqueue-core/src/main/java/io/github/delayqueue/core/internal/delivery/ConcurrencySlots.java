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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.internal.control.FlowGate;
import io.github.delayqueue.core.internal.runtime.Failures;

/**
 * A container's slots of its group's concurrency limit ({@code slots.lua}): a handler
 * holds one from before it starts until it returns. Every slot counts for the whole group
 * and for its message key at once, whatever the kind of the limit, so that a change of
 * kind counts the handlers already running. A read takes slots for its deliveries in one
 * call ({@link #takeAhead}), at most as many as the container has workers without a slot;
 * a delivery that got none takes its own when it is to start. Slots of the whole group
 * are handed out in the order instances asked (one worker of this container asks at a
 * time, and waits for a freed slot's notification, or asks again within
 * {@link #WAIT_MILLIS}); a slot of a message key is taken or refused at once. The slots
 * held, their renewal with the leases, their frees and a change of master are
 * {@link HeldSlots}'. No slot is taken while the Sentinels say a failover is under way (a
 * take then would go to the old master and be lost with it).
 */
final class ConcurrencySlots {

	/** {@link #take}: the slot is taken (or none is needed). */
	static final long TAKEN = 0;

	/** {@link #take}: none now; ask again (the wait for a notification was done). */
	static final long AGAIN = 1;

	/** {@link #take}: the message's key is at its limit. */
	static final long KEY_BUSY = -2;

	/** How long a waiting worker waits for a notification before it asks again. */
	static final long WAIT_MILLIS = 100;

	private static final Log logger = LogFactory.getLog(ConcurrencySlots.class);

	private final ListenerContext context;

	/** Its calls to {@code slots.lua}. */
	private final SlotScript script;

	/** The slots held here. */
	private final HeldSlots held;

	/**
	 * Slots of the whole group a read took ahead, by slot, for deliveries whose worker
	 * has not claimed them yet: lent to a worker that finds none free (see
	 * {@link #borrow}).
	 */
	private final Map<String, TakenAhead> lendable = new ConcurrentHashMap<>();

	/** Held by the one worker of this container asking for a slot of the group. */
	private final ReentrantLock asking = new ReentrantLock(true);

	/** How many workers wait for a delivery now. */
	private final IntSupplier idleWorkers;

	/** Whether reads take slots ahead: not for ordered or batch listeners. */
	private final boolean ahead;

	/** Whether this container is in the group's line. */
	private volatile boolean inLine;

	/** Whether slots may be taken now: not while a failover is under way. */
	private volatile BooleanSupplier takesAllowed = () -> true;

	private volatile long failureLoggedNanos = System.nanoTime() - TimeUnit.MINUTES.toNanos(1);

	/**
	 * @param batches whether the container runs a batch listener (it takes a batch's
	 * slots when the batch is gathered)
	 * @param idleWorkers how many workers wait for a delivery now
	 */
	ConcurrencySlots(ListenerContext context, long renewEveryMillis, boolean batches, IntSupplier idleWorkers) {
		this.context = context;
		this.idleWorkers = idleWorkers;
		this.script = new SlotScript(context, context.consumer() + ":" + UUID.randomUUID(),
				context.settings().visibilityTimeout().toMillis() + renewEveryMillis);
		this.held = new HeldSlots(context, this.script);
		this.ahead = !batches && !context.settings().ordered();
	}

	/**
	 * Takes a slot for a delivery under a limit; a wait for a slot of the whole group (at
	 * most {@link #WAIT_MILLIS}) is done here.
	 * @return {@link #TAKEN}, {@link #AGAIN} or {@link #KEY_BUSY}
	 */
	long take(Delivery delivery, ConcurrencyLimit limit) {
		String own = delivery.claimSlot();
		if (own != null) {
			this.lendable.remove(own);
			return TAKEN;
		}
		if (!this.takesAllowed.getAsBoolean()) {
			// a failover under way: a take could go to the old master and be lost
			Settlements.sleep(WAIT_MILLIS);
			return AGAIN;
		}
		try {
			if (limit.perKey()) {
				return (ask(List.of(delivery), limit, false) > 0) ? TAKEN : KEY_BUSY;
			}
			if (takeForGroup(List.of(delivery), limit, true) > 0) {
				return TAKEN;
			}
			giveBackIdleAhead();
			return AGAIN;
		}
		catch (RuntimeException ex) {
			// Redis unreachable: nothing starts without a slot; said every 30 s at most
			long now = System.nanoTime();
			if (now - this.failureLoggedNanos > TimeUnit.SECONDS.toNanos(30)) {
				this.failureLoggedNanos = now;
				logger.warn("Cannot take a concurrency slot for " + this.context.label()
						+ "; its handlers wait until Redis answers: " + Failures.describe(ex));
			}
			Settlements.sleep(WAIT_MILLIS);
			return AGAIN;
		}
	}

	/**
	 * Gives back a slot a read took ahead for a delivery that no worker started within
	 * {@link #WAIT_MILLIS}, when a worker here found none free: it goes with that
	 * worker's next take (or to whoever waits ahead in the group's line). Without it,
	 * workers that took deliveries without a slot (from another partition's read, or of a
	 * higher priority) waited for slots held by deliveries waiting for a worker: with
	 * every worker waiting, until those slots lapsed, and they never did while the lease
	 * keeper renewed them. The delivery takes a slot of its own when a worker starts it.
	 * @return whether a slot was given back
	 */
	private boolean giveBackIdleAhead() {
		if (this.lendable.isEmpty()) {
			return false;
		}
		long now = System.nanoTime();
		for (Map.Entry<String, TakenAhead> entry : this.lendable.entrySet()) {
			TakenAhead ahead = entry.getValue();
			if (now - ahead.sinceNanos() < TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS)
					|| !this.lendable.remove(entry.getKey(), ahead)) {
				continue;
			}
			String slot = ahead.delivery().lendSlot();
			if (slot == null) {
				// its worker claimed it meanwhile
				continue;
			}
			if (this.held.remove(slot)) {
				this.held.freeLater(slot);
				return true;
			}
		}
		return false;
	}

	/** A slot a read took ahead for a delivery, and when. */
	private record TakenAhead(Delivery delivery, long sinceNanos) {
	}

	/**
	 * Takes slots for the deliveries a read just held, in one call, for as many of them
	 * as this container has workers without a slot, and only when that costs no other
	 * instance its turn (not while this one waits in the group's line). The others take
	 * their own when they are to start.
	 * @param deliveries the deliveries the read held, in their order
	 */
	void takeAhead(List<Delivery> deliveries) {
		ConcurrencyLimit limit = this.context.gate().concurrencyLimit();
		if (limit == null || !this.ahead || this.inLine || deliveries.isEmpty() || !this.context.gate().isOpen()
				|| this.context.gate().heldNanos() > 0 || !this.takesAllowed.getAsBoolean()) {
			return;
		}
		// no more than idle workers take at once: a slot taken for a delivery that waits
		// for a worker (all busy waiting for slots of their own) would be idle
		int room = Math.min(Math.min(deliveries.size(), this.idleWorkers.getAsInt()),
				this.context.settings().concurrency() - this.held.size());
		if (room <= 0) {
			return;
		}
		try {
			ask(deliveries.subList(0, room), limit, false);
		}
		catch (RuntimeException ex) {
			// each takes its own when it is to start
			logger.debug("Cannot take concurrency slots for a read of " + this.context.label() + ": "
					+ Failures.describe(ex));
		}
	}

	/**
	 * Takes slots of the whole group for the first of a batch's deliveries, as many as
	 * are free for this instance now, in one call; no wait.
	 * @return how many of them hold a slot now, from the first
	 */
	int takeForBatch(List<Delivery> deliveries, ConcurrencyLimit limit) {
		if (!this.takesAllowed.getAsBoolean()) {
			return 0;
		}
		try {
			return takeForGroup(deliveries, limit, false);
		}
		catch (RuntimeException ex) {
			// the first waits for its slot as a single delivery does
			return 0;
		}
	}

	/**
	 * While this container is not in the group's line (slots were free when it last
	 * asked), its workers ask at once, side by side; once in line, one worker at a time
	 * asks, and waits for a freed slot's notification between asks.
	 * @param wait whether to wait for a freed slot's notification when none is free
	 * @return how many of the deliveries took a slot, from the first
	 */
	private int takeForGroup(List<Delivery> deliveries, ConcurrencyLimit limit, boolean wait) {
		if (!this.inLine) {
			int taken = ask(deliveries, limit, true);
			if (taken > 0 || !wait) {
				return taken;
			}
		}
		try {
			if (!this.asking.tryLock(wait ? WAIT_MILLIS : 0, TimeUnit.MILLISECONDS)) {
				return 0;
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return 0;
		}
		try {
			FlowGate gate = this.context.gate();
			long seen = gate.slotsFreed();
			int taken = ask(deliveries, limit, true);
			if (taken == 0 && wait) {
				gate.awaitSlotFreed(seen, WAIT_MILLIS);
			}
			return taken;
		}
		finally {
			this.asking.unlock();
		}
	}

	/**
	 * One take of slots for the deliveries (those without one), carrying the slots freed
	 * here meanwhile.
	 * @return how many of the deliveries hold a slot now (for the whole group: from the
	 * first)
	 */
	private int ask(List<Delivery> deliveries, ConcurrencyLimit limit, boolean joinLine) {
		this.held.followBeforeTake();
		boolean perKey = limit.perKey();
		List<Delivery> wanting = new ArrayList<>(deliveries.size());
		List<String> slots = new ArrayList<>(deliveries.size());
		for (Delivery delivery : deliveries) {
			boolean none = delivery.slot() == null;
			String key = none ? StartPermits.limiterKey(delivery) : null;
			// an unreadable envelope reaches no handler: no slot of a key for it
			if (none && (key != null || !perKey)) {
				wanting.add(delivery);
				slots.add(this.script.slot((key != null) ? key : ""));
			}
		}
		if (wanting.isEmpty()) {
			return deliveries.size();
		}
		List<String> freeing = this.held.drain();
		List<String> taken;
		try {
			taken = this.script.take(limit.max(),
					perKey ? SlotScript.Kind.KEY : joinLine ? SlotScript.Kind.GROUP : SlotScript.Kind.AHEAD, slots,
					freeing);
		}
		catch (RuntimeException ex) {
			// the take may have happened: freed with the next call
			this.held.freeLater(freeing);
			this.held.freeLater(slots);
			throw ex;
		}
		this.held.freed(freeing);
		Set<String> granted = new HashSet<>(taken);
		int holding = deliveries.size() - wanting.size();
		for (int i = 0; i < wanting.size(); i++) {
			String slot = slots.get(i);
			if (granted.contains(slot)) {
				this.held.add(slot);
				if (wanting.get(i).holdSlot(slot)) {
					holding++;
					if (!perKey && !joinLine) {
						// for a delivery no worker runs yet: given back if none does soon
						this.lendable.put(slot, new TakenAhead(wanting.get(i), System.nanoTime()));
					}
				}
				else {
					// it took another meanwhile, or was settled
					this.held.remove(slot);
					this.held.freeLater(slot);
				}
			}
		}
		if (!perKey && (joinLine || !taken.isEmpty())) {
			this.inLine = taken.isEmpty();
		}
		return holding;
	}

	/**
	 * Frees a delivery's slot, if it took one: it goes to Redis with the next take when a
	 * worker here waits for a slot; with the next take, or the acker's flush once it is
	 * idle, when {@code soon} and no other instance was seen waiting; else at once.
	 * @param delivery the delivery whose handler returned, or that does not start
	 * @param soon whether a {@link #flush} follows shortly (the delivery is to be
	 * acknowledged)
	 */
	void release(Delivery delivery, boolean soon) {
		String slot = delivery.giveSlot();
		if (slot == null) {
			return;
		}
		this.lendable.remove(slot);
		if (!this.held.remove(slot)) {
			return;
		}
		this.held.freeLater(slot);
		if (this.inLine || this.asking.isLocked()) {
			// a local waiter asks at once, carrying it
			this.context.gate().slotFreed();
		}
		else if (!soon || this.held.contended()) {
			// another instance may wait for it
			this.held.flush();
		}
		this.held.nudge();
	}

	/** Leaves the group's line: no delivery here waits for a slot any more. */
	void leaveLine() {
		if (!this.inLine || this.asking.isLocked()) {
			return;
		}
		this.inLine = false;
		try {
			this.script.leave();
		}
		catch (RuntimeException ex) {
			// its place lapses after SlotScript.STALE_MILLIS
			logger.debug("Cannot leave the slot line of " + this.context.label() + ": " + Failures.describe(ex));
		}
	}

	/**
	 * Sets when slots may be taken.
	 * @param allowed whether they may now (false while a failover is under way)
	 */
	void takeWhile(BooleanSupplier allowed) {
		this.takesAllowed = allowed;
	}

	/**
	 * @return the slots this container holds, and their upkeep (renewal, the frees
	 * waiting, a change of master)
	 */
	HeldSlots held() {
		return this.held;
	}

}
