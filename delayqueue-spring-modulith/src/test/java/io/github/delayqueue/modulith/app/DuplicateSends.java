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

package io.github.delayqueue.modulith.app;

import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.SendResult;

import org.springframework.stereotype.Component;

/**
 * Counts the sends Redis found a duplicate of: a message with their id still scheduled.
 */
@Component
public class DuplicateSends implements DelayQueueObserver {

	/** How many sends in this JVM found their message id still scheduled. */
	public static final AtomicLong COUNT = new AtomicLong();

	@Override
	public void sent(SendResult result) {
		if (result.status() == SendResult.Status.DUPLICATE) {
			COUNT.incrementAndGet();
		}
	}

}
