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

package io.github.delayqueue.core.internal.runtime;

import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;

/**
 * How one {@link SupervisedLoop}'s steps fail: the backoff (100 ms doubling to 500 ms),
 * the log lines of an outage (the first failure at WARN, one more WARN once the steps
 * have failed for {@link SupervisedLoop#FAILING_TOO_LONG}, the recovery at INFO, the rest
 * at DEBUG), and whether they have failed too long to count as serving. Used by the
 * loop's one stepping thread at a time; read by any.
 */
final class LoopFailures {

	static final long FIRST_BACKOFF_MILLIS = 100;

	// at most 0.5 s: work resumes within about a second of Redis coming back (a failover)
	static final long MAX_BACKOFF_MILLIS = 500;

	private final Log logger;

	private final String name;

	private final SupervisedLoop.Job job;

	private long backoffMillis;

	/** When the current run of failing steps began (System.nanoTime), 0 for none. */
	private volatile long failingSince;

	/** Why the last step failed, while steps fail. */
	private volatile String failure;

	/** Whether the current run of failures was logged as too long. */
	private boolean failingReported;

	LoopFailures(Log logger, String name, SupervisedLoop.Job job) {
		this.logger = logger;
		this.name = name;
		this.job = job;
	}

	/** The loop starts: no failure counts. */
	void reset() {
		this.backoffMillis = 0;
		this.failingSince = 0;
		this.failure = null;
	}

	/** A step worked: ends a run of failures, logging the recovery. */
	void succeeded() {
		if (this.backoffMillis == 0) {
			return;
		}
		long failingMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - this.failingSince);
		this.backoffMillis = 0;
		this.failingSince = 0;
		this.failure = null;
		this.failingReported = false;
		this.logger.info("The " + this.name + " works again"
				+ ((failingMillis >= 1000) ? " after failing for " + seconds(failingMillis) : ""));
	}

	/**
	 * A step failed: logs it as the outage so far requires, and lets the job clean up.
	 * @return how long to back off, in milliseconds
	 */
	long failed(Throwable ex) {
		boolean first = this.backoffMillis == 0;
		this.backoffMillis = first ? FIRST_BACKOFF_MILLIS : Math.min(MAX_BACKOFF_MILLIS, this.backoffMillis * 2);
		String reason = Failures.describe(ex);
		long now = System.nanoTime();
		if (first) {
			// never 0: that means "not failing"
			this.failingSince = (now != 0) ? now : 1;
			this.failingReported = false;
		}
		this.failure = reason;
		String message = "The " + this.name + " failed, retrying in " + this.backoffMillis + " ms: " + reason;
		long failingMillis = TimeUnit.NANOSECONDS.toMillis(now - this.failingSince);
		if (first) {
			this.logger.warn(message);
		}
		else if (!this.failingReported && failingMillis >= SupervisedLoop.FAILING_TOO_LONG.toMillis()) {
			this.failingReported = true;
			this.logger.warn("The " + this.name + " has failed for " + seconds(failingMillis)
					+ " and is not healthy until it works again; retrying every " + MAX_BACKOFF_MILLIS + " ms: "
					+ reason);
		}
		else if (this.logger.isDebugEnabled()) {
			this.logger.debug(message);
		}
		try {
			this.job.failed(ex);
		}
		catch (RuntimeException cleanup) {
			this.logger.debug("Cleaning up after a failure of the " + this.name + " failed", cleanup);
		}
		return this.backoffMillis;
	}

	/**
	 * @return why the steps do not serve: they have failed for
	 * {@link SupervisedLoop#FAILING_TOO_LONG} or longer; {@code null} otherwise
	 */
	String problem() {
		long since = this.failingSince;
		String reason = this.failure;
		long failingMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
		if (since == 0 || reason == null || failingMillis < SupervisedLoop.FAILING_TOO_LONG.toMillis()) {
			return null;
		}
		return "the " + this.name + " has failed for " + seconds(failingMillis) + ": " + reason;
	}

	static String seconds(long millis) {
		return (millis / 1000) + " s";
	}

}
