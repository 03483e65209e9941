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

import java.util.function.Supplier;

import io.github.delayqueue.core.internal.redis.SlotRefusedException;
import io.github.delayqueue.core.internal.runtime.BoundedCalls;
import io.github.delayqueue.core.internal.runtime.Failures;

import org.springframework.dao.DataAccessException;
import io.github.delayqueue.core.DelayQueueException;

/**
 * How the public operations report a failed Redis call: a {@link DelayQueueException}
 * that names the operation, and says whether it may have taken effect.
 */
public final class RedisCalls {

	private RedisCalls() {
	}

	/**
	 * Runs an operation's Redis calls.
	 * @param what the operation, completing "Cannot ..." (e.g. "send to queue(s) q")
	 * @param action the calls
	 * @return their result
	 * @throws DelayQueueException when Redis refused or failed them, or did not answer
	 * within the operation timeout
	 */
	public static <T> T inRedis(String what, Supplier<T> action) {
		try {
			return action.get();
		}
		catch (SlotRefusedException ex) {
			// refused before anything ran, every time: the caller may retry safely
			throw new DelayQueueException("Cannot " + what + ": " + ex.getMessage(), ex);
		}
		catch (DataAccessException ex) {
			throw new DelayQueueException("Cannot " + what + ": " + Failures.describe(ex), ex);
		}
		catch (BoundedCalls.TimeoutException ex) {
			throw new DelayQueueException(
					"Cannot " + what + ": " + ex.getMessage() + " (the operation may or may not have taken effect)",
					ex);
		}
	}

}
