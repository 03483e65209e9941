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

package io.github.delayqueue.core.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * Owns the listener containers built from {@link DelayListenerEndpoint endpoints} (by
 * {@code @DelayListener} or registered programmatically) and ties them to the application
 * context's lifecycle: they start after the context is refreshed (those whose
 * {@code autoStartup} is on) and stop, gracefully, before the Redis connection factory
 * does. Containers are looked up by endpoint id.
 */
public class DelayListenerEndpointRegistry implements SmartLifecycle, DisposableBean {

	/**
	 * The phase of the registry: late to start and early to stop, so that listeners stop
	 * before the connection factory (phase 0) and before the web server stops accepting
	 * requests.
	 */
	public static final int DEFAULT_PHASE = Integer.MAX_VALUE - 100;

	private static final Log logger = LogFactory.getLog(DelayListenerEndpointRegistry.class);

	private final Map<String, DelayQueueListenerContainer> containers = new LinkedHashMap<>();

	private final Map<String, String> descriptions = new LinkedHashMap<>();

	private final Object monitor = new Object();

	private volatile boolean running;

	/**
	 * Builds the container of an endpoint with a factory and registers it; if the
	 * registry is already running, starts it (when its auto-startup is on).
	 * @param endpoint the endpoint
	 * @param factory the factory
	 * @return the container
	 * @throws IllegalStateException when another endpoint has the same id
	 */
	public DelayQueueListenerContainer registerListenerContainer(DelayListenerEndpoint endpoint,
			DelayListenerContainerFactory factory) {
		synchronized (this.monitor) {
			String other = this.descriptions.get(endpoint.getId());
			if (other != null) {
				throw new IllegalStateException("Two delay listeners have the id '" + endpoint.getId() + "': " + other
						+ " and " + endpoint.getDescription() + "; give one another id");
			}
			DelayQueueListenerContainer container = factory.createContainer(endpoint);
			this.containers.put(endpoint.getId(), container);
			this.descriptions.put(endpoint.getId(), endpoint.getDescription());
			if (this.running && container.isAutoStartup()) {
				container.start();
			}
			return container;
		}
	}

	/**
	 * Returns the container of an endpoint.
	 * @param id the endpoint id
	 * @return the container, or {@code null}
	 */
	public DelayQueueListenerContainer getListenerContainer(String id) {
		synchronized (this.monitor) {
			return this.containers.get(id);
		}
	}

	/**
	 * Returns the ids of the registered endpoints.
	 * @return the ids, in registration order
	 */
	public List<String> getListenerContainerIds() {
		synchronized (this.monitor) {
			return List.copyOf(this.containers.keySet());
		}
	}

	/**
	 * Returns every registered container.
	 * @return the containers, in registration order
	 */
	public Collection<DelayQueueListenerContainer> getListenerContainers() {
		synchronized (this.monitor) {
			return Collections.unmodifiableList(new ArrayList<>(this.containers.values()));
		}
	}

	/**
	 * Returns the queues the registered containers consume.
	 * @return the queue names, sorted
	 */
	public SortedSet<String> getQueues() {
		synchronized (this.monitor) {
			SortedSet<String> queues = new TreeSet<>();
			this.containers.values().forEach((container) -> queues.add(container.queue()));
			return queues;
		}
	}

	@Override
	public void start() {
		synchronized (this.monitor) {
			for (DelayQueueListenerContainer container : this.containers.values()) {
				if (container.isAutoStartup()) {
					container.start();
				}
			}
			this.running = true;
		}
	}

	@Override
	public void stop() {
		stop(() -> {
		});
	}

	/**
	 * Stops every container at once, each releasing what it has not started and waiting
	 * up to its shutdown timeout for running handlers; runs the callback when all are
	 * stopped.
	 * @param callback the callback
	 */
	@Override
	public void stop(Runnable callback) {
		List<DelayQueueListenerContainer> running;
		synchronized (this.monitor) {
			this.running = false;
			running = this.containers.values().stream().filter(DelayQueueListenerContainer::isRunning).toList();
		}
		if (running.isEmpty()) {
			callback.run();
			return;
		}
		// in parallel: each may wait up to its shutdown timeout for running handlers
		AtomicInteger left = new AtomicInteger(running.size());
		for (DelayQueueListenerContainer container : running) {
			Thread stopper = new Thread(() -> {
				try {
					container.stop();
				}
				catch (RuntimeException ex) {
					logger.warn("Cannot stop listener container of queue '" + container.queue() + "': " + ex);
				}
				finally {
					if (left.decrementAndGet() == 0) {
						callback.run();
					}
				}
			}, "delayqueue-stop-" + container.queue() + "-" + container.group());
			stopper.setDaemon(true);
			stopper.start();
		}
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	@Override
	public int getPhase() {
		return DEFAULT_PHASE;
	}

	@Override
	public void destroy() {
		synchronized (this.monitor) {
			for (DelayQueueListenerContainer container : this.containers.values()) {
				try {
					if (container.isRunning()) {
						container.stop();
					}
				}
				catch (RuntimeException ex) {
					logger.warn("Cannot stop listener container of queue '" + container.queue() + "': " + ex);
				}
			}
		}
	}

}
