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

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.runtime.DaemonThreads;
import io.github.delayqueue.core.internal.runtime.Failures;

/**
 * The last step of a container's stop: gives back, in each partition, the entries its
 * consumer holds that no handler runs, and removes the consumer from the group where it
 * holds nothing ({@code release.lua}, {@code forget-consumer.lua}), on a thread of its
 * own and waited for a few seconds at most.
 */
final class ShutdownRelease {

	private static final Log logger = LogFactory.getLog(ShutdownRelease.class);

	private static final long RELEASE_WAIT_MILLIS = 5000;

	private final ListenerContext context;

	private final List<ListenerContext> partitions;

	private final Holdings holdings;

	/**
	 * @param context the container's context (partition 0's)
	 * @param partitions the contexts of the queue's partitions
	 * @param holdings what the container holds: the entries of running handlers are kept
	 */
	ShutdownRelease(ListenerContext context, List<ListenerContext> partitions, Holdings holdings) {
		this.context = context;
		this.partitions = partitions;
		this.holdings = holdings;
	}

	/**
	 * Releases, waiting until the shutdown's deadline (between 1 and 5 s): with Redis
	 * gone the entries are redelivered after the visibility timeout instead.
	 * @param deadlineNanos the shutdown's deadline (System.nanoTime)
	 */
	void run(long deadlineNanos) {
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
		for (ListenerContext partition : this.partitions) {
			releaseAndLeave(partition);
		}
	}

	private void releaseAndLeave(ListenerContext partition) {
		int released = 0;
		try {
			for (String stream : partition.streams()) {
				List<Object> args = new ArrayList<>(List.of(partition.group(), partition.consumer(),
						partition.settings().visibilityTimeout().toMillis()));
				args.addAll(this.holdings.entryIds(stream, true));
				released += (int) ScriptRunner
					.asLong(partition.scripts().run(Scripts.RELEASE, List.of(stream), args.toArray()).get(0));
			}
			partition.scripts()
				.run(Scripts.FORGET_CONSUMER, partition.streams(), partition.group(), partition.consumer());
		}
		catch (RuntimeException ex) {
			logger.info("Could not release the unprocessed messages of " + partition.label()
					+ "; they are redelivered after the visibility timeout: " + Failures.describe(ex));
		}
		if (released > 0) {
			logger.debug("Released " + released + " unprocessed message(s) of " + partition.label());
		}
	}

}
