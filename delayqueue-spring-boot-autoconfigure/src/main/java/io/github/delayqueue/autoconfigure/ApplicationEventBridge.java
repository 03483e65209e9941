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
package io.github.delayqueue.autoconfigure;

import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.event.DelayQueueEvent;
import io.github.delayqueue.core.event.DelayQueueEventListener;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.support.AbstractApplicationContext;

/**
 * Hands the engine's container events to the {@link DelayQueueEventListener} beans, then
 * publishes them as application events (an {@code @EventListener} method taking a
 * {@code ContainerIdleEvent}, or any {@link DelayQueueEvent}, receives them); all on the
 * engine's event thread. Each listener is called on its own: one that throws is logged
 * and the others still get the event (see {@link GuardedApplicationEvents}). The beans
 * are looked up at each event, not when the engine is made, so that a listener may depend
 * on the engine's beans (the admin, the template).
 */
final class ApplicationEventBridge implements DelayQueueEventListener {

	private static final Log logger = LogFactory.getLog(ApplicationEventBridge.class);

	private final ApplicationEventPublisher publisher;

	private final ObjectProvider<DelayQueueEventListener> listeners;

	ApplicationEventBridge(ApplicationEventPublisher publisher, ObjectProvider<DelayQueueEventListener> listeners) {
		this.publisher = publisher;
		this.listeners = listeners;
	}

	@Override
	public void onEvent(DelayQueueEvent event) {
		List<DelayQueueEventListener> beans;
		try {
			beans = this.listeners.orderedStream().toList();
		}
		catch (RuntimeException ex) {
			// a listener bean that cannot be made: the application events still go out
			logger.warn("Cannot look up the DelayQueueEventListener beans for " + event + ": " + ex, ex);
			beans = List.of();
		}
		for (DelayQueueEventListener listener : beans) {
			try {
				listener.onEvent(event);
			}
			catch (RuntimeException | Error ex) {
				logger.warn("The container event listener " + listener + " failed on " + event + ": " + ex, ex);
			}
		}
		if (this.publisher instanceof AbstractApplicationContext context) {
			GuardedApplicationEvents.publish(context, event);
		}
		else {
			// another publisher: it calls its listeners as it does
			this.publisher.publishEvent(event);
		}
	}

	@Override
	public String toString() {
		return "application event publisher";
	}

}
