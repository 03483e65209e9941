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

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * The concurrency slots a container freed in the last seconds, to be freed again on a new
 * master: a failover can lose the frees the old master took without passing them on, and
 * their slots would stay taken, with no handler, until they lapsed. Freeing a slot twice
 * changes nothing (slots are never reused).
 */
final class RecentFrees {

	/** How long frees are kept: as long as acknowledgements are ({@link Acker}). */
	private static final long KEEP_NANOS = Acker.RECENT_NANOS;

	/** The most frees kept. */
	private static final int MAX = Acker.RECENT_MAX;

	private final Deque<Freed> freed = new ArrayDeque<>();

	private int count;

	/** Remembers slots Redis freed just now. */
	synchronized void add(List<String> slots) {
		if (slots.isEmpty()) {
			return;
		}
		long now = System.nanoTime();
		this.freed.addLast(new Freed(now, slots));
		this.count += slots.size();
		while (!this.freed.isEmpty() && (now - this.freed.peekFirst().at() > KEEP_NANOS
				|| this.count - this.freed.peekFirst().slots().size() >= MAX)) {
			this.count -= this.freed.removeFirst().slots().size();
		}
	}

	/**
	 * @return the slots freed in the last seconds, oldest first
	 */
	synchronized List<String> all() {
		long now = System.nanoTime();
		List<String> all = new ArrayList<>(this.count);
		for (Freed each : this.freed) {
			if (now - each.at() <= KEEP_NANOS) {
				all.addAll(each.slots());
			}
		}
		return all;
	}

	/** Slots freed together. */
	private record Freed(long at, List<String> slots) {
	}

}
