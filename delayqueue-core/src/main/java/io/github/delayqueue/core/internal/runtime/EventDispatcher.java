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

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.event.DelayQueueEvent;
import io.github.delayqueue.core.event.DelayQueueEventListener;

/**
 * Hands an engine's container events to its {@link DelayQueueEventListener}s on one
 * thread of its own (a {@link SupervisedLoop}, started with the first event), through a
 * bounded queue: publishing never blocks, and an event that finds the queue full is
 * dropped and counted. Drops are logged (WARN) at the first, at most once a minute while
 * they go on, and when the listeners caught up or the dispatcher closes, each line with
 * the count since the last line and since the engine started. Without listeners,
 * publishing does nothing, not even build the event.
 */
public final class EventDispatcher {

	private static final Log logger = LogFactory.getLog(EventDispatcher.class);

	/** No listener: every publish returns at once. */
	public static final EventDispatcher NONE = new EventDispatcher(List.of(), Clock.systemUTC());

	private static final long DROP_WARN_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

	private final List<DelayQueueEventListener> listeners;

	private final Clock clock;

	private final BlockingQueue<DelayQueueEvent> waiting;

	private final SupervisedLoop loop;

	private final AtomicLong dropped = new AtomicLong();

	/** The count of drops a WARN line last reported. */
	private final AtomicLong reported = new AtomicLong();

	private volatile long droppedWarnedAt = System.nanoTime() - DROP_WARN_EVERY_NANOS;

	private volatile boolean started;

	private volatile boolean closed;

	/**
	 * @param listeners the listeners, called in this order
	 * @param clock dates the events
	 */
	public EventDispatcher(List<DelayQueueEventListener> listeners, Clock clock) {
		this.listeners = List.copyOf(listeners);
		this.clock = clock;
		this.waiting = this.listeners.isEmpty() ? null : new ArrayBlockingQueue<>(DelayQueueEventListener.MAX_WAITING);
		this.loop = this.listeners.isEmpty() ? null
				: new SupervisedLoop("container event dispatcher", "delayqueue-events", this::dispatchOnce);
	}

	/**
	 * @return whether anything listens
	 */
	public boolean active() {
		return this.waiting != null;
	}

	/**
	 * Publishes an event, built only when something listens.
	 * @param event builds the event from the time it happened
	 */
	public void publish(Function<Instant, DelayQueueEvent> event) {
		if (this.waiting == null || this.closed) {
			return;
		}
		if (!this.started) {
			start();
		}
		if (!this.waiting.offer(event.apply(this.clock.instant()))) {
			this.dropped.incrementAndGet();
			long now = System.nanoTime();
			if (now - this.droppedWarnedAt > DROP_WARN_EVERY_NANOS) {
				this.droppedWarnedAt = now;
				reportDrops("Container events are dropped: the event listeners fell "
						+ DelayQueueEventListener.MAX_WAITING + " events behind; a listener is too slow",
						"; more are counted when they catch up");
			}
		}
	}

	/** Logs the drops since the last line, if any. */
	private void reportDrops(String what, String next) {
		long total = this.dropped.get();
		long before = this.reported.getAndSet(total);
		if (total > before) {
			logger.warn(what + " (" + (total - before) + " dropped since the last report, " + total
					+ " since the engine started)" + next);
		}
	}

	/**
	 * Publishes an event as {@link #publish} does, and also once the dispatcher is closed
	 * (a container started on a closed engine): then the listeners get it at once, on the
	 * caller's thread.
	 * @param event builds the event from the time it happened
	 */
	public void publishEvenIfClosed(Function<Instant, DelayQueueEvent> event) {
		if (this.waiting != null && this.closed) {
			dispatch(event.apply(this.clock.instant()));
		}
		else {
			publish(event);
		}
	}

	/**
	 * @return how many events were dropped because the listeners fell behind
	 */
	public long dropped() {
		return this.dropped.get();
	}

	private synchronized void start() {
		if (!this.started && !this.closed) {
			this.loop.start();
			this.started = true;
		}
	}

	private long dispatchOnce() throws InterruptedException {
		DelayQueueEvent event = this.waiting.poll(100, TimeUnit.MILLISECONDS);
		if (event != null) {
			dispatch(event);
		}
		else if (this.dropped.get() != this.reported.get()) {
			reportDrops("Container events were dropped; the event listeners caught up", "");
		}
		return 0;
	}

	private void dispatch(DelayQueueEvent event) {
		for (DelayQueueEventListener listener : this.listeners) {
			try {
				listener.onEvent(event);
			}
			catch (RuntimeException | Error ex) {
				logger.warn("The container event listener " + listener + " failed on " + event + ": "
						+ Failures.describe(ex), ex);
			}
		}
	}

	/**
	 * Hands what waits to the listeners (for at most the timeout), then stops the thread.
	 * @param timeout the longest wait
	 */
	public synchronized void close(Duration timeout) {
		if (this.waiting == null || this.closed) {
			return;
		}
		this.closed = true;
		long deadline = System.nanoTime() + timeout.toNanos();
		if (this.started) {
			this.loop.stop(timeout);
		}
		DelayQueueEvent event;
		while (System.nanoTime() - deadline < 0 && (event = this.waiting.poll()) != null) {
			dispatch(event);
		}
		this.waiting.clear();
		reportDrops("Container events were dropped; the dispatcher is closed", "");
	}

}
