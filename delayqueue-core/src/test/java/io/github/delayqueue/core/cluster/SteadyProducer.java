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

package io.github.delayqueue.core.cluster;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntFunction;

/**
 * Sends a message every 20 ms on a thread of its own until stopped, recording when each
 * send was acknowledged and how long each took. A send refused while a master is down is
 * allowed (it must only be quick).
 */
final class SteadyProducer {

	/** Payload → when its send returned (nano time). */
	final Map<String, Long> acknowledgedAt = new ConcurrentHashMap<>();

	/** How long each send took, acknowledged or refused. */
	final List<Long> sendMillis = new CopyOnWriteArrayList<>();

	private final AtomicBoolean producing = new AtomicBoolean(true);

	private final Thread thread;

	/**
	 * @param send sends message {@code i} and returns its payload
	 */
	SteadyProducer(IntFunction<String> send) {
		this.thread = new Thread(() -> {
			for (int i = 0; this.producing.get(); i++) {
				long started = System.nanoTime();
				try {
					this.acknowledgedAt.put(send.apply(i), System.nanoTime());
				}
				catch (RuntimeException ex) {
					// refused while the master is down
				}
				this.sendMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
				try {
					Thread.sleep(20);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		});
		this.thread.start();
	}

	void stop() throws InterruptedException {
		this.producing.set(false);
		this.thread.join();
	}

	/**
	 * @return the payloads that must arrive: acknowledged more than 0.5 s before the kill
	 * (a send acknowledged in the last moments may be lost with asynchronous replication)
	 * or after the promotion
	 */
	List<String> mustArrive(long killedAt, long promotedAt) {
		long window = killedAt - TimeUnit.MILLISECONDS.toNanos(500);
		return this.acknowledgedAt.entrySet()
			.stream()
			.filter((sent) -> sent.getValue() < window || sent.getValue() > promotedAt)
			.map(Map.Entry::getKey)
			.toList();
	}

	/**
	 * @return when the first send acknowledged after the promotion returned (nano time)
	 */
	long firstAcknowledgedAfter(long promotedAt) {
		return this.acknowledgedAt.values().stream().filter((at) -> at > promotedAt).min(Long::compare).orElseThrow();
	}

}
