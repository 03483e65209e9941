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

/**
 * A consumer process for crash tests: listens on a queue with one worker and a prefetch
 * of four, prints {@code HANDLING <id> <attempt>} when a handler starts and then never
 * finishes it, until the test kills the process with SIGKILL; or, given a fourth
 * argument, finishes it after that many milliseconds and prints
 * {@code DONE <id> <attempt>}. Arguments: port, queue, group[, handling ms].
 */
public final class CrashingConsumer {

	private CrashingConsumer() {
	}

	public static void main(String[] args) throws Exception {
		DelayQueueEngine engine = ReliabilitySupport.childEngine(args[0]);
		long handlingMillis = (args.length > 3) ? Long.parseLong(args[3]) : Long.MAX_VALUE;
		DelayQueueListenerContainer container = engine
			.listenerContainer(args[1], args[2], String.class, (payload, context) -> {
				System.out.println("HANDLING " + context.id() + " " + context.attempt());
				System.out.flush();
				Thread.sleep(handlingMillis);
				System.out.println("DONE " + context.id() + " " + context.attempt());
				System.out.flush();
			})
			.visibilityTimeout(Duration.ofSeconds(2))
			.concurrency(1)
			.prefetch(4)
			.build();
		container.start();
		System.out.println("STARTED " + container.consumerName());
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

}
