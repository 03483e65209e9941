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

package io.github.delayqueue.core.listener;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Thrown by a {@link DelayBatchHandler} to fail some messages of its batch, named by
 * their index in the batch (from 0): each fails with its own cause (retried per the
 * listener's policy, or dead-lettered; a {@link SnoozeException} cause snoozes it), and
 * every message not named is acknowledged. Like Spring Kafka's
 * {@code BatchListenerFailedException}, but for any number of messages. An index outside
 * the batch fails the whole batch, with an error that says so.
 */
public class BatchFailedException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	private final transient Map<Integer, Throwable> failures;

	/**
	 * Fails the messages at the given indexes, each with the same cause.
	 * @param cause why they failed
	 * @param indexes their indexes in the batch, from 0
	 */
	public BatchFailedException(Throwable cause, int... indexes) {
		super(describe(indexes.length, cause), Objects.requireNonNull(cause, "Cause must not be null"));
		if (indexes.length == 0) {
			throw new IllegalArgumentException("Name at least one failed message of the batch");
		}
		Map<Integer, Throwable> failures = new LinkedHashMap<>();
		for (int index : indexes) {
			failures.put(index, cause);
		}
		this.failures = Collections.unmodifiableMap(failures);
	}

	/**
	 * Fails the messages at the given indexes, each with its own cause.
	 * @param failures by index in the batch (from 0), why that message failed
	 */
	public BatchFailedException(Map<Integer, ? extends Throwable> failures) {
		super(describe(failures.size(), failures.isEmpty() ? null : failures.values().iterator().next()),
				failures.isEmpty() ? null : failures.values().iterator().next());
		if (failures.isEmpty()) {
			throw new IllegalArgumentException("Name at least one failed message of the batch");
		}
		Map<Integer, Throwable> copy = new LinkedHashMap<>();
		failures.forEach((index, cause) -> copy.put(Objects.requireNonNull(index, "Index must not be null"),
				Objects.requireNonNull(cause, "The cause of message " + index + " must not be null")));
		this.failures = Collections.unmodifiableMap(copy);
	}

	private static String describe(int count, Throwable cause) {
		return count + " message(s) of the batch failed" + ((cause != null) ? ": " + cause : "");
	}

	/**
	 * @return by index in the batch, why that message failed
	 */
	public Map<Integer, Throwable> getFailures() {
		return this.failures;
	}

}
