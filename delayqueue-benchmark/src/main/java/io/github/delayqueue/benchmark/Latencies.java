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

package io.github.delayqueue.benchmark;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Lateness samples in microseconds, recorded from many threads, summarised as percentiles
 * in milliseconds.
 */
final class Latencies {

	private final long[] micros;

	private final AtomicInteger count = new AtomicInteger();

	Latencies(int capacity) {
		this.micros = new long[capacity];
	}

	void record(long lateMicros) {
		int index = this.count.getAndIncrement();
		if (index < this.micros.length) {
			this.micros[index] = lateMicros;
		}
	}

	int count() {
		return Math.min(this.count.get(), this.micros.length);
	}

	/**
	 * Returns a percentile in milliseconds (nearest-rank).
	 * @param percentile 0 to 100
	 * @return the value in ms
	 */
	double percentileMillis(double percentile) {
		int n = count();
		if (n == 0) {
			return Double.NaN;
		}
		long[] sorted = Arrays.copyOf(this.micros, n);
		Arrays.sort(sorted);
		int rank = (int) Math.ceil(percentile / 100.0 * n);
		return sorted[Math.max(0, Math.min(n - 1, rank - 1))] / 1000.0;
	}

	double minMillis() {
		int n = count();
		return (n == 0) ? Double.NaN : Arrays.stream(this.micros, 0, n).min().getAsLong() / 1000.0;
	}

	/** The values recorded so far, in microseconds, in the order they were recorded. */
	long[] values() {
		return Arrays.copyOf(this.micros, count());
	}

}
