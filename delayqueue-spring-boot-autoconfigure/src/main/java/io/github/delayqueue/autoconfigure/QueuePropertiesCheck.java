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

import java.util.Set;
import java.util.TreeSet;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Warns at start-up about {@code delayqueue.queues.<name>} entries that match no listener
 * of the application and no queue in Redis: a typo in a queue name would otherwise leave
 * its settings silently unused.
 */
class QueuePropertiesCheck implements SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(QueuePropertiesCheck.class);

	private final DelayQueueProperties properties;

	private final DelayQueueEngine engine;

	private final ObjectProvider<DelayListenerEndpointRegistry> listeners;

	QueuePropertiesCheck(DelayQueueProperties properties, DelayQueueEngine engine,
			ObjectProvider<DelayListenerEndpointRegistry> listeners) {
		this.properties = properties;
		this.engine = engine;
		this.listeners = listeners;
	}

	@Override
	public void afterSingletonsInstantiated() {
		Set<String> unmatched = new TreeSet<>(this.properties.getQueues().keySet());
		this.listeners.ifAvailable((registry) -> unmatched.removeAll(registry.getQueues()));
		if (unmatched.isEmpty()) {
			return;
		}
		Set<String> known;
		try {
			known = this.engine.admin().queues();
		}
		catch (RuntimeException ex) {
			// Redis down: the listeners were checked, the queues in Redis cannot be
			logger.debug("Cannot list the queues in Redis to check delayqueue.queues entries: " + ex.getMessage());
			return;
		}
		unmatched.removeAll(known);
		for (String queue : unmatched) {
			logger.warn("delayqueue.queues." + queue + " matches no @DelayListener of this application and no queue "
					+ "in Redis " + known + ": is the queue name misspelled? (If this application only sends to a "
					+ "new queue, its first send registers it.)");
		}
	}

}
