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
import io.github.delayqueue.core.DelaySchedule;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

/**
 * An application instance for the recurring-schedule fault test: declares a schedule
 * ticking every second (as every instance of an application would at start-up) and
 * listens to its queue, so its scheduler fires ticks, until the test kills it with
 * SIGKILL. Prints {@code STARTED} once listening. Arguments: port, queue, schedule name.
 */
public final class ScheduleInstance {

	private ScheduleInstance() {
	}

	public static void main(String[] args) throws Exception {
		DelayQueueEngine engine = ReliabilitySupport.childEngine(args[0]);
		DelayQueueListenerContainer container = engine
			.listenerContainer(args[1], "workers", String.class, (payload, context) -> {
			})
			.build();
		container.start();
		engine.admin()
			.schedules()
			.declare(DelaySchedule.builder(args[2], args[1]).every(Duration.ofSeconds(1)).payload("tick").build());
		System.out.println("STARTED " + container.consumerName());
		System.out.flush();
		Thread.sleep(Long.MAX_VALUE);
	}

}
