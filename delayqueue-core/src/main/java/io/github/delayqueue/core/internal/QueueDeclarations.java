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

package io.github.delayqueue.core.internal;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.Partitioner;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.internal.control.SizeLimits;
import io.github.delayqueue.core.internal.redis.DueTimes;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;

/**
 * What an engine declares per queue (partitions, pause at startup, expiry, size, rate and
 * concurrency limits, fair share) and how keys choose partitions; each queue name is
 * checked as it is declared.
 */
public final class QueueDeclarations {

	private final Map<String, Integer> partitions = new LinkedHashMap<>();

	private final Set<String> pausedAtStartup = new LinkedHashSet<>();

	private final Map<String, Duration> expireAfter = new LinkedHashMap<>();

	private final Map<String, Long> sizeLimits = new LinkedHashMap<>();

	private final Set<String> fairShare = new LinkedHashSet<>();

	private final Map<String, RateLimit> rateLimits = new LinkedHashMap<>();

	private final Map<String, ConcurrencyLimit> concurrencyLimits = new LinkedHashMap<>();

	private Partitioner partitioner = Partitioner.CRC32;

	public void setPartitions(String queue, int count) {
		QueueNames.queue(queue);
		if (count < 1 || count > QueueKeys.MAX_PARTITIONS) {
			throw new IllegalArgumentException("Partitions of queue '" + queue + "' must be between 1 and "
					+ QueueKeys.MAX_PARTITIONS + ", but was " + count);
		}
		this.partitions.put(queue, count);
	}

	public void addPausedAtStartup(String queue) {
		this.pausedAtStartup.add(QueueNames.queue(queue));
	}

	public void setExpireAfter(String queue, Duration expireAfter) {
		QueueNames.queue(queue);
		this.expireAfter.put(queue, DueTimes.checkExpireAfter(expireAfter, "Expire-after of queue '" + queue + "'"));
	}

	public void addFairShare(String queue) {
		this.fairShare.add(QueueNames.queue(queue));
	}

	public void setSizeLimit(String queue, long max) {
		QueueNames.queue(queue);
		this.sizeLimits.put(queue, SizeLimits.check(queue, max));
	}

	public void setRateLimit(String queue, RateLimit limit) {
		QueueNames.queue(queue);
		this.rateLimits.put(queue, Objects.requireNonNull(limit, "Rate limit must not be null"));
	}

	public void setConcurrencyLimit(String queue, ConcurrencyLimit limit) {
		QueueNames.queue(queue);
		this.concurrencyLimits.put(queue, Objects.requireNonNull(limit, "Concurrency limit must not be null"));
	}

	public void setPartitioner(Partitioner partitioner) {
		this.partitioner = Objects.requireNonNull(partitioner, "Partitioner must not be null");
	}

	public Map<String, Integer> partitions() {
		return Map.copyOf(this.partitions);
	}

	public Set<String> pausedAtStartup() {
		return Set.copyOf(this.pausedAtStartup);
	}

	public Map<String, Duration> expireAfter() {
		return Map.copyOf(this.expireAfter);
	}

	public Map<String, Long> sizeLimits() {
		return Map.copyOf(this.sizeLimits);
	}

	public Set<String> fairShare() {
		return Set.copyOf(this.fairShare);
	}

	public Map<String, RateLimit> rateLimits() {
		return Map.copyOf(this.rateLimits);
	}

	public Map<String, ConcurrencyLimit> concurrencyLimits() {
		return Map.copyOf(this.concurrencyLimits);
	}

	public Partitioner partitioner() {
		return this.partitioner;
	}

	/**
	 * Returns a copy, unchanged by later declarations.
	 * @return the copy
	 */
	public QueueDeclarations copy() {
		QueueDeclarations copy = new QueueDeclarations();
		copy.partitions.putAll(this.partitions);
		copy.pausedAtStartup.addAll(this.pausedAtStartup);
		copy.expireAfter.putAll(this.expireAfter);
		copy.sizeLimits.putAll(this.sizeLimits);
		copy.fairShare.addAll(this.fairShare);
		copy.rateLimits.putAll(this.rateLimits);
		copy.concurrencyLimits.putAll(this.concurrencyLimits);
		copy.partitioner = this.partitioner;
		return copy;
	}

}
