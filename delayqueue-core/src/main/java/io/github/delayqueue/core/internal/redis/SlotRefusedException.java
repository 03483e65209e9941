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

package io.github.delayqueue.core.internal.redis;

import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.internal.runtime.Failures;

import org.springframework.dao.TransientDataAccessResourceException;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * A script call that Redis Cluster refused every time it was tried ({@code TRYAGAIN}
 * while its slot migrated with its keys split between two masters, {@code CLUSTERDOWN}
 * while the slot was not served): Redis refuses these before it runs anything, so the
 * call was not applied and may be retried safely. The message names the refusal and the
 * slot.
 */
public final class SlotRefusedException extends TransientDataAccessResourceException {

	private static final long serialVersionUID = 1L;

	private final int slot;

	private SlotRefusedException(String message, int slot, Throwable refusal) {
		super(message, refusal);
		this.slot = slot;
	}

	/**
	 * Describes the last refusal of a call.
	 * @param key a key of the call (all its keys share a slot)
	 * @param nanos how long the call was retried
	 * @param refusal the last refusal
	 * @return the exception
	 */
	static SlotRefusedException of(String key, long nanos, RuntimeException refusal) {
		int slot = ClusterSlotHashUtil.calculateSlot(key);
		String millis = TimeUnit.NANOSECONDS.toMillis(nanos) + " ms";
		String why;
		if (Failures.hasMessage(refusal, "TRYAGAIN")) {
			why = "Redis Cluster answered TRYAGAIN for " + millis + ": slot " + slot
					+ " is migrating between two masters and the call's keys are split between them";
		}
		else if (Failures.hasMessage(refusal, "CLUSTERDOWN")) {
			why = "Redis Cluster answered CLUSTERDOWN for " + millis + ": slot " + slot + " was not served";
		}
		else {
			why = "Redis Cluster refused the call for " + millis + " (slot " + slot + "): " + Failures.message(refusal);
		}
		return new SlotRefusedException(why + ". Redis refuses before it runs anything: nothing was applied, "
				+ "and the call can be retried safely once the slot is served whole", slot, refusal);
	}

	/**
	 * Returns the slot of the refused call's keys.
	 * @return the slot
	 */
	public int slot() {
		return this.slot;
	}

}
