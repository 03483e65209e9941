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

package io.github.delayqueue.test;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A slot of a {@link RedisCluster} on its way from one master to another, its keys moved
 * by {@code MIGRATE}: see {@link RedisCluster#beginSlotMigration(int, int)}.
 */
public final class SlotMigration {

	private final int slot;

	private final RedisServer source;

	private final RedisServer target;

	private final Supplier<List<RedisServer>> masters;

	/**
	 * Splits the slot: {@code SETSLOT IMPORTING} on the target, {@code MIGRATING} on the
	 * source.
	 */
	static SlotMigration begin(int slot, RedisServer source, RedisServer target, Supplier<List<RedisServer>> masters) {
		target.execute("CLUSTER", "SETSLOT", String.valueOf(slot), "IMPORTING", ClusterNodes.nodeId(source));
		source.execute("CLUSTER", "SETSLOT", String.valueOf(slot), "MIGRATING", ClusterNodes.nodeId(target));
		return new SlotMigration(slot, source, target, masters);
	}

	private SlotMigration(int slot, RedisServer source, RedisServer target, Supplier<List<RedisServer>> masters) {
		this.slot = slot;
		this.source = source;
		this.target = target;
		this.masters = masters;
	}

	/**
	 * Moves up to {@code count} keys of the slot to the target, one {@code MIGRATE} each.
	 * @param count the most keys to move
	 * @return how many were moved (0 when none is left)
	 */
	public int moveKeys(int count) {
		List<?> keys = (List<?>) this.source.execute("CLUSTER", "GETKEYSINSLOT", String.valueOf(this.slot),
				String.valueOf(count));
		keys.forEach((key) -> moveKey(String.valueOf(key)));
		return keys.size();
	}

	/**
	 * Moves one key of the slot to the target ({@code MIGRATE}).
	 * @param key the key
	 */
	public void moveKey(String key) {
		this.source.execute("MIGRATE", this.target.host(), String.valueOf(this.target.port()), "", "0", "5000", "KEYS",
				key);
	}

	/**
	 * Moves every key left in the slot to the target.
	 */
	public void moveAll() {
		while (moveKeys(100) > 0) {
			// until the slot is empty on the source
		}
	}

	/**
	 * Moves the keys left and assigns the slot to the target on every master
	 * ({@code SETSLOT NODE}).
	 */
	public void finish() {
		moveAll();
		String targetId = ClusterNodes.nodeId(this.target);
		this.target.execute("CLUSTER", "SETSLOT", String.valueOf(this.slot), "NODE", targetId);
		this.source.execute("CLUSTER", "SETSLOT", String.valueOf(this.slot), "NODE", targetId);
		for (RedisServer master : this.masters.get()) {
			if (master != this.source && master != this.target && master.isRunning()) {
				master.execute("CLUSTER", "SETSLOT", String.valueOf(this.slot), "NODE", targetId);
			}
		}
		// until the cluster bus settles the new owner's epoch, a node may briefly still
		// see
		// the old owner (then no master claims the slot): wait until both agree
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
		while (!ClusterNodes.servesSlot(this.target, this.slot) || ClusterNodes.servesSlot(this.source, this.slot)) {
			if (System.nanoTime() - deadline > 0) {
				throw new IllegalStateException("Slot " + this.slot + " did not settle on its new master");
			}
			try {
				Thread.sleep(20);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while slot " + this.slot + " settled", ex);
			}
		}
	}

}
