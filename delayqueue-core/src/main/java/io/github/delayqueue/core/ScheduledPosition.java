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
package io.github.delayqueue.core;

/**
 * Where a time falls in a queue's schedule: how many scheduled messages are due before
 * it, of how many.
 *
 * @param before how many are due before the time
 * @param total how many are scheduled
 * @param exact whether {@code before} is exact ({@code margin} 0)
 * @param margin how far {@code before} can be from the true count, at most: 0 unless the
 * far tier holds entries of cancelled or replaced messages not yet removed (see
 * {@link DelayQueueAdmin#scheduledPosition})
 */
public record ScheduledPosition(long before, long total, boolean exact, long margin) {

	/**
	 * A position with no margin when exact, else a margin of unknown size
	 * ({@code total}).
	 * @param before how many are due before the time
	 * @param total how many are scheduled
	 * @param exact whether {@code before} is exact
	 */
	public ScheduledPosition(long before, long total, boolean exact) {
		this(before, total, exact, exact ? 0 : total);
	}

}
