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
package io.github.delayqueue.core.event;

/**
 * Receives the events of an engine's listener containers (see {@link DelayQueueEvent});
 * register it with {@code DelayQueueEngineBuilder.eventListener}. It runs on the engine's
 * event thread: a slow listener delays the next events, not delivery; one that throws is
 * logged at WARN and still receives the next events.
 */
@FunctionalInterface
public interface DelayQueueEventListener {

	/** How many events may wait for the listeners before newer ones are dropped. */
	int MAX_WAITING = 10_000;

	/**
	 * Receives one event.
	 * @param event the event
	 */
	void onEvent(DelayQueueEvent event);

}
