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

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;

/**
 * The calls of one container to {@code slots.lua}, and its slots' names. A slot is
 * {@code <length>:<key>|<token>}: the key is the one a limit per key counts its delivery
 * under (its length in UTF-8 bytes, as Lua counts them), the token unique to the slot, so
 * that freeing a slot twice, or on another master, changes nothing: 72 random bits chosen
 * by each container and a count.
 */
final class SlotScript {

	/**
	 * How the take counts: a limit per key, of the whole group, or of the whole group for
	 * a read.
	 */
	enum Kind {

		/** Each slot while its key holds fewer than the limit. */
		KEY,
		/**
		 * Of the whole group, in the instances' order; none free puts this one in line.
		 */
		GROUP,
		/** As {@link #GROUP}, but none free does not put this one in line. */
		AHEAD

	}

	/** How long an instance that stopped asking keeps its place in the line. */
	static final long STALE_MILLIS = 10 * ConcurrencySlots.WAIT_MILLIS;

	private final ListenerContext context;

	/** This container's place in the group's line. */
	private final String waiter;

	private final AtomicLong tokens = new AtomicLong();

	/** What this container's tokens begin with: 72 random bits, unique to it. */
	private final String prefix;

	/** How long a slot lasts unless renewed. */
	private final long slotMillis;

	SlotScript(ListenerContext context, String waiter, long slotMillis) {
		this.context = context;
		this.waiter = waiter;
		this.slotMillis = slotMillis;
		byte[] random = new byte[9];
		new SecureRandom().nextBytes(random);
		this.prefix = Base64.getUrlEncoder().withoutPadding().encodeToString(random) + ".";
	}

	/**
	 * A new slot of a key ({@code ""} for a delivery counted for the group only): short,
	 * since Redis handles each slot's name a few times per message.
	 */
	String slot(String key) {
		return key.getBytes(StandardCharsets.UTF_8).length + ":" + key + "|" + this.prefix
				+ Long.toString(this.tokens.incrementAndGet(), 36);
	}

	/**
	 * Takes slots, freeing others first, in one call.
	 * @return the slots taken
	 */
	List<String> take(int limit, Kind kind, List<String> slots, List<String> freeing) {
		List<Object> args = new ArrayList<>(slots.size() + freeing.size() + 9);
		args.addAll(List.of("take", limit, this.slotMillis, (kind == Kind.KEY) ? "" : this.waiter, STALE_MILLIS,
				this.context.keys().controlChannel(), "slot\n" + this.context.group(), kind.name().toLowerCase(),
				slots.size()));
		args.addAll(slots);
		args.addAll(freeing);
		return strings(this.context.scripts().run(Scripts.SLOTS, keys(), args.toArray()));
	}

	/**
	 * Frees slots in one call.
	 * @return whether other instances wait for a slot
	 */
	boolean free(List<String> slots) {
		List<Object> args = new ArrayList<>(slots.size() + 4);
		args.addAll(
				List.of("free", this.context.keys().controlChannel(), "slot\n" + this.context.group(), this.waiter));
		args.addAll(slots);
		List<Object> reply = this.context.scripts().run(Scripts.SLOTS, keys(), args.toArray());
		return reply.size() > 1 && ScriptRunner.asLong(reply.get(1)) == 1;
	}

	/** Leaves the group's line. */
	void leave() {
		this.context.scripts().run(Scripts.SLOTS, keys(), "leave", this.waiter);
	}

	/**
	 * Renews slots.
	 * @param again whether to hold again those Redis no longer has (after a failover)
	 * @return those Redis no longer had
	 */
	List<String> renew(List<String> slots, boolean again) {
		List<Object> args = new ArrayList<>(slots.size() + 3);
		args.addAll(List.of("renew", this.slotMillis, again ? "1" : "0"));
		args.addAll(slots);
		return strings(this.context.scripts().run(Scripts.SLOTS, keys(), args.toArray()));
	}

	private List<String> keys() {
		QueueKeys keys = this.context.keys();
		String group = this.context.group();
		return List.of(keys.slots(group), keys.slotWaiters(group), keys.slotWaitersSeen(group), keys.slotsByKey(group));
	}

	private static List<String> strings(List<Object> reply) {
		List<String> strings = new ArrayList<>(reply.size());
		reply.forEach((each) -> strings.add(ScriptRunner.asString(each)));
		return strings;
	}

}
