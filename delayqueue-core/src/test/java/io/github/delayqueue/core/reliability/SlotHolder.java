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
 * A consumer process for the concurrency-limit crash tests: listens with 4 workers and a
 * visibility timeout of 2 s, prints {@code HANDLING <id>} when a handler starts and never
 * finishes it, holding its concurrency slot until the test kills or stops the process.
 * Arguments: port, queue, group.
 */
public final class SlotHolder {

	private SlotHolder() {
	}

	public static void main(String[] args) throws Exception {
		DelayQueueEngine engine = ReliabilitySupport.childEngine(args[0]);
		DelayQueueListenerContainer container = engine
			.listenerContainer(args[1], args[2], String.class, (payload, context) -> {
				System.out.println("HANDLING " + context.id());
				System.out.flush();
				Thread.sleep(Long.MAX_VALUE);
			})
			.visibilityTimeout(Duration.ofSeconds(2))
			.concurrency(4)
			.build();
		container.start();
		System.out.println("STARTED " + container.consumerName());
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

}
