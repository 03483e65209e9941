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

package io.github.delayqueue.core.reliability;

import java.time.Duration;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;

/**
 * An ordered listener in a JVM of its own, for tests that kill it: arguments port, queue,
 * partitions, handling ms; a payload starting with {@code fail} fails its first attempt
 * (retried in place after 10 s). It prints {@code HANDLING <payload> <attempt>} as each
 * handler starts.
 */
public final class OrderedConsumer {

	private OrderedConsumer() {
	}

	public static void main(String[] args) throws Exception {
		String queue = args[1];
		long handlingMillis = Long.parseLong(args[3]);
		DelayQueueEngine engine = ReliabilitySupport.childEngine(args[0], queue, Integer.parseInt(args[2]));
		DelayQueueListenerContainer container = engine
			.listenerContainer(queue, "g", String.class, (payload, context) -> {
				System.out.println("HANDLING " + payload + " " + context.attempt());
				System.out.flush();
				Thread.sleep(handlingMillis);
				if (payload.startsWith("fail") && context.attempt() == 1) {
					throw new IllegalStateException("first attempt of " + payload);
				}
			})
			.ordered(true)
			.visibilityTimeout(Duration.ofSeconds(2))
			.concurrency(1)
			.prefetch(50)
			.retryPolicy(RetryPolicy.fixed(5, Duration.ofSeconds(10)))
			.build();
		container.start();
		System.out.println("STARTED " + container.consumerName());
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

}
