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

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import io.github.delayqueue.core.event.ContainerIdleEvent;
import io.github.delayqueue.core.event.ContainerStartedEvent;
import io.github.delayqueue.core.event.DelayQueueEvent;
import io.github.delayqueue.core.event.DelayQueueEventListener;
import io.github.delayqueue.core.event.QueuePausedEvent;
import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.core.listener.DelayMessageInterceptor;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Interceptor beans and container events in a Spring Boot application, on a real Redis:
 * an interceptor bean fills the MDC from a header for every log line of every handler, a
 * bean a listener names applies to that listener only, and container events arrive as
 * application events.
 */
@RedisTest
class InterceptorsAndEventsTests {

	private final ApplicationContextRunner runner;

	InterceptorsAndEventsTests(RedisServer redis) {
		this.runner = AllAutoConfigurations.runner(redis);
	}

	@Test
	void theMdcShowsTheTenantFromTheHeaderInEveryLogLineOfTheHandler() {
		Logger logger = (Logger) LoggerFactory.getLogger(Listeners.class);
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		logger.addAppender(appender);
		try {
			this.runner.withUserConfiguration(Listeners.class)
				.withPropertyValues("delayqueue.queues.orders.idle-event-interval=1s")
				.run((context) -> {
					DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
					for (String tenant : List.of("acme", "globex", "initech")) {
						template.send(DelayMessage.builder("order of " + tenant)
							.queue("orders")
							.header("tenant", tenant)
							.build());
						template.send(DelayMessage.builder("bill of " + tenant)
							.queue("billing")
							.header("tenant", tenant)
							.build());
					}
					template.send(DelayMessage.builder("bill of the retired")
						.queue("billing")
						.header("tenant", "retired")
						.build());
					Listeners listeners = context.getBean(Listeners.class);
					Awaitility.await()
						.atMost(Duration.ofSeconds(10))
						.until(() -> appender.list.size() == 3 * 3 * 2 && listeners.filtered.size() == 1);
					for (ILoggingEvent line : appender.list) {
						String tenant = line.getMDCPropertyMap().get("tenant");
						assertThat(tenant).as(line.getFormattedMessage()).isNotNull();
						assertThat(line.getFormattedMessage()).contains(" of " + tenant);
					}
					// cleared after each message: nothing leaks into the worker's next
					// lines
					assertThat(listeners.mdcAfter).containsOnlyNulls().hasSize(7);
					// an @Order on a @Bean method counts beside an Ordered class
					assertThat(listeners.befores).hasSize(14);
					assertThat(listeners.befores.stream()
						.collect(java.util.stream.Collectors.groupingBy((call) -> call.substring(0, call.indexOf(':')),
								java.util.stream.Collectors.mapping((call) -> call.substring(call.indexOf(':') + 2),
										java.util.stream.Collectors.toList()))))
						.hasSize(7)
						.allSatisfy((payload, calls) -> assertThat(calls).containsExactly("mdc", "timing"));
					// the retired-tenant filter is the billing listener's own
					assertThat(listeners.filtered).containsExactly("bill of the retired");
					DelayListenerEndpointRegistry registry = context.getBean(DelayListenerEndpointRegistry.class);
					assertThat(registry.getListenerContainers()).filteredOn((c) -> c.queue().equals("orders"))
						.singleElement()
						.satisfies((orders) -> assertThat(orders.interceptors()).hasSize(2));
					assertThat(registry.getListenerContainers()).filteredOn((c) -> c.queue().equals("billing"))
						.singleElement()
						.satisfies((billing) -> assertThat(billing.interceptors()).hasSize(3));
					// container events as application events
					Awaitility.await()
						.atMost(Duration.ofSeconds(10))
						.until(() -> listeners.events.stream().anyMatch(ContainerIdleEvent.class::isInstance));
					assertThat(listeners.events).filteredOn(ContainerStartedEvent.class::isInstance).hasSize(2);
					assertThat(listeners.events).filteredOn(ContainerIdleEvent.class::isInstance)
						.allMatch((event) -> event.queue().equals("orders"));
				});
		}
		finally {
			logger.detachAppender(appender);
		}
	}

	@Test
	void anEventListenerBeanMayDependOnTheEnginesBeans() {
		this.runner.withUserConfiguration(PausedAlerts.class).run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(DelayQueueAdmin.class).pause("paused-orders");
			PausedAlerts alerts = context.getBean(PausedAlerts.class);
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !alerts.paused.isEmpty());
			assertThat(alerts.paused).containsExactly("paused-orders paused: true");
		});
	}

	@Test
	void anObserverBeanMayDependOnTheEnginesBeansToo() {
		this.runner.withUserConfiguration(ForwardingObserver.class).run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(DelayQueueTemplate.class).send("forwarded", "o-1", Duration.ZERO);
			ForwardingObserver observer = context.getBean(ForwardingObserver.class);
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> observer.acked.size() == 1);
			assertThat(observer.acked).containsExactly("forwarded");
		});
	}

	@Test
	void aListenersOwnInterceptorsTakeTheirPlaceByTheirOrderWhereverItIsGiven() {
		this.runner.withUserConfiguration(OrderedInterceptors.class).run((context) -> {
			assertThat(context).hasNotFailed();
			context.getBean(DelayQueueTemplate.class).send("ordered", "o-1", Duration.ZERO);
			OrderedInterceptors interceptors = context.getBean(OrderedInterceptors.class);
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> interceptors.befores.size() == 11);
			// own ones (own...) by their order on their class, by Ordered, or on their
			// @Bean method, as the shared ones; at equal order after them
			assertThat(interceptors.befores).containsExactly("beanOrderMinus5", "ownZero", "beanOrder1", "ownClass3",
					"orderedFive", "ownOrdered7", "classOrder10", "ownTen", "beanOrder20", "unorderedClass",
					"unorderedBean");
		});
	}

	@Test
	void aListenerNamingAMissingOrWrongInterceptorFailsTheStartNamingIt() {
		this.runner.withUserConfiguration(NamesMissing.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("@DelayListener method")
				.hasMessageContaining("names the interceptor 'noSuchBean', but there is no bean of that name"));
		this.runner.withUserConfiguration(NamesWrongKind.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("names the interceptor 'notAnInterceptor', a java.lang.String, but a listener "
						+ "of one message at a time takes DelayMessageInterceptors"));
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		private static final org.slf4j.Logger log = LoggerFactory.getLogger(Listeners.class);

		final List<DelayQueueEvent> events = new CopyOnWriteArrayList<>();

		final List<String> filtered = new CopyOnWriteArrayList<>();

		final List<String> mdcAfter = new CopyOnWriteArrayList<>();

		final List<String> befores = new CopyOnWriteArrayList<>();

		/**
		 * Ordered on its class (5): runs after the MDC bean, ordered (1) on its method.
		 */
		@Bean
		Timing timing() {
			return new Timing(this.befores);
		}

		@Bean
		@Order(1)
		DelayMessageInterceptor tenantMdc() {
			return new DelayMessageInterceptor() {

				@Override
				public boolean before(Object payload, DelayMessageContext context) {
					Listeners.this.befores.add(payload + ": mdc");
					String tenant = context.headers().get("tenant");
					if (tenant != null) {
						MDC.put("tenant", tenant);
					}
					return true;
				}

				@Override
				public void after(Object payload, DelayMessageContext context) {
					MDC.remove("tenant");
					Listeners.this.mdcAfter.add(MDC.get("tenant"));
				}

			};
		}

		@Bean
		DelayMessageInterceptor retiredTenantFilter() {
			return new DelayMessageInterceptor() {

				@Override
				public boolean before(Object payload, DelayMessageContext context) {
					if ("retired".equals(context.headers().get("tenant"))) {
						Listeners.this.filtered.add((String) payload);
						return false;
					}
					return true;
				}

			};
		}

		@DelayListener(queue = "orders", group = "shop")
		void order(String order) {
			log.info("received {}", order);
			log.info("charging {}", order);
			log.info("done with {}", order);
		}

		@DelayListener(queue = "billing", group = "shop", interceptors = "retiredTenantFilter")
		void bill(String bill) {
			log.info("received {}", bill);
			log.info("charging {}", bill);
			log.info("done with {}", bill);
		}

		@EventListener
		void on(DelayQueueEvent event) {
			this.events.add(event);
		}

	}

	static final class Timing implements DelayMessageInterceptor, Ordered {

		private final List<String> befores;

		Timing(List<String> befores) {
			this.befores = befores;
		}

		@Override
		public boolean before(Object payload, DelayMessageContext context) {
			this.befores.add(payload + ": timing");
			return true;
		}

		@Override
		public int getOrder() {
			return 5;
		}

	}

	/** Shared and own interceptors, ordered every way there is, and some not. */
	@Configuration(proxyBeanMethods = false)
	static class OrderedInterceptors {

		final List<String> befores = new CopyOnWriteArrayList<>();

		@Bean
		@Order(-5)
		DelayMessageInterceptor beanOrderMinus5() {
			return new Named("beanOrderMinus5", this.befores);
		}

		@Bean
		@Order(1)
		DelayMessageInterceptor beanOrder1() {
			return new Named("beanOrder1", this.befores);
		}

		@Bean
		DelayMessageInterceptor orderedFive() {
			return new OrderedNamed("orderedFive", 5, this.befores);
		}

		@Bean
		DelayMessageInterceptor classOrder10() {
			return new Order10("classOrder10", this.befores);
		}

		@Bean
		@Order(20)
		DelayMessageInterceptor beanOrder20() {
			return new Named("beanOrder20", this.befores);
		}

		@Bean
		DelayMessageInterceptor unorderedClass() {
			return new Named("unorderedClass", this.befores);
		}

		@Bean
		DelayMessageInterceptor unorderedBean() {
			return new Named("unorderedBean", this.befores);
		}

		@Bean
		@Order(10)
		DelayMessageInterceptor ownTen() {
			return new Named("ownTen", this.befores);
		}

		@Bean
		@Order(0)
		DelayMessageInterceptor ownZero() {
			return new Named("ownZero", this.befores);
		}

		@Bean
		DelayMessageInterceptor ownClass3() {
			return new Order3("ownClass3", this.befores);
		}

		@Bean
		DelayMessageInterceptor ownOrdered7() {
			return new OrderedNamed("ownOrdered7", 7, this.befores);
		}

		@DelayListener(queue = "ordered", group = "shop",
				interceptors = { "ownTen", "ownZero", "ownClass3", "ownOrdered7" })
		void order(String order) {
		}

	}

	/** Records its name at each {@code before}. */
	static class Named implements DelayMessageInterceptor {

		private final String name;

		private final List<String> befores;

		Named(String name, List<String> befores) {
			this.name = name;
			this.befores = befores;
		}

		@Override
		public boolean before(Object payload, DelayMessageContext context) {
			this.befores.add(this.name);
			return true;
		}

	}

	static final class OrderedNamed extends Named implements Ordered {

		private final int order;

		OrderedNamed(String name, int order, List<String> befores) {
			super(name, befores);
			this.order = order;
		}

		@Override
		public int getOrder() {
			return this.order;
		}

	}

	@Order(3)
	static final class Order3 extends Named {

		Order3(String name, List<String> befores) {
			super(name, befores);
		}

	}

	@Order(10)
	static final class Order10 extends Named {

		Order10(String name, List<String> befores) {
			super(name, befores);
		}

	}

	/** Reads the queue's state when it hears of a pause: it needs the admin bean. */
	@Configuration(proxyBeanMethods = false)
	static class PausedAlerts implements DelayQueueEventListener {

		final List<String> paused = new CopyOnWriteArrayList<>();

		private final DelayQueueAdmin admin;

		PausedAlerts(DelayQueueAdmin admin) {
			this.admin = admin;
		}

		@Override
		public void onEvent(DelayQueueEvent event) {
			if (event instanceof QueuePausedEvent pause) {
				this.paused.add(pause.queue() + " paused: " + this.admin.controls(pause.queue()).paused());
			}
		}

		@DelayListener(queue = "paused-orders", group = "shop")
		void order(String order) {
		}

	}

	/** An observer that would send on: it needs the template bean. */
	@Configuration(proxyBeanMethods = false)
	static class ForwardingObserver implements DelayQueueObserver {

		final List<String> acked = new CopyOnWriteArrayList<>();

		private final DelayQueueTemplate template;

		ForwardingObserver(DelayQueueTemplate template) {
			this.template = template;
		}

		@Override
		public void acked(String queue, String group, Duration processing) {
			if (this.template != null) {
				this.acked.add(queue);
			}
		}

		@DelayListener(queue = "forwarded", group = "shop")
		void order(String order) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NamesMissing {

		@DelayListener(queue = "orders", group = "shop", interceptors = "noSuchBean")
		void order(String order) {
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class NamesWrongKind {

		@Bean
		String notAnInterceptor() {
			return "not an interceptor";
		}

		@DelayListener(queue = "orders", group = "shop", interceptors = "notAnInterceptor")
		void order(String order) {
		}

	}

}
