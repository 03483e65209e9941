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

import java.util.List;
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
	 * The error codes with which Redis refuses a command or script before running any of
	 * it: a server without the script, a replica, a master short of replicas
	 * ({@code min-replicas-to-write}), a full server ({@code OOM}: a script is refused
	 * before its first write), a server loading its data, a running script, missing
	 * rights, a slot elsewhere or split, and the library's own first checks.
	 */
	private static final List<String> REFUSALS = List.of("NOSCRIPT", "READONLY", "NOREPLICAS", "OOM", "LOADING",
			"MASTERDOWN", "BUSY", "NOPERM", "NOAUTH", "WRONGPASS", "TRYAGAIN", "CLUSTERDOWN", "MOVED", "ASK",
			"CROSSSLOT", "DQRETIRED", "DQPROTOCOL");

	/**
	 * Whether Redis refused a call before running any of it (see {@link #REFUSALS}), so
	 * that nothing of it was applied.
	 * @param ex the failure
	 * @return whether the failure or one of its causes is such a refusal
	 */
	public static boolean refusedBeforeRunning(Throwable ex) {
		Throwable cause = ex;
		for (int depth = 0; depth < 32 && cause != null; depth++, cause = cause.getCause()) {
			String message = Failures.message(cause);
			for (String code : REFUSALS) {
				if (message.startsWith(code + " ") || message.equals(code)) {
					return true;
				}
			}
		}
		return false;
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
			String description = Failures.describe(ex);
			if (refusedBeforeRunning(ex) && !description.contains("applied")) {
				description += " (Redis refused it before running it: nothing was applied)";
			}
			throw new DelayQueueException("Cannot " + what + ": " + description, ex);
		}
		catch (BoundedCalls.TimeoutException ex) {
			throw new DelayQueueException(
					"Cannot " + what + ": " + ex.getMessage() + " (the operation may or may not have taken effect)",
					ex);
		}
	}

}
