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

import java.util.function.Consumer;

/**
 * Collects the failures of one step: the first is thrown at the end, the others are
 * suppressed by it.
 */
final class StepFailures {

	private RuntimeException first;

	private int count;

	/** Runs a task; whether it ran without a failure. */
	boolean none(Runnable task) {
		int before = this.count;
		try {
			task.run();
		}
		catch (RuntimeException ex) {
			add(ex);
		}
		return this.count == before;
	}

	/**
	 * Wraps an action so that a failure on one item is recorded and the next runs.
	 */
	<T> Consumer<T> each(Consumer<T> action) {
		return (item) -> {
			try {
				action.accept(item);
			}
			catch (RuntimeException ex) {
				add(ex);
			}
		};
	}

	private void add(RuntimeException ex) {
		this.count++;
		if (this.first == null) {
			this.first = ex;
		}
		else if (this.first != ex) {
			this.first.addSuppressed(ex);
		}
	}

	void rethrow() {
		if (this.first != null) {
			throw this.first;
		}
	}

}
