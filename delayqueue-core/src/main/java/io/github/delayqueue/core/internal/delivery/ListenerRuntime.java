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

package io.github.delayqueue.core.internal.delivery;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.runtime.DaemonThreads;
import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;

/**
 * The machinery of one listener container: a {@link StreamReader}, a {@link WorkerPool}
 * running the {@link Processor}, an {@link Acker} and a {@link LeaseKeeper}, sharing the
 * container's {@link Holdings}. Each background part runs on a supervised loop, so none
 * can end silently while the container runs.
 */
public final class ListenerRuntime {

	private static final Log logger = LogFactory.getLog(ListenerRuntime.class);

	private static final long RELEASE_WAIT_MILLIS = 5000;

	private final ListenerContext context;

	private final Holdings holdings;

	private final Acker acker;

	private final LeaseKeeper leases;

	private final Processor processor;

	private final WorkerPool workers;

	private final StreamReader reader;

	/**
	 * Creates the runtime; nothing runs until {@link #start()}.
	 * @param context the container's context
	 * @param payloadType the type payloads are decoded to
	 * @param handler the handler
	 * @param onConnected runs each time the reader has connected and created the groups
	 */
	public ListenerRuntime(ListenerContext context, Type payloadType, DelayMessageHandler<?> handler,
			Runnable onConnected) {
		this.context = context;
		this.holdings = new Holdings(context.settings().limit());
		this.acker = new Acker(context, this.holdings);
		this.leases = new LeaseKeeper(context, this.holdings);
		this.processor = new Processor(context, this.holdings, this.acker, payloadType, handler);
		this.workers = new WorkerPool(context, this.holdings, this.processor);
		this.leases.bind(this.processor, this.workers);
		this.reader = new StreamReader(context, this.holdings, this.leases, onConnected);
	}

	/**
	 * Starts every part. After a stop that timed out, handlers still running count
	 * against the concurrency.
	 */
	public void start() {
		this.processor.prepare();
		this.acker.start();
		this.leases.start();
		this.workers.start();
		this.reader.start();
	}

	/**
	 * Stops reading, lets running handlers finish within the shutdown timeout, flushes
	 * acks, and gives back every held entry no handler runs, then removes this consumer
	 * from the group where it holds nothing. Handlers that outlive the timeout keep their
	 * entries; their acks are still sent when they return.
	 */
	public void stop() {
		long deadline = System.nanoTime() + this.context.settings().shutdownTimeout().toNanos();
		this.reader.stop(Duration.ofSeconds(10));
		this.workers.stop();
		if (!this.workers.awaitIdle(deadline)) {
			logger.warn(this.workers.live() + " handler(s) of " + this.context.label()
					+ " still run after the shutdown timeout; their acks are sent when they return");
		}
		for (Delivery unstarted : this.holdings.drainWaiting()) {
			if (unstarted.settle()) {
				this.holdings.finished(unstarted);
			}
		}
		this.acker.stop(deadline);
		releaseAndLeave(deadline);
		this.leases.stop();
	}

	/**
	 * @return whether every part runs: the reader, the watchdog, the acker, all workers
	 */
	public boolean isServing() {
		return this.reader.isServing() && this.leases.isServing() && this.acker.isServing() && this.workers.isServing();
	}

	/**
	 * @return how many messages are held: read, running, or awaiting their ack
	 */
	public int held() {
		return this.holdings.size();
	}

	/**
	 * @return how many hung handlers were abandoned to a replacement worker
	 */
	public long abandonedHandlers() {
		return this.workers.abandonedCount();
	}

	private void releaseAndLeave(long deadlineNanos) {
		// on a thread of its own: with Redis gone, a command waits for the client's
		// command timeout (60 s by default), longer than a shutdown should take
		Thread releaser = DaemonThreads.factory(this.context.threadName("release-")).newThread(this::releaseAndLeave);
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
			logger.info("Redis did not answer in time to release the unprocessed messages of " + this.context.label()
					+ "; they are redelivered after the visibility timeout");
		}
	}

	/**
	 * Gives back every entry this consumer holds except those of handlers still running:
	 * read but not started, or read by a blocking read that the stop interrupted. Other
	 * consumers recover them at once, and the delivery they counted is given back (it
	 * never reached a handler).
	 */
	private void releaseAndLeave() {
		int released = 0;
		try {
			for (String stream : this.context.streams()) {
				List<Object> args = new ArrayList<>(List.of(this.context.group(), this.context.consumer(),
						this.context.settings().visibilityTimeout().toMillis()));
				args.addAll(this.holdings.entryIds(stream, true));
				released += (int) ScriptRunner
					.asLong(this.context.scripts().run(Scripts.RELEASE, List.of(stream), args.toArray()).get(0));
			}
			this.context.scripts()
				.run(Scripts.FORGET_CONSUMER, this.context.streams(), this.context.group(), this.context.consumer());
		}
		catch (RuntimeException ex) {
			logger.info("Could not release the unprocessed messages of " + this.context.label()
					+ "; they are redelivered after the visibility timeout: " + Failures.describe(ex));
		}
		if (released > 0) {
			logger.debug("Released " + released + " unprocessed message(s) of " + this.context.label());
		}
	}

}
