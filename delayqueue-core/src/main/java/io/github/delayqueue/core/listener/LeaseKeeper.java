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

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.DaemonThreads;
import io.github.delayqueue.core.support.ScriptRunner;
import io.github.delayqueue.core.support.Scripts;

/**
 * The periodic work of a container besides reading: renews the leases of running handlers
 * (every third of the visibility timeout, up to the lease-renewal limit), recovers
 * entries whose lease expired (their consumer died, hung or was paused), trims
 * acknowledged entries and expired dead letters, and on shutdown releases messages that
 * were read but not started so that other consumers take them at once.
 */
final class LeaseKeeper {

	private static final long RELEASE_WAIT_MILLIS = 5000;

	private static final Log logger = LogFactory.getLog(LeaseKeeper.class);

	private final DelayQueueListenerContainer container;

	private final ScheduledExecutorService scheduler;

	private final List<String> streams;

	LeaseKeeper(DelayQueueListenerContainer container) {
		this.container = container;
		this.streams = List.of(container.keys.stream(), container.keys.retryStream(container.group));
		this.scheduler = Executors.newSingleThreadScheduledExecutor(
				DaemonThreads.factory("delayqueue-" + container.queue() + "-" + container.group + "-leases-"));
		long visibility = container.settings.visibilityTimeout().toMillis();
		long renewEvery = Math.max(50, visibility / 3);
		long recoverEvery = Math.max(100, Math.min(visibility / 2, 15_000));
		long trimEvery = container.settings.trimInterval().toMillis();
		this.scheduler.scheduleWithFixedDelay(guarded("renew leases", this::renewRunning), renewEvery, renewEvery,
				TimeUnit.MILLISECONDS);
		this.scheduler.scheduleWithFixedDelay(guarded("recover expired leases", this::recover), recoverEvery,
				recoverEvery, TimeUnit.MILLISECONDS);
		this.scheduler.scheduleWithFixedDelay(guarded("trim streams", this::trim), trimEvery, trimEvery,
				TimeUnit.MILLISECONDS);
	}

	private Runnable guarded(String what, Runnable task) {
		return () -> {
			try {
				task.run();
			}
			catch (RuntimeException ex) {
				logger.debug("Cannot " + what + " of queue '" + this.container.queue() + "' now: " + ex.getMessage());
			}
		};
	}

	void stop() {
		this.scheduler.shutdownNow();
	}

	private void renewRunning() {
		long now = System.nanoTime();
		List<Delivery> running = new ArrayList<>();
		for (Delivery delivery : this.container.heldDeliveries) {
			if (delivery.keepAliveUntilNanos - now > 0 && !delivery.leaseLost) {
				running.add(delivery);
			}
		}
		renew(running);
	}

	/** Renews leases now; returns false when Redis could not be asked. */
	boolean renew(List<Delivery> deliveries) {
		if (deliveries.isEmpty()) {
			return true;
		}
		Map<String, List<Delivery>> byStream = new LinkedHashMap<>();
		deliveries.forEach((d) -> byStream.computeIfAbsent(d.stream, (s) -> new ArrayList<>()).add(d));
		try {
			byStream.forEach((stream, list) -> {
				List<Object> args = new ArrayList<>(List.of(this.container.group, this.container.consumer));
				list.forEach((d) -> args.add(d.entryId));
				List<Object> lost = this.container.engine.scripts()
					.run(Scripts.EXTEND, List.of(stream), args.toArray());
				for (Object entry : lost) {
					String entryId = ScriptRunner.asString(entry);
					list.stream().filter((d) -> d.entryId.equals(entryId)).forEach((d) -> d.leaseLost = true);
				}
			});
			return true;
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot renew leases now: " + ex.getMessage());
			return false;
		}
	}

	private void recover() {
		if (!this.container.isActive()) {
			return;
		}
		int recovered = 0;
		for (String stream : this.streams) {
			int free = this.container.freeCapacity();
			if (free <= 0) {
				break;
			}
			// never claim back what this container still holds (e.g. a handler past its
			// lease
			// renewal limit): another consumer is to take that over
			List<Object> args = new ArrayList<>(List.of(this.container.group, this.container.consumer,
					this.container.settings.visibilityTimeout().toMillis(), free));
			this.container.heldDeliveries.stream()
				.filter((delivery) -> delivery.stream.equals(stream))
				.forEach((delivery) -> args.add(delivery.entryId));
			List<Object> claimed = this.container.engine.scripts()
				.run(Scripts.RECOVER, List.of(stream), args.toArray());
			for (Object item : claimed) {
				List<?> entry = (List<?>) item;
				this.container.accept(new Delivery(this.container, stream, ScriptRunner.asString(entry.get(0)),
						fields((List<?>) entry.get(1)), ScriptRunner.asLong(entry.get(2))));
				recovered++;
			}
		}
		if (recovered > 0) {
			logger.info("Recovered " + recovered + " message(s) of queue '" + this.container.queue() + "', group '"
					+ this.container.group + "' whose lease had expired");
			this.container.engine.observer().recovered(this.container.queue(), this.container.group, recovered);
		}
	}

	private static Map<String, byte[]> fields(List<?> flat) {
		Map<String, byte[]> fields = new LinkedHashMap<>();
		for (int i = 0; i + 1 < flat.size(); i += 2) {
			fields.put(ScriptRunner.asString(flat.get(i)), (byte[]) flat.get(i + 1));
		}
		return fields;
	}

	private void trim() {
		for (String stream : this.streams) {
			this.container.engine.scripts().run(Scripts.TRIM, List.of(stream));
		}
		this.container.engine.scripts()
			.run(Scripts.TRIM_DEAD, List.of(this.container.keys.dead()),
					this.container.settings.deadLetterRetention().toMillis());
	}

	/**
	 * Gives back every entry this consumer holds except those of handlers still running:
	 * read but not started, or read by a blocking read that the shutdown interrupted.
	 * Other consumers recover them at once, and the delivery they counted is given back
	 * (it never reached a handler). Call after pending acks were flushed.
	 */
	void releaseUnprocessed(long deadlineNanos) {
		// on a thread of its own: with Redis gone, a command waits for the client's
		// command timeout (60 s by default), longer than a shutdown should take
		Thread releaser = DaemonThreads.factory("delayqueue-" + this.container.queue() + "-release-")
			.newThread(this::releaseUnprocessed);
		releaser.start();
		try {
			// releasing only saves the other consumers a visibility timeout: worth a few
			// seconds of a shutdown, not all of it
			long remaining = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
			releaser.join(Math.max(1000, Math.min(remaining, RELEASE_WAIT_MILLIS)));
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		if (releaser.isAlive()) {
			logger.info("Redis did not answer in time to release the unprocessed messages of queue '"
					+ this.container.queue() + "'; they are redelivered after the visibility timeout");
		}
	}

	private void releaseUnprocessed() {
		int released = 0;
		try {
			for (String stream : this.streams) {
				List<Object> args = new ArrayList<>(List.of(this.container.group, this.container.consumer,
						this.container.settings.visibilityTimeout().toMillis()));
				this.container.inProgress.stream()
					.filter((delivery) -> delivery.stream.equals(stream))
					.forEach((delivery) -> args.add(delivery.entryId));
				released += (int) ScriptRunner.asLong(
						this.container.engine.scripts().run(Scripts.RELEASE, List.of(stream), args.toArray()).get(0));
			}
		}
		catch (RuntimeException ex) {
			logger.info("Could not release the unprocessed messages of queue '" + this.container.queue()
					+ "'; they are redelivered after the visibility timeout: " + ex.getMessage());
		}
		if (released > 0) {
			logger.debug("Released " + released + " unprocessed message(s) of queue '" + this.container.queue() + "'");
		}
	}

}
