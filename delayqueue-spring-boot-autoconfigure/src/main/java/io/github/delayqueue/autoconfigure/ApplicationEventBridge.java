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

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.event.DelayQueueEvent;
import io.github.delayqueue.core.event.DelayQueueEventListener;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes the engine's container events as application events (an
 * {@code @EventListener} method taking a {@code ContainerIdleEvent}, or any
 * {@link DelayQueueEvent}, receives them), then hands them to the
 * {@link DelayQueueEventListener} beans; all on the engine's event thread. The beans are
 * looked up at each event, not when the engine is made, so that a listener may depend on
 * the engine's beans (the admin, the template).
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
		this.listeners.orderedStream().forEach((listener) -> {
			try {
				listener.onEvent(event);
			}
			catch (RuntimeException | Error ex) {
				logger.warn("The container event listener " + listener + " failed on " + event + ": " + ex, ex);
			}
		});
		try {
			this.publisher.publishEvent(event);
		}
		catch (IllegalStateException ex) {
			String message = String.valueOf(ex.getMessage());
			if (!message.contains("not initialized") && !message.contains("closed")) {
				// a listener's own failure: the dispatcher logs it
				throw ex;
			}
			// the context is closing: nobody can receive it
			logger.debug("Cannot publish " + event + " as an application event: " + message);
		}
	}

	@Override
	public String toString() {
		return "application event publisher";
	}

}
