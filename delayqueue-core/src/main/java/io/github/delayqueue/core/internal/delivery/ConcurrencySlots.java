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
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.internal.control.FlowGate;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.runtime.Failures;

/**
 * A container's slots of its group's concurrency limit ({@code slots.lua}): a handler
 * takes one before it starts and frees it when it returns. Slots of the whole group are
 * handed out in the order instances asked (one worker of this container asks at a time,
 * and waits for a freed slot's notification, or asks again within {@link #WAIT_MILLIS});
 * a slot of a message key is taken or refused at once. A slot lasts the visibility
 * timeout plus one renewal period unless renewed: the lease keeper renews those held with
 * the leases, so the slot of a holder that died is free once its leases would have
 * expired, never before. A freed slot of the whole group goes to Redis with this
 * container's next take when a delivery waits to start, else at once.
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

	/** How long an instance that stopped asking keeps its place in the line. */
	private static final long STALE_MILLIS = 10 * WAIT_MILLIS;

	private static final Log logger = LogFactory.getLog(ConcurrencySlots.class);

	private final ListenerContext context;

	/** This container's place in the group's line. */
	private final String waiter;

	private final AtomicLong tokens = new AtomicLong();

	/** By token: the ZSET holding it. */
	private final Map<String, String> held = new ConcurrentHashMap<>();

	/** Slots of the whole group freed here, to go with the next take. */
	private final Queue<String> toFree = new ConcurrentLinkedQueue<>();

	/** Held by the one worker of this container asking for a slot of the group. */
	private final ReentrantLock asking = new ReentrantLock(true);

	private final long slotMillis;

	/** Whether this container is in the group's line. */
	private volatile boolean inLine;

	private volatile long failureLoggedNanos = System.nanoTime() - TimeUnit.MINUTES.toNanos(1);

	ConcurrencySlots(ListenerContext context, long renewEveryMillis) {
		this.context = context;
		this.waiter = context.consumer() + ":" + UUID.randomUUID();
		this.slotMillis = context.settings().visibilityTimeout().toMillis() + renewEveryMillis;
	}

	/**
	 * Takes a slot for a delivery under a limit; a wait for a slot of the whole group (at
	 * most {@link #WAIT_MILLIS}) is done here.
	 * @return {@link #TAKEN}, {@link #AGAIN} or {@link #KEY_BUSY}
	 */
	long take(Delivery delivery, ConcurrencyLimit limit) {
		if (delivery.slot != null) {
			return TAKEN;
		}
		try {
			return limit.perKey() ? takeForKey(delivery, limit) : takeForGroup(delivery, limit);
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

	private long takeForGroup(Delivery delivery, ConcurrencyLimit limit) {
		return (takeForGroup(List.of(delivery), limit, true) > 0) ? TAKEN : AGAIN;
	}

	/**
	 * Takes slots of the whole group for the first of a batch's deliveries, as many as
	 * are free for this instance now, in one call; no wait.
	 * @return how many of them hold a slot now, from the first
	 */
	int takeForBatch(List<Delivery> deliveries, ConcurrencyLimit limit) {
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
			int taken = ask(deliveries, limit);
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
			int taken = ask(deliveries, limit);
			if (taken == 0 && wait) {
				gate.awaitSlotFreed(seen, WAIT_MILLIS);
			}
			return taken;
		}
		finally {
			this.asking.unlock();
		}
	}

	/** One take of slots for the deliveries, carrying the slots freed here meanwhile. */
	private int ask(List<Delivery> deliveries, ConcurrencyLimit limit) {
		List<String> tokens = new ArrayList<>(deliveries.size());
		deliveries.forEach((delivery) -> tokens.add(token()));
		List<String> freeing = drain();
		List<Object> args = new ArrayList<>(List.of("take", limit.max(), this.slotMillis, this.waiter, STALE_MILLIS,
				this.context.keys().controlChannel(), "slot\n" + this.context.group(), tokens.size()));
		args.addAll(tokens);
		args.addAll(freeing);
		List<Object> taken;
		try {
			taken = this.context.scripts().run(Scripts.SLOTS, groupKeys(), args.toArray());
		}
		catch (RuntimeException ex) {
			// the take may have happened: freed with the next call
			this.toFree.addAll(freeing);
			this.toFree.addAll(tokens);
			throw ex;
		}
		for (int i = 0; i < taken.size(); i++) {
			hold(deliveries.get(i), tokens.get(i), null);
		}
		this.inLine = taken.isEmpty();
		return taken.size();
	}

	private long takeForKey(Delivery delivery, ConcurrencyLimit limit) {
		String key = StartPermits.limiterKey(delivery);
		if (key == null) {
			// unreadable: dead-lettered once started, no handler runs
			return TAKEN;
		}
		String slots = delivery.context.keys().keySlots(this.context.group(), key);
		String token = token();
		List<Object> taken = delivery.context.scripts()
			.run(Scripts.SLOTS, List.of(slots), "take", limit.max(), this.slotMillis, "", 0, "", "", 1, token);
		if (taken.isEmpty()) {
			return KEY_BUSY;
		}
		hold(delivery, token, slots);
		return TAKEN;
	}

	private void hold(Delivery delivery, String token, String slots) {
		this.held.put(token, (slots != null) ? slots : "");
		delivery.slot = token;
		delivery.slotKey = slots;
	}

	private String token() {
		return this.waiter + ":" + this.tokens.incrementAndGet();
	}

	private List<String> groupKeys() {
		QueueKeys keys = this.context.keys();
		String group = this.context.group();
		return List.of(keys.slots(group), keys.slotWaiters(group), keys.slotWaitersSeen(group));
	}

	private List<String> drain() {
		List<String> tokens = new ArrayList<>();
		for (String token = this.toFree.poll(); token != null; token = this.toFree.poll()) {
			tokens.add(token);
		}
		return tokens;
	}

	/**
	 * Frees a delivery's slot, if it took one: a slot of the whole group goes with the
	 * next take when {@code soon} (a delivery waits to start here), else at once.
	 * @param delivery the delivery whose handler returned, or that does not start
	 * @param soon whether a take is likely to follow at once
	 */
	void release(Delivery delivery, boolean soon) {
		String token = delivery.slot;
		if (token == null) {
			return;
		}
		delivery.slot = null;
		String slots = delivery.slotKey;
		if (this.held.remove(token) == null) {
			return;
		}
		if (slots == null) {
			this.toFree.add(token);
			if (soon) {
				// a local waiter asks at once, carrying it
				this.context.gate().slotFreed();
			}
			else {
				flush();
			}
			return;
		}
		try {
			delivery.context.scripts().run(Scripts.SLOTS, List.of(slots), "free", "", "", token);
		}
		catch (RuntimeException ex) {
			// free once its time is up
			logger.debug("Cannot free the concurrency slot of " + delivery + " now: " + Failures.describe(ex));
		}
	}

	/**
	 * @return whether freed slots of the whole group wait to go to Redis
	 */
	boolean hasFreed() {
		return !this.toFree.isEmpty();
	}

	/** Sends the freed slots of the whole group to Redis now; on failure, they wait. */
	void flush() {
		List<String> freeing = drain();
		if (freeing.isEmpty()) {
			return;
		}
		List<Object> args = new ArrayList<>(
				List.of("free", this.context.keys().controlChannel(), "slot\n" + this.context.group()));
		args.addAll(freeing);
		try {
			this.context.scripts().run(Scripts.SLOTS, groupKeys(), args.toArray());
		}
		catch (RuntimeException ex) {
			this.toFree.addAll(freeing);
			logger.debug("Cannot free concurrency slots of " + this.context.label() + " now: " + Failures.describe(ex));
		}
	}

	/** Leaves the group's line: no delivery here waits for a slot any more. */
	void leaveLine() {
		if (!this.inLine || this.asking.isLocked()) {
			return;
		}
		this.inLine = false;
		try {
			this.context.scripts().run(Scripts.SLOTS, groupKeys(), "leave", this.waiter);
		}
		catch (RuntimeException ex) {
			// its place lapses after STALE_MILLIS
			logger.debug("Cannot leave the slot line of " + this.context.label() + ": " + Failures.describe(ex));
		}
	}

	/**
	 * Renews the slots held here, with the leases; frees those given back meanwhile. A
	 * slot lost (it lapsed while Redis was unreachable) is said: the limit may have been
	 * passed while its handler ran.
	 */
	void renew() {
		flush();
		Map<String, List<String>> bySlots = new java.util.HashMap<>();
		this.held.forEach((token, slots) -> bySlots.computeIfAbsent(slots, (k) -> new ArrayList<>()).add(token));
		bySlots.forEach((slots, tokens) -> {
			List<Object> args = new ArrayList<>(List.of("renew", this.slotMillis));
			args.addAll(tokens);
			List<String> keys = slots.isEmpty() ? groupKeys() : List.of(slots);
			List<Object> lost = this.context.scripts().run(Scripts.SLOTS, keys, args.toArray());
			if (!lost.isEmpty()) {
				logger.warn(lost.size() + " concurrency slot(s) of " + this.context.label()
						+ " lapsed while their handlers ran (Redis unreachable longer than the visibility timeout): "
						+ "the limit may have been passed meanwhile");
				lost.forEach((token) -> this.held.remove(ScriptRunner.asString(token)));
			}
		});
	}

	/**
	 * @return how many slots this container holds
	 */
	int held() {
		return this.held.size();
	}

}
