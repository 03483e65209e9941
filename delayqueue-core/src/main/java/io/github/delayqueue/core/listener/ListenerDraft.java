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

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * The values a {@link ListenerSetters} collects, with their defaults, and how they make
 * {@link ListenerSettings}.
 */
final class ListenerDraft {

	int concurrency = 4;

	Integer prefetch;

	Duration visibilityTimeout = Duration.ofSeconds(30);

	Duration leaseRenewalLimit;

	Duration pollTimeout = Duration.ofSeconds(5);

	Duration shutdownTimeout = Duration.ofSeconds(30);

	Duration trimInterval = Duration.ofSeconds(30);

	Duration deadLetterRetention = Duration.ofDays(7);

	Duration staleConsumerTimeout = Duration.ofMinutes(10);

	int maxAttempts = RetryPolicy.DEFAULT.maxAttempts();

	Duration initialBackoff = RetryPolicy.DEFAULT.initialBackoff();

	double backoffMultiplier = RetryPolicy.DEFAULT.multiplier();

	Duration maxBackoff = RetryPolicy.DEFAULT.maxBackoff();

	double jitter = RetryPolicy.DEFAULT.jitter();

	Set<Class<? extends Throwable>> nonRetryable = new LinkedHashSet<>();

	Executor executor;

	boolean autoStartup = true;

	boolean exclusive;

	boolean ordered;

	Boolean blockingRetries;

	boolean discardExpired;

	int maxSnoozes = 1000;

	int batchSize = 100;

	Duration batchWait = Duration.ZERO;

	Duration idleEventInterval;

	void copyFrom(ListenerDraft other) {
		this.concurrency = other.concurrency;
		this.prefetch = other.prefetch;
		this.visibilityTimeout = other.visibilityTimeout;
		this.leaseRenewalLimit = other.leaseRenewalLimit;
		this.pollTimeout = other.pollTimeout;
		this.shutdownTimeout = other.shutdownTimeout;
		this.trimInterval = other.trimInterval;
		this.deadLetterRetention = other.deadLetterRetention;
		this.staleConsumerTimeout = other.staleConsumerTimeout;
		this.maxAttempts = other.maxAttempts;
		this.initialBackoff = other.initialBackoff;
		this.backoffMultiplier = other.backoffMultiplier;
		this.maxBackoff = other.maxBackoff;
		this.jitter = other.jitter;
		this.nonRetryable = new LinkedHashSet<>(other.nonRetryable);
		this.executor = other.executor;
		this.autoStartup = other.autoStartup;
		this.exclusive = other.exclusive;
		this.ordered = other.ordered;
		this.blockingRetries = other.blockingRetries;
		this.discardExpired = other.discardExpired;
		this.maxSnoozes = other.maxSnoozes;
		this.batchSize = other.batchSize;
		this.batchWait = other.batchWait;
		this.idleEventInterval = other.idleEventInterval;
	}

	ListenerSettings build() {
		RetryPolicy retry = new RetryPolicy(this.maxAttempts, this.initialBackoff, this.backoffMultiplier,
				this.maxBackoff, this.jitter, this.nonRetryable);
		if (this.blockingRetries != null && !this.ordered) {
			throw new IllegalArgumentException(
					"Blocking retries apply to ordered listeners only: set ordered, or leave blocking retries unset");
		}
		return new ListenerSettings(this.concurrency, (this.prefetch != null) ? this.prefetch : this.concurrency,
				this.visibilityTimeout,
				(this.leaseRenewalLimit != null) ? this.leaseRenewalLimit : this.visibilityTimeout.multipliedBy(10),
				this.pollTimeout, this.shutdownTimeout, this.trimInterval, this.deadLetterRetention,
				this.staleConsumerTimeout, retry, this.executor, this.autoStartup, this.exclusive || this.ordered,
				this.ordered, this.ordered && (this.blockingRetries == null || this.blockingRetries),
				this.discardExpired, this.maxSnoozes, this.batchSize, this.batchWait, this.idleEventInterval);
	}

	static int atLeastOne(String what, int value) {
		if (value < 1) {
			throw new IllegalArgumentException(what + " must be at least 1, but was " + value);
		}
		return value;
	}

	static Duration positive(String what, Duration value) {
		if (value == null || value.isNegative() || value.isZero()) {
			throw new IllegalArgumentException(what + " must be positive, but was " + value);
		}
		return value;
	}

}
