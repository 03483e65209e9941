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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.DaemonThreads;
import io.github.delayqueue.core.support.QueueKeys;

import org.springframework.data.redis.connection.stream.RecordId;

/**
 * Acknowledges handled deliveries in batches: one {@code XACK} per stream for everything
 * that finished since the last one. A delivery's capacity is freed only once its ack
 * reached Redis; while Redis is unreachable acks wait and are retried (they are
 * idempotent).
 */
final class Acker {

	private static final Log logger = LogFactory.getLog(Acker.class);

	private static final int MAX_BATCH = 512;

	private final DelayQueueListenerContainer container;

	private final BlockingQueue<Delivery> pending = new LinkedBlockingQueue<>();

	private final Thread thread;

	private volatile boolean stopping;

	private volatile long deadlineNanos;

	Acker(DelayQueueListenerContainer container) {
		this.container = container;
		this.thread = DaemonThreads.factory("delayqueue-" + container.queue() + "-" + container.group + "-acker-")
			.newThread(this::run);
		this.thread.start();
	}

	void add(Delivery delivery) {
		this.pending.add(delivery);
	}

	/** Flushes what is pending, trying until the deadline, then stops. */
	void stop(long deadlineNanos) {
		this.deadlineNanos = deadlineNanos;
		this.stopping = true;
		try {
			this.thread.join(Math.max(1000, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()) + 1000));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	private void run() {
		List<Delivery> batch = new ArrayList<>();
		long backoff = 0;
		while (true) {
			try {
				if (batch.isEmpty()) {
					Delivery first = this.pending.poll(50, TimeUnit.MILLISECONDS);
					if (first == null) {
						if (this.stopping) {
							return;
						}
						continue;
					}
					batch.add(first);
					this.pending.drainTo(batch, MAX_BATCH - 1);
				}
				ack(batch);
				batch.forEach(this::done);
				batch.clear();
				backoff = 0;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) {
				if (this.stopping && System.nanoTime() - this.deadlineNanos > 0) {
					logger.warn(
							"Could not acknowledge " + batch.size() + " message(s) of queue '" + this.container.queue()
									+ "' before shutdown; they will be redelivered: " + ex.getMessage());
					return;
				}
				backoff = (backoff == 0) ? 100 : Math.min(2000, backoff * 2);
				DelayQueueListenerContainer.sleep(backoff);
			}
		}
	}

	private void ack(List<Delivery> batch) {
		Map<String, List<RecordId>> byStream = new LinkedHashMap<>();
		for (Delivery delivery : batch) {
			byStream.computeIfAbsent(delivery.stream, (stream) -> new ArrayList<>()).add(RecordId.of(delivery.entryId));
		}
		this.container.engine.scripts().execute((connection) -> {
			byStream.forEach((stream, ids) -> connection.streamCommands()
				.xAck(QueueKeys.bytes(stream), this.container.group, ids.toArray(RecordId[]::new)));
			return null;
		});
	}

	private void done(Delivery delivery) {
		this.container.finished(delivery);
		this.container.engine.observer()
			.acked(this.container.queue(), this.container.group,
					Duration.ofNanos(System.nanoTime() - delivery.startedNanos));
	}

}
