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

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A queue's history over the last hour, day or week: per interval, what every engine
 * using the queue counted (not only this one). Each engine adds its counts to Redis about
 * every 10 seconds, so the last interval fills as it goes. Read it with
 * {@link DelayQueueAdmin#history(String, Span)}.
 *
 * @param queue the queue
 * @param span the span read, which sets the interval
 * @param points one point per interval, oldest first, the last one the current interval;
 * intervals with nothing counted hold zeros
 */
public record QueueHistory(String queue, Span span, List<Point> points) {

	/**
	 * The upper bounds, in milliseconds, of the lateness buckets counted: a delivery with
	 * a lateness up to 1 ms is in the first bucket, and so on; the last bucket (one more
	 * than there are bounds) holds those later than 10 s.
	 */
	public static final List<Long> LATENESS_BOUNDS_MILLIS = List.of(1L, 2L, 5L, 10L, 20L, 50L, 100L, 200L, 500L, 1000L,
			2000L, 5000L, 10000L);

	/**
	 * Returns the sum of every point.
	 * @return the total over the span, dated at its first point
	 */
	public Point total() {
		Point sum = Point.empty(this.points.isEmpty() ? Instant.EPOCH : this.points.get(0).start());
		for (Point point : this.points) {
			sum = sum.plus(point);
		}
		return sum;
	}

	/**
	 * How far back a history reaches, and its interval.
	 */
	public enum Span {

		/** The last 60 minutes, per minute. */
		HOUR(Duration.ofMinutes(1), 60),

		/** The last 24 hours, per quarter hour. */
		DAY(Duration.ofMinutes(15), 96),

		/** The last 7 days, per hour. */
		WEEK(Duration.ofHours(1), 168);

		private final Duration interval;

		private final int points;

		Span(Duration interval, int points) {
			this.interval = interval;
			this.points = points;
		}

		/**
		 * @return the length of one point's interval
		 */
		public Duration interval() {
			return this.interval;
		}

		/**
		 * @return how many points a history of this span has
		 */
		public int points() {
			return this.points;
		}

	}

	/**
	 * What was counted over one interval, by every engine.
	 *
	 * @param start when the interval starts
	 * @param delivered handler starts (first attempts and retries)
	 * @param acked messages handled successfully
	 * @param retried failures followed by a retry
	 * @param dead messages dead-lettered after their last attempt failed
	 * @param expired messages that expired (dead-lettered or discarded)
	 * @param lateness handler starts per lateness bucket (see
	 * {@link #LATENESS_BOUNDS_MILLIS}), one more element than there are bounds
	 * @param filtered messages an interceptor filtered out before their handler
	 * (acknowledged unhandled); not counted in {@code acked}
	 */
	public record Point(Instant start, long delivered, long acked, long retried, long dead, long expired,
			List<Long> lateness, long filtered) {

		/**
		 * A point with nothing filtered, as before interceptors.
		 * @param start when the interval starts
		 * @param delivered handler starts
		 * @param acked messages handled successfully
		 * @param retried failures followed by a retry
		 * @param dead messages dead-lettered
		 * @param expired messages expired
		 * @param lateness starts per lateness bucket
		 */
		public Point(Instant start, long delivered, long acked, long retried, long dead, long expired,
				List<Long> lateness) {
			this(start, delivered, acked, retried, dead, expired, lateness, 0);
		}

		/**
		 * Copies the lateness counts.
		 * @param start when the interval starts
		 * @param delivered handler starts
		 * @param acked messages handled successfully
		 * @param retried failures followed by a retry
		 * @param dead messages dead-lettered
		 * @param expired messages expired
		 * @param lateness starts per lateness bucket
		 * @param filtered messages filtered out
		 */
		public Point {
			lateness = List.copyOf(lateness);
		}

		static Point empty(Instant start) {
			return new Point(start, 0, 0, 0, 0, 0, zeros());
		}

		private static List<Long> zeros() {
			Long[] zeros = new Long[LATENESS_BOUNDS_MILLIS.size() + 1];
			java.util.Arrays.fill(zeros, 0L);
			return List.of(zeros);
		}

		Point plus(Point other) {
			Long[] lateness = new Long[LATENESS_BOUNDS_MILLIS.size() + 1];
			for (int i = 0; i < lateness.length; i++) {
				lateness[i] = this.lateness.get(i) + other.lateness.get(i);
			}
			return new Point(this.start, this.delivered + other.delivered, this.acked + other.acked,
					this.retried + other.retried, this.dead + other.dead, this.expired + other.expired,
					List.of(lateness), this.filtered + other.filtered);
		}

		/**
		 * Estimates a percentile of the lateness from the buckets: the upper bound of the
		 * bucket that holds it (so the figure errs late, by at most the bucket's width).
		 * @param percentile the percentile, from 0 to 100 (e.g. 99)
		 * @return the estimate, {@code null} when nothing was delivered, and
		 * {@link Duration#ofMillis(long) 10 s + 1 ms} when it is later than the last
		 * bound
		 */
		public Duration latenessPercentile(double percentile) {
			if (percentile < 0 || percentile > 100) {
				throw new IllegalArgumentException("Percentile must be from 0 to 100, but was " + percentile);
			}
			long total = this.lateness.stream().mapToLong(Long::longValue).sum();
			if (total == 0) {
				return null;
			}
			long rank = Math.max(1, (long) Math.ceil(total * percentile / 100.0));
			long seen = 0;
			for (int i = 0; i < LATENESS_BOUNDS_MILLIS.size(); i++) {
				seen += this.lateness.get(i);
				if (seen >= rank) {
					return Duration.ofMillis(LATENESS_BOUNDS_MILLIS.get(i));
				}
			}
			return Duration.ofMillis(LATENESS_BOUNDS_MILLIS.get(LATENESS_BOUNDS_MILLIS.size() - 1) + 1);
		}

	}

}
