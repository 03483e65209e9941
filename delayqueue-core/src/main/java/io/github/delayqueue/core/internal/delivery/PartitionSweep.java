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
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.runtime.Failures;

/**
 * The slow sweep of a container's partitions, shared between the instances: per partition
 * and group, the one that takes the lock {@code P:{Q}:sweep:G} in the period
 * ({@code sweep.lua}, {@code SET NX PX}) prunes the consumers that hold nothing and are
 * idle past the stale consumer timeout, trims the dead letters past their retention, and
 * checks that each consumer holding entries heartbeats.
 */
final class PartitionSweep {

	private static final Log logger = LogFactory.getLog(PartitionSweep.class);

	private final long lockMillis;

	/**
	 * @param periodNanos the sweep's period: the lock lives 90 % of it
	 */
	PartitionSweep(long periodNanos) {
		this.lockMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(periodNanos) * 9 / 10);
	}

	/**
	 * Sweeps a partition if no instance did in the period.
	 * @param partition the partition
	 * @param heartbeats the engine's heartbeat, {@code null} for none (every holder
	 * counts as not heartbeating)
	 * @return {@code null} when another instance swept in the period, else whether a
	 * consumer holding entries does not heartbeat (a release before heartbeats, or one
	 * whose instance died)
	 */
	Boolean sweep(ListenerContext partition, Heartbeats heartbeats) {
		List<String> keys = new ArrayList<>();
		keys.add(partition.keys().sweep(partition.group()));
		keys.addAll(partition.streams());
		List<Object> result = partition.scripts()
			.run(Scripts.SWEEP, keys, partition.group(), partition.consumer(),
					partition.settings().staleConsumerTimeout().toMillis(), this.lockMillis, "sweep");
		if (ScriptRunner.asLong(result.get(0)) == 0) {
			return null;
		}
		try {
			return swept(partition, result, heartbeats);
		}
		catch (RuntimeException ex) {
			// a sweep that failed is tried again (by any instance), not skipped for a
			// period
			release(partition);
			throw ex;
		}
	}

	private boolean swept(ListenerContext partition, List<Object> result, Heartbeats heartbeats) {
		partition.scripts()
			.run(Scripts.TRIM_DEAD, List.of(partition.keys().dead()),
					partition.settings().deadLetterRetention().toMillis());
		long pruned = ScriptRunner.asLong(result.get(1));
		if (pruned > 0) {
			logger.info("Removed " + pruned + " consumer(s) of " + partition.label()
					+ " that held nothing and were idle longer than " + partition.settings().staleConsumerTimeout());
		}
		List<String> holders = new ArrayList<>();
		for (int i = 2; i < result.size(); i++) {
			holders.add(ScriptRunner.asString(result.get(i)));
		}
		Set<String> live = (heartbeats != null) ? heartbeats.live(holders) : Set.of();
		return !live.containsAll(holders);
	}

	/**
	 * Gives up the sweep locks a container holds (it stops): the next container of the
	 * group sweeps at its own period, not after this one's.
	 * @param partitions the container's partitions
	 */
	void releaseAll(List<ListenerContext> partitions) {
		for (ListenerContext partition : partitions) {
			try {
				release(partition);
			}
			catch (RuntimeException ex) {
				// it expires by itself
				logger.debug("Cannot release the sweep lock of " + partition.label() + ": " + Failures.describe(ex));
			}
		}
	}

	private static void release(ListenerContext partition) {
		partition.scripts()
			.run(Scripts.SWEEP, List.of(partition.keys().sweep(partition.group())), partition.group(),
					partition.consumer(), 0, 0, "release");
	}

}
