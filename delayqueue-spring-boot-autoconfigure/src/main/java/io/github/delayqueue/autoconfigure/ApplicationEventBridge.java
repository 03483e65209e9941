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

import org.springframework.context.ApplicationEventPublisher;

/**
 * Publishes the engine's container events as application events: an
 * {@code @EventListener} method taking a {@code ContainerIdleEvent} (or any
 * {@link DelayQueueEvent}) receives them, on the engine's event thread.
 */
final class ApplicationEventBridge implements DelayQueueEventListener {

	private static final Log logger = LogFactory.getLog(ApplicationEventBridge.class);

	private final ApplicationEventPublisher publisher;

	ApplicationEventBridge(ApplicationEventPublisher publisher) {
		this.publisher = publisher;
	}

	@Override
	public void onEvent(DelayQueueEvent event) {
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
