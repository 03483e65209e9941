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
package io.github.delayqueue.autoconfigure.metrics;

import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueOutbox;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The outbox's meters, when the engine has one:
 * <ul>
 * <li>gauge {@code delayqueue.outbox.rows}: rows not yet moved to Redis;</li>
 * <li>time gauge {@code delayqueue.outbox.oldest}: the age of the oldest of them.</li>
 * </ul>
 * Both read one {@code SELECT COUNT(*), MIN(created_at)} at most every 5 s, however often
 * they are scraped.
 */
final class OutboxMeters {

	private static final long REFRESH_NANOS = TimeUnit.SECONDS.toNanos(5);

	private final ObjectProvider<DelayQueueEngine> engine;

	private DelayQueueOutbox.Backlog backlog = new DelayQueueOutbox.Backlog(0, java.time.Duration.ZERO);

	private long readAt;

	private boolean read;

	OutboxMeters(ObjectProvider<DelayQueueEngine> engine) {
		this.engine = engine;
	}

	/** Registers the meters when the engine has an outbox. */
	void bindTo(MeterRegistry registry) {
		DelayQueueEngine found = this.engine.getIfAvailable();
		if (found == null || !found.hasOutbox()) {
			return;
		}
		DelayQueueOutbox outbox = found.outbox();
		Gauge.builder("delayqueue.outbox.rows", this, (meters) -> meters.backlog(outbox).rows())
			.description("Rows of the transactional outbox not yet moved to Redis")
			.tag("table", outbox.table())
			.register(registry);
		TimeGauge
			.builder("delayqueue.outbox.oldest", this, TimeUnit.MILLISECONDS,
					(meters) -> meters.backlog(outbox).oldest().toMillis())
			.description("Age of the oldest row of the transactional outbox")
			.tag("table", outbox.table())
			.register(registry);
	}

	private synchronized DelayQueueOutbox.Backlog backlog(DelayQueueOutbox outbox) {
		long now = System.nanoTime();
		if (!this.read || now - this.readAt >= REFRESH_NANOS) {
			this.readAt = now;
			this.read = true;
			try {
				this.backlog = outbox.backlog();
			}
			catch (RuntimeException ex) {
				// the database does not answer: the last figures stay
			}
		}
		return this.backlog;
	}

}
