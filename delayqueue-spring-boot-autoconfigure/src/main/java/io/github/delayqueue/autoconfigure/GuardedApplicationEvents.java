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

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.PayloadApplicationEvent;
import org.springframework.context.event.SimpleApplicationEventMulticaster;
import org.springframework.context.support.AbstractApplicationContext;

/**
 * Publishes an object as an application event, as
 * {@link AbstractApplicationContext#publishEvent(Object)} does (to the context's
 * listeners, {@code @EventListener} methods included, by their order, then to its
 * parent's), except that each listener is called on its own: one that throws is logged
 * (WARN, or DEBUG while the context closes) and the others still get the event. Spring's
 * multicaster stops at the first listener that throws, so that one failing
 * {@code @EventListener} would cost every later one its events.
 * <p>
 * The listeners are those the context has when the event is published (its
 * {@link AbstractApplicationContext#getApplicationListeners() listeners} and its
 * {@link ApplicationListener} beans), matched and ordered by a multicaster of this
 * class's own, as the context's would. Before the context registered its listeners the
 * event goes through {@code publishEvent} (which holds it until then); once the context
 * is closed it is dropped.
 */
final class GuardedApplicationEvents {

	private static final Log logger = LogFactory.getLog(GuardedApplicationEvents.class);

	private GuardedApplicationEvents() {
	}

	/**
	 * Publishes an event to a context's listeners, then to those of its parents.
	 * @param context the context
	 * @param event the event
	 */
	static void publish(AbstractApplicationContext context, Object event) {
		ApplicationContext current = context;
		boolean parentsToo = true;
		while (current != null && parentsToo) {
			if (current instanceof AbstractApplicationContext each) {
				parentsToo = multicast(each, event);
			}
			else {
				// its publishEvent goes on to its parents
				parentsToo = false;
				try {
					current.publishEvent(event);
				}
				catch (RuntimeException ex) {
					logger.warn("A listener of " + current + " failed on " + event + ": " + ex, ex);
				}
			}
			current = current.getParent();
		}
	}

	/**
	 * @return whether the parents are still to get the event
	 */
	private static boolean multicast(AbstractApplicationContext context, Object event) {
		if (!context.isActive()) {
			logger.debug("Not published as an application event: " + event + "; " + context
					+ " is closed or was never refreshed");
			return true;
		}
		ConfigurableListableBeanFactory beans;
		try {
			beans = context.getBeanFactory();
		}
		catch (IllegalStateException ex) {
			logger.debug("Not published as an application event: " + event + "; " + ex.getMessage());
			return true;
		}
		if (!beans.isConfigurationFrozen()) {
			// refreshing, its listeners not registered yet: the context holds the event
			// until they are, and passes it on to its parents
			try {
				context.publishEvent(event);
			}
			catch (RuntimeException ex) {
				failed(context, "a listener", event, ex);
			}
			return false;
		}
		Multicaster multicaster = new Multicaster(context, beans);
		context.getApplicationListeners().forEach(multicaster::addApplicationListener);
		try {
			if (!context.isClosed()) {
				// those not made yet (lazy, or of another scope): the context's
				// multicaster
				// has them by name too; while it closes, none is made any more
				for (String name : beans.getBeanNamesForType(ApplicationListener.class, true, false)) {
					multicaster.addApplicationListenerBean(name);
				}
			}
			PayloadApplicationEvent<Object> applicationEvent = new PayloadApplicationEvent<>(context, event);
			multicaster.multicastEvent(applicationEvent, applicationEvent.getResolvableType());
		}
		catch (RuntimeException ex) {
			// finding the listeners failed (a listener bean that cannot be made)
			failed(context, "finding the listeners", event, ex);
		}
		return true;
	}

	private static void failed(AbstractApplicationContext context, String what, Object event, Throwable ex) {
		if (context.isClosed()) {
			logger.debug(capitalized(what) + " failed on " + event + " while the context closes: " + ex);
		}
		else {
			logger.warn(capitalized(what) + " failed on " + event + "; the other listeners got it: " + ex, ex);
		}
	}

	private static String capitalized(String text) {
		return Character.toUpperCase(text.charAt(0)) + text.substring(1);
	}

	/** Calls each listener on its own. */
	private static final class Multicaster extends SimpleApplicationEventMulticaster {

		private final AbstractApplicationContext context;

		Multicaster(AbstractApplicationContext context, ConfigurableListableBeanFactory beans) {
			super(beans);
			this.context = context;
		}

		@Override
		protected void invokeListener(ApplicationListener<?> listener, ApplicationEvent event) {
			try {
				super.invokeListener(listener, event);
			}
			catch (RuntimeException | Error ex) {
				failed(this.context, "the application event listener " + listener,
						((PayloadApplicationEvent<?>) event).getPayload(), ex);
			}
		}

	}

}
