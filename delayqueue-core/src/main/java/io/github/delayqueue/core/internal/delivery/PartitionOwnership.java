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
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.event.PartitionGivenUpEvent;
import io.github.delayqueue.core.event.PartitionTakenEvent;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;

/**
 * Partition ownership of an exclusive (or ordered) container, on a {@link SupervisedLoop}
 * of its own. Every period (a third of the visibility timeout, at most a second, with a
 * random tenth added or taken so that members do not act in step) it:
 * <ol>
 * <li>announces itself in the group's members set and reads the live members;</li>
 * <li>computes its share: with the members sorted by name, member {@code i} of {@code M}
 * is to own the partitions {@code n} with {@code n mod M == i}, so each member owns ⌊P/M⌋
 * or ⌈P/M⌉ and every member computes the same assignment;</li>
 * <li>renews the leases it holds; a lease found taken by another means it lost the
 * partition (Redis was out of reach for a whole lease): it stops reading it at once;</li>
 * <li>stops reading the partitions no longer its share, and gives up each lease once the
 * partition's held messages are settled;</li>
 * <li>takes the free partitions of its share ({@code SET NX PX}), hands itself every
 * entry pending there ({@code XAUTOCLAIM}: the previous owner's, after a crash) and
 * starts reading them, pending entries first.</li>
 * </ol>
 * A joining or leaving member thus moves partitions within a few periods plus the time
 * the releasing member needs to finish what it holds; a crashed member's partitions move
 * once its heartbeat and leases expired (the visibility timeout).
 */
final class PartitionOwnership implements SupervisedLoop.Job {

	private static final Log logger = LogFactory.getLog(PartitionOwnership.class);

	private final ListenerRuntime runtime;

	private final List<ListenerContext> partitions;

	private final ListenerContext context;

	private final long leaseMillis;

	private final long periodMillis;

	private final SupervisedLoop loop;

	/** Partitions whose lease this member holds (being released included). */
	private final Set<Integer> owned = ConcurrentHashMap.newKeySet();

	/** Owned partitions no longer read, whose lease goes once their messages settled. */
	private final Set<Integer> releasing = ConcurrentHashMap.newKeySet();

	private volatile int members;

	/**
	 * Whether this member was not yet announced since its start: its first heartbeat
	 * tells the shared listeners of the group, on every instance, to stop reading.
	 */
	private volatile boolean unannounced;

	/**
	 * When the last take or renewal of each owned partition's lease that succeeded was
	 * sent (System.nanoTime): the lease lasts its time to live from then at least.
	 */
	private final Map<Integer, Long> confirmed = new ConcurrentHashMap<>();

	PartitionOwnership(ListenerRuntime runtime, List<ListenerContext> partitions) {
		this.runtime = runtime;
		this.partitions = partitions;
		this.context = partitions.get(0);
		this.leaseMillis = this.context.settings().visibilityTimeout().toMillis();
		this.periodMillis = Math.max(20, Math.min(1000, this.leaseMillis / 3));
		this.loop = new SupervisedLoop("partition ownership of " + this.context.label(),
				this.context.threadName("owner"), this);
	}

	void start() {
		this.unannounced = true;
		this.loop.start();
	}

	String problem() {
		return this.loop.problem();
	}

	/**
	 * @return the partitions this member reads
	 */
	Set<Integer> owned() {
		Set<Integer> reading = new TreeSet<>(this.owned);
		reading.removeAll(this.releasing);
		return reading;
	}

	/**
	 * Tells whether a partition's lease is surely this member's: owned, and taken or
	 * renewed less than half its time to live ago. A handler of the partition starts only
	 * then ({@link LeaseFence}): a member cut off from Redis, or paused, does not start
	 * what a new owner may be handling.
	 * @param partition the partition
	 * @return the lease
	 */
	LeaseFence.Lease lease(int partition) {
		Long from = this.confirmed.get(partition);
		if (!this.owned.contains(partition)) {
			return LeaseFence.Lease.LOST;
		}
		return (from != null && System.nanoTime() - from <= TimeUnit.MILLISECONDS.toNanos(this.leaseMillis) / 2)
				? LeaseFence.Lease.HELD : LeaseFence.Lease.UNSURE;
	}

	/**
	 * @return the live members seen at the last heartbeat
	 */
	int members() {
		return this.members;
	}

	/** Stops the loop: the partitions stay owned until {@link #leave()}. */
	void stop() {
		this.loop.stop(java.time.Duration.ofSeconds(10));
	}

	/**
	 * Gives up every lease and leaves the group's members, so the others take the
	 * partitions at their next period. Called once the container settled what it could.
	 */
	void leave() {
		for (int partition : this.owned) {
			try {
				lease(partition, "release");
				givenUp(partition, PartitionGivenUpEvent.Reason.STOPPED);
			}
			catch (RuntimeException ex) {
				logger.info("Could not give up partition " + partition + " of " + this.context.label()
						+ "; another member takes it once the lease expired: " + Failures.describe(ex));
			}
		}
		this.owned.clear();
		this.releasing.clear();
		try {
			this.context.scripts()
				.run(Scripts.MEMBERS, List.of(this.context.keys().members(this.context.group())),
						this.context.consumer(), this.leaseMillis, "leave");
			// a shared listener refused beside this member reads again at once
			this.context.gate().ownersChangedEverywhere();
		}
		catch (RuntimeException ex) {
			logger.info("Could not leave the members of " + this.context.label() + ": " + Failures.describe(ex));
		}
	}

	@Override
	public long runOnce() {
		// a member that declares another partition count than Redis holds owns nothing
		this.runtime.checkLayout();
		List<String> live = heartbeat();
		this.members = live.size();
		if (this.unannounced) {
			// before it takes a partition: a shared reader stops at once, not at its next
			// slow check
			this.unannounced = false;
			this.context.gate().ownersChangedEverywhere();
		}
		int index = live.indexOf(this.context.consumer());
		Set<Integer> share = new TreeSet<>();
		for (int partition = 0; partition < this.partitions.size(); partition++) {
			if (index >= 0 && partition % live.size() == index) {
				share.add(partition);
			}
		}
		StepFailures failed = new StepFailures();
		for (int partition : new ArrayList<>(this.owned)) {
			failed.none(() -> renew(partition));
		}
		for (int partition : new ArrayList<>(this.owned)) {
			if (!share.contains(partition) && this.releasing.add(partition)) {
				logger.info("Giving partition " + partition + " of " + this.context.label() + " up to "
						+ "another member (" + live.size() + " members)");
				this.runtime.close(partition);
			}
		}
		for (int partition : new ArrayList<>(this.releasing)) {
			if (this.runtime.heldIn(partition) == 0) {
				failed.none(() -> {
					lease(partition, "release");
					this.owned.remove(partition);
					this.releasing.remove(partition);
					givenUp(partition, PartitionGivenUpEvent.Reason.REBALANCED);
				});
			}
		}
		for (int partition : share) {
			if (this.releasing.remove(partition)) {
				// back in this member's share before it was given up
				this.runtime.open(partition);
			}
			else if (!this.owned.contains(partition)) {
				failed.none(() -> take(partition));
			}
		}
		failed.rethrow();
		long jitter = ThreadLocalRandom.current().nextLong(-this.periodMillis / 10, this.periodMillis / 10 + 1);
		return TimeUnit.MILLISECONDS.toNanos(this.periodMillis + jitter);
	}

	private List<String> heartbeat() {
		List<Object> reply = this.context.scripts()
			.run(Scripts.MEMBERS, List.of(this.context.keys().members(this.context.group())), this.context.consumer(),
					this.leaseMillis, "join");
		List<String> live = new ArrayList<>();
		for (Object member : reply) {
			live.add(ScriptRunner.asString(member));
		}
		live.sort(null);
		return live;
	}

	private void renew(int partition) {
		long sent = System.nanoTime();
		List<Object> reply = lease(partition, "take");
		long result = ScriptRunner.asLong(reply.get(0));
		if (result != 0) {
			this.confirmed.put(partition, sent);
		}
		if (result == 0) {
			String owner = (reply.size() > 1) ? ScriptRunner.asString(reply.get(1)) : "nobody";
			logger.warn("Lost partition " + partition + " of " + this.context.label() + " to " + owner
					+ " (its lease expired while Redis could not be reached); no longer reading it");
			this.owned.remove(partition);
			this.releasing.remove(partition);
			this.runtime.close(partition);
			givenUp(partition, PartitionGivenUpEvent.Reason.LOST);
		}
		else if (result == 2 && !this.releasing.contains(partition)) {
			// the lease had expired and was free: whatever another member left is ours,
			// read before anything newer
			if (takeOver(partition) > 0) {
				this.runtime.rereadPending(partition);
			}
		}
	}

	private void take(int partition) {
		long sent = System.nanoTime();
		List<Object> reply = lease(partition, "take");
		if (ScriptRunner.asLong(reply.get(0)) == 0) {
			// still held: its owner gives it up, or its lease expires
			return;
		}
		this.confirmed.put(partition, sent);
		this.owned.add(partition);
		long claimed;
		try {
			claimed = takeOver(partition);
		}
		catch (RuntimeException ex) {
			// not read without its pending entries: given up, taken again next period
			this.owned.remove(partition);
			try {
				lease(partition, "release");
			}
			catch (RuntimeException releaseFailed) {
				ex.addSuppressed(releaseFailed);
			}
			throw ex;
		}
		logger.info("Took partition " + partition + " of " + this.context.label()
				+ ((claimed > 0) ? " with " + claimed + " pending message(s) of its previous owner" : ""));
		this.runtime.open(partition);
		this.context.events()
			.publish((time) -> new PartitionTakenEvent(this.context.queue(), this.context.group(),
					this.context.consumer(), partition, claimed, time));
	}

	private void givenUp(int partition, PartitionGivenUpEvent.Reason reason) {
		this.context.events()
			.publish((time) -> new PartitionGivenUpEvent(this.context.queue(), this.context.group(),
					this.context.consumer(), partition, reason, time));
	}

	private long takeOver(int partition) {
		ListenerContext owned = this.partitions.get(partition);
		return ScriptRunner
			.asLong(owned.scripts().run(Scripts.TAKE_OVER, owned.streams(), owned.group(), owned.consumer()).get(0));
	}

	private List<Object> lease(int partition, String action) {
		ListenerContext owned = this.partitions.get(partition);
		return owned.scripts()
			.run(Scripts.OWN, List.of(owned.keys().owner(owned.group())), owned.consumer(), this.leaseMillis, action);
	}

}
