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

package io.github.delayqueue.core.internal.history;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.QueueHistory;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;

/**
 * Counts what an engine's listeners do, per queue and minute, and adds the counts to the
 * queue's history in Redis about every {@link #FLUSH_INTERVAL} (one script call per queue
 * and minute with something counted; nothing while the queue is idle). Counts that cannot
 * be written (Redis down) are kept and written later, for at most
 * {@link #KEPT_WHILE_FAILING}; older ones are dropped, so that the memory held here stays
 * bounded.
 * <p>
 * Stored per queue, in partition 0's slot: one HASH per hour with a field per minute
 * (expiring 2 hours after the hour ends) and one HASH per day with a field per quarter
 * hour and per hour (expiring 8 days after the day ends). A field holds the counts in
 * {@link #COUNTS} order, then the lateness buckets, then the {@link #FILTERED} count,
 * comma-separated, without trailing zeros.
 */
public final class HistoryRecorder implements DelayQueueObserver {

	/** How often the counts are written. */
	public static final Duration FLUSH_INTERVAL = Duration.ofSeconds(10);

	/** How long counts that cannot be written are kept. */
	static final Duration KEPT_WHILE_FAILING = Duration.ofHours(1);

	/** The counts of a field, in order; the lateness buckets follow. */
	public static final List<String> COUNTS = List.of("delivered", "acked", "retried", "dead", "expired");

	/**
	 * Where the count of messages filtered out by an interceptor is: after the lateness
	 * buckets, so that a field written by a release without it reads the same.
	 */
	public static final int FILTERED = COUNTS.size() + QueueHistory.LATENESS_BOUNDS_MILLIS.size() + 1;

	/** How many numbers a field holds at most. */
	public static final int WIDTH = FILTERED + 1;

	private static final int DELIVERED = 0;

	private static final int ACKED = 1;

	private static final int RETRIED = 2;

	private static final int DEAD = 3;

	private static final int EXPIRED = 4;

	private static final long[] BOUNDS = QueueHistory.LATENESS_BOUNDS_MILLIS.stream()
		.mapToLong(Long::longValue)
		.toArray();

	private static final long MINUTE_KEY_TTL_SECONDS = TimeUnit.HOURS.toSeconds(3);

	private static final long DAY_KEY_TTL_SECONDS = TimeUnit.DAYS.toSeconds(9);

	private final ScriptRunner scripts;

	private final Function<String, QueueKeys> keys;

	private final Clock clock;

	private final Map<Minute, long[]> counts = new ConcurrentHashMap<>();

	private final SupervisedLoop writer;

	private volatile boolean started;

	private volatile boolean closed;

	/**
	 * Creates a recorder; its writer starts at the first count.
	 * @param scripts runs the writes
	 * @param keys the keys of a queue
	 * @param clock dates the counts
	 */
	public HistoryRecorder(ScriptRunner scripts, Function<String, QueueKeys> keys, Clock clock) {
		this.scripts = scripts;
		this.keys = keys;
		this.clock = clock;
		this.writer = new SupervisedLoop("history writer", "delayqueue-history", this::writeOnce);
	}

	@Override
	public void delivered(String queue, String group, int attempt, Duration lateness) {
		long millis = Math.max(0, lateness.toMillis());
		int bucket = BOUNDS.length;
		for (int i = 0; i < BOUNDS.length; i++) {
			if (millis <= BOUNDS[i]) {
				bucket = i;
				break;
			}
		}
		add(queue, DELIVERED, COUNTS.size() + bucket);
	}

	@Override
	public void acked(String queue, String group, Duration processing) {
		add(queue, ACKED, -1);
	}

	@Override
	public void filtered(String queue, String group) {
		add(queue, FILTERED, -1);
	}

	@Override
	public void retried(String queue, String group, Duration processing, Throwable error) {
		add(queue, RETRIED, -1);
	}

	@Override
	public void dead(String queue, String group, Duration processing, Throwable error) {
		add(queue, DEAD, -1);
	}

	@Override
	public void expired(String queue, String group, boolean deadLettered) {
		add(queue, EXPIRED, -1);
	}

	private void add(String queue, int count, int other) {
		if (this.closed) {
			return;
		}
		Minute minute = new Minute(queue, this.clock.millis() / 60_000);
		this.counts.compute(minute, (key, values) -> {
			long[] sums = (values != null) ? values : new long[WIDTH];
			sums[count]++;
			if (other >= 0) {
				sums[other]++;
			}
			return sums;
		});
		if (!this.started) {
			startWriter();
		}
	}

	private synchronized void startWriter() {
		if (!this.started && !this.closed) {
			this.started = true;
			this.writer.start();
		}
	}

	/** One round of the writer: writes what was counted, then sleeps. */
	private long writeOnce() {
		write();
		return FLUSH_INTERVAL.toNanos();
	}

	/**
	 * Writes what was counted so far. Counts that fail to be written are put back.
	 * @throws RuntimeException when Redis refused or could not be reached
	 */
	void write() {
		long oldest = this.clock.millis() / 60_000 - KEPT_WHILE_FAILING.toMinutes();
		for (Minute minute : new ArrayList<>(this.counts.keySet())) {
			long[] taken = this.counts.remove(minute);
			if (taken == null || minute.minute() < oldest) {
				continue;
			}
			try {
				write(minute, taken);
			}
			catch (RuntimeException ex) {
				this.counts.merge(minute, taken, HistoryRecorder::sum);
				throw ex;
			}
		}
	}

	private void write(Minute minute, long[] values) {
		QueueKeys queueKeys = this.keys.apply(minute.queue());
		long hour = minute.minute() / 60;
		long day = hour / 24;
		long minuteOfDay = minute.minute() - day * 24 * 60;
		Object[] args = new Object[5 + values.length];
		args[0] = Long.toString(minute.minute() % 60);
		args[1] = "q" + (minuteOfDay / 15);
		args[2] = "h" + (minuteOfDay / 60);
		args[3] = Long.toString(MINUTE_KEY_TTL_SECONDS);
		args[4] = Long.toString(DAY_KEY_TTL_SECONDS);
		for (int i = 0; i < values.length; i++) {
			args[5 + i] = Long.toString(values[i]);
		}
		this.scripts.run(Scripts.HISTORY, List.of(queueKeys.historyMinutes(hour), queueKeys.historyDay(day)), args);
	}

	private static long[] sum(long[] a, long[] b) {
		long[] sums = new long[a.length];
		for (int i = 0; i < a.length; i++) {
			sums[i] = a[i] + b[i];
		}
		return sums;
	}

	/**
	 * Stops the writer and writes what is left, once, without waiting for a Redis that
	 * does not answer longer than the script runner's bound.
	 */
	public void close() {
		this.closed = true;
		this.writer.stop(Duration.ofSeconds(5));
		try {
			write();
		}
		catch (RuntimeException ex) {
			// the last counts of this engine are lost: the history is a view, not a
			// record
		}
	}

	private record Minute(String queue, long minute) {
	}

}
