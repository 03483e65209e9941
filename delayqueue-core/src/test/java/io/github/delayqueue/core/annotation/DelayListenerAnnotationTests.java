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

package io.github.delayqueue.core.annotation;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelaySchedule;
import io.github.delayqueue.core.ScheduleInfo;
import io.github.delayqueue.core.config.DelayListenerContainerFactory;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link DelayListener} in a plain Spring application ({@link EnableDelayListeners}),
 * against a real Redis: parameters, placeholders, retries, lifecycle, and start-up errors
 * that name the method.
 */
@RedisTest
class DelayListenerAnnotationTests {

	private final RedisConnectionFactory connectionFactory;

	private AnnotationConfigApplicationContext context;

	DelayListenerAnnotationTests(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	private AnnotationConfigApplicationContext start(Map<String, Object> properties, Class<?>... listeners) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test", properties));
		context.registerBean(DelayQueueEngine.class, () -> DelayQueueEngine.builder(this.connectionFactory).build());
		context.register(Enabled.class);
		context.register(listeners);
		this.context = context;
		context.refresh();
		return context;
	}

	private DelayQueueEngine engine() {
		return this.context.getBean(DelayQueueEngine.class);
	}

	@Test
	void deliversPayloadContextAndHeadersAfterTheDelay() throws Exception {
		start(Map.of(), OrderListener.class);
		Instant sent = Instant.now();
		engine().template()
			.send(DelayMessage.builder(new Order("o-1", 42))
				.queue("orders")
				.delay(Duration.ofMillis(300))
				.header("tenant", "acme")
				.build());
		Received received = this.context.getBean(OrderListener.class).received.poll(10, TimeUnit.SECONDS);
		assertThat(received).isNotNull();
		assertThat(received.order()).isEqualTo(new Order("o-1", 42));
		assertThat(received.tenant()).isEqualTo("acme");
		assertThat(received.headers()).containsEntry("tenant", "acme");
		assertThat(received.context().queue()).isEqualTo("orders");
		assertThat(received.context().group()).isEqualTo("default");
		assertThat(received.context().attempt()).isEqualTo(1);
		assertThat(received.context().dueTime()).isAfterOrEqualTo(sent.plusMillis(300).minusMillis(50));
	}

	@Test
	void resolvesPlaceholdersAndDefaultsTheGroupToTheApplicationName() {
		start(Map.of("app.queue", "invoices", "app.concurrency", "3", "spring.application.name", "billing"),
				PlaceholderListener.class);
		DelayListenerEndpointRegistry registry = this.context.getBean(DelayListenerEndpointRegistry.class);
		DelayQueueListenerContainer container = registry.getListenerContainer("invoiceListener");
		assertThat(container.queue()).isEqualTo("invoices");
		assertThat(container.group()).isEqualTo("billing");
		assertThat(container.settings().concurrency()).isEqualTo(3);
		assertThat(container.settings().visibilityTimeout()).isEqualTo(Duration.ofSeconds(45));
		assertThat(container.settings().retryPolicy().maxAttempts()).isEqualTo(7);
		assertThat(container.settings().retryPolicy().initialBackoff()).isEqualTo(Duration.ofMillis(250));
		assertThat(container.isRunning()).isTrue();
	}

	@Test
	void deadLettersTheNonRetryableExceptionTypesOfTheAnnotationAtOnce() {
		start(Map.of(), NonRetryableListener.class);
		engine().template().send("refusing", new Order("bad-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> engine().admin().stats("refusing").dead() == 1);
		assertThat(engine().admin().deadLetters("refusing", null, 10).get(0).attempts()).isEqualTo(1);
		// other failures are retried
		engine().template().send("refusing", new Order("flaky-1", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> engine().admin().stats("refusing").dead() == 2);
		assertThat(this.context.getBean(NonRetryableListener.class).attempts).containsExactly(1, 1, 2, 3, 4, 5);
	}

	@Test
	void deadLetterListenersGetTheDeadLettersOfTheirGroup() {
		start(Map.of(), DeadLetterHandlers.class);
		engine().template().send(DelayMessage.builder(new Order("o-9", 12)).queue("declined").id("pay-o-9").build());
		DeadLetterHandlers handlers = this.context.getBean(DeadLetterHandlers.class);
		await().atMost(Duration.ofSeconds(10)).until(() -> handlers.handled.containsKey("o-9"));
		DeadLetter letter = handlers.handled.get("o-9");
		assertThat(letter.messageId()).isEqualTo("pay-o-9");
		assertThat(letter.group()).isEqualTo("default");
		assertThat(letter.attempts()).isEqualTo(1);
		assertThat(letter.errorMessage()).isEqualTo("card declined for o-9");
		// each method is a consumer of its own: both get it
		await().atMost(Duration.ofSeconds(10)).until(() -> handlers.raw.contains("pay-o-9"));
	}

	@Test
	void failsOnADeadLetterListenerWithTwoPayloadsNamingTheMethod() {
		assertStartupFails(TwoPayloadDeadLetterHandler.class, "@DeadLetterListener method",
				"TwoPayloadDeadLetterHandler.onDead", "two payload parameters");
	}

	@Test
	void decodesGenericPayloadTypes() throws Exception {
		start(Map.of(), BatchListener.class);
		engine().template().send("batches", List.of(new Order("a", 1), new Order("b", 2)), Duration.ZERO);
		List<Order> batch = this.context.getBean(BatchListener.class).received.poll(10, TimeUnit.SECONDS);
		assertThat(batch).containsExactly(new Order("a", 1), new Order("b", 2));
	}

	@Test
	void aBatchListenerTakesTheListsOfPayloadsAndOfContextsInOneOrder() throws Exception {
		start(Map.of(), OrderBatchListener.class);
		for (int i = 0; i < 5; i++) {
			engine().template().send("bulk-orders", new Order("o-" + i, i), Duration.ZERO);
		}
		OrderBatchListener listener = this.context.getBean(OrderBatchListener.class);
		List<Order> orders = new ArrayList<>();
		while (orders.size() < 5) {
			List<Order> batch = listener.received.poll(10, TimeUnit.SECONDS);
			assertThat(batch).isNotNull();
			orders.addAll(batch);
		}
		assertThat(orders).extracting(Order::id).containsExactlyInAnyOrder("o-0", "o-1", "o-2", "o-3", "o-4");
		// 5 due at once, gathered for up to 500 ms: fewer calls than messages
		assertThat(listener.calls.get()).isLessThan(5);
		assertThat(listener.mismatches.get()).isZero();
		DelayQueueListenerContainer container = this.context.getBean(DelayListenerEndpointRegistry.class)
			.getListenerContainer("bulk");
		assertThat(container.settings().batchSize()).isEqualTo(10);
		assertThat(container.settings().batchWait()).isEqualTo(Duration.ofMillis(500));
	}

	@Test
	void failsOnMisdeclaredBatchListenersNamingTheMethod() {
		assertStartupFails(BatchSizeWithoutBatch.class, "BatchSizeWithoutBatch.onOrder(Order)",
				"batchSize and batchWait apply to batch listeners: set batch = \"true\"");
		assertStartupFails(ContextListWithoutBatch.class, "ContextListWithoutBatch.onOrder(Order, List)",
				"list of DelayMessageContext, which only a batch listener takes");
		assertStartupFails(BatchOfOne.class, "BatchOfOne.onOrder(Order)",
				"a batch @DelayListener takes its payloads as a List<T>");
		assertStartupFails(BatchWithOneContext.class, "BatchWithOneContext.onOrders(List, DelayMessageContext)",
				"takes one message's context or headers");
		assertStartupFails(RawBatch.class, "RawBatch.onOrders(List)", "List of no declared element type");
	}

	@Test
	void retriesAFailingListenerThenDeadLettersTheMessage() {
		start(Map.of(), FailingListener.class);
		engine().template().send("failing", new Order("o-2", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> engine().admin().stats("failing").dead() == 1);
		DeadLetter letter = engine().admin().deadLetters("failing", null, 10).get(0);
		assertThat(letter.attempts()).isEqualTo(2);
		assertThat(letter.errorMessage()).isEqualTo("payment service down");
		assertThat(this.context.getBean(FailingListener.class).attempts).containsExactly(1, 2);
	}

	@Test
	void deadLettersAMessageWithoutARequiredHeader() {
		start(Map.of(), OrderListener.class);
		engine().template().send("orders", new Order("o-3", 1), Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> engine().admin().stats("orders").dead() == 1);
		DeadLetter letter = engine().admin().deadLetters("orders", null, 10).get(0);
		assertThat(letter.errorMessage()).contains("has no header 'tenant'").contains("OrderListener.onOrder");
		assertThat(this.context.getBean(OrderListener.class).received).isEmpty();
	}

	@Test
	void leavesAListenerWithoutAutoStartupStoppedUntilStarted() throws Exception {
		start(Map.of(), ManualListener.class);
		DelayQueueListenerContainer container = this.context.getBean(DelayListenerEndpointRegistry.class)
			.getListenerContainer("manual");
		assertThat(container.isRunning()).isFalse();
		engine().template().send("manual", new Order("o-4", 1), Duration.ZERO);
		container.start();
		assertThat(this.context.getBean(ManualListener.class).received.poll(10, TimeUnit.SECONDS))
			.isEqualTo(new Order("o-4", 1));
	}

	@Test
	void stopsListenersWhenTheContextCloses() {
		start(Map.of(), OrderListener.class);
		DelayListenerEndpointRegistry registry = this.context.getBean(DelayListenerEndpointRegistry.class);
		DelayQueueListenerContainer container = registry.getListenerContainers().iterator().next();
		assertThat(container.isRunning()).isTrue();
		this.context.close();
		assertThat(container.isRunning()).isFalse();
		assertThat(registry.isRunning()).isFalse();
	}

	@Test
	void usesANamedContainerFactory() {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.registerBean(DelayQueueEngine.class, () -> DelayQueueEngine.builder(this.connectionFactory).build());
		context.registerBean("slowFactory", DelayListenerContainerFactory.class, () -> {
			DelayListenerContainerFactory factory = new DelayListenerContainerFactory(
					context.getBean(DelayQueueEngine.class));
			factory.getSettings().concurrency(1).shutdownTimeout(Duration.ofSeconds(3));
			return factory;
		});
		context.register(Enabled.class, FactoryListener.class);
		this.context = context;
		context.refresh();
		DelayQueueListenerContainer container = context.getBean(DelayListenerEndpointRegistry.class)
			.getListenerContainer("withFactory");
		assertThat(container.settings().concurrency()).isEqualTo(1);
		assertThat(container.settings().shutdownTimeout()).isEqualTo(Duration.ofSeconds(3));
	}

	@Test
	void recurringDeclarationsBesideAListenerAreRegisteredAndDeliverTheirPayload() throws Exception {
		start(Map.of("app.every", "200ms"), RecurringListener.class);
		RecurringListener listener = this.context.getBean(RecurringListener.class);
		Order order = listener.received.poll(10, TimeUnit.SECONDS);
		assertThat(order).isEqualTo(new Order("tick", 1));
		List<ScheduleInfo> schedules = engine().admin().schedules().list("recurring-orders");
		assertThat(schedules).extracting(ScheduleInfo::name).containsExactly("fast", "nightly");
		assertThat(schedules.get(0).interval()).isEqualTo(Duration.ofMillis(200));
		assertThat(schedules.get(0).headers()).containsEntry("source", "annotation");
		assertThat(schedules.get(0).missedTicks()).isEqualTo(DelaySchedule.MissedTicks.SKIP);
		assertThat(schedules.get(1).cron()).isEqualTo("0 0 2 * * *");
		assertThat(schedules.get(1).zone()).isEqualTo(java.time.ZoneId.of("Europe/Paris"));
		engine().admin().schedules().delete("recurring-orders", "fast");
		engine().admin().schedules().delete("recurring-orders", "nightly");
	}

	@Test
	void failsOnAnInvalidRecurringDeclarationNamingTheMethodAndTheSchedule() {
		assertStartupFails(BadRecurring.class, "BadRecurring.onOrder(Order)", "@Recurring 'broken'",
				"Invalid cron expression 'every day'");
		assertStartupFails(ZeroRecurring.class, "ZeroRecurring.onOrder(Order)", "@Recurring 'zero'",
				"must be a positive whole number of milliseconds");
	}

	@Test
	void failsOnTwoPayloadParametersNamingTheMethod() {
		assertStartupFails(TwoPayloads.class, "@DelayListener method", "TwoPayloads.onTwo(Order, Order)",
				"has 2 payload parameters");
	}

	@Test
	void failsOnAnInvalidQueueNameNamingTheMethod() {
		assertStartupFails(BadQueue.class, "BadQueue.onBad(Order)", "Queue name 'orders{x}'");
	}

	@Test
	void failsOnAnUnreadableAttributeNamingTheMethod() {
		assertStartupFails(BadConcurrency.class, "BadConcurrency.onBad(Order)", "concurrency 'lots'");
	}

	@Test
	void failsOnAnInvalidSettingNamingTheMethod() {
		assertStartupFails(ZeroConcurrency.class, "ZeroConcurrency.onZero(Order)", "Concurrency");
	}

	@Test
	void failsOnAHeaderParameterThatIsNotAString() {
		assertStartupFails(BadHeader.class, "BadHeader.onBad(Order, int)", "must be a String");
	}

	@Test
	void failsOnAnUnknownContainerFactoryNamingTheMethod() {
		assertStartupFails(UnknownFactory.class, "UnknownFactory.onOrder(Order)", "containerFactory 'nope'");
	}

	@Test
	void failsWithoutAnEngineOrAFactory() {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.register(Enabled.class, OrderListener.class);
		assertThatExceptionOfType(BeanInitializationException.class).isThrownBy(context::refresh)
			.withMessageContaining("OrderListener.onOrder")
			.withMessageContaining("no DelayListenerContainerFactory bean named 'delayListenerContainerFactory'");
	}

	private void assertStartupFails(Class<?> listener, String... messageParts) {
		assertThatExceptionOfType(Exception.class).isThrownBy(() -> start(Map.of(), listener))
			.satisfies((ex) -> assertThat(rootMessages(ex)).contains(messageParts));
		this.context = null;
	}

	private static String rootMessages(Throwable ex) {
		StringBuilder messages = new StringBuilder();
		for (Throwable t = ex; t != null; t = t.getCause()) {
			messages.append(t.getMessage()).append('\n');
		}
		return messages.toString();
	}

	@EnableDelayListeners
	static class Enabled {

	}

	record Order(String id, long amount) {
	}

	record Received(Order order, DelayMessageContext context, String tenant, Map<String, String> headers) {
	}

	static class RecurringListener {

		final BlockingQueue<Order> received = new LinkedBlockingQueue<>();

		@DelayListener(queue = "recurring-orders")
		@Recurring(name = "fast", every = "${app.every}", payload = "{\"id\":\"tick\",\"amount\":1}",
				headers = "source=annotation", missedTicks = "skip")
		@Recurring(name = "nightly", cron = "0 0 2 * * *", zone = "Europe/Paris", payload = "{}")
		void onOrder(Order order) {
			this.received.add(order);
		}

	}

	static class BadRecurring {

		@DelayListener(queue = "orders")
		@Recurring(name = "broken", cron = "every day")
		void onOrder(Order order) {
		}

	}

	static class ZeroRecurring {

		@DelayListener(queue = "orders")
		@Recurring(name = "zero", every = "0s")
		void onOrder(Order order) {
		}

	}

	static class OrderListener {

		final BlockingQueue<Received> received = new LinkedBlockingQueue<>();

		@DelayListener(queue = "orders")
		void onOrder(Order order, DelayMessageContext context, @DelayHeader("tenant") String tenant,
				@DelayHeaders Map<String, String> headers) {
			this.received.add(new Received(order, context, tenant, headers));
		}

	}

	static class PlaceholderListener {

		@DelayListener(id = "invoiceListener", queue = "${app.queue}", concurrency = "${app.concurrency}",
				visibilityTimeout = "45s", maxAttempts = "#{3 + 4}", initialBackoff = "250ms")
		void onInvoice(Order order) {
		}

	}

	static class BatchListener {

		final BlockingQueue<List<Order>> received = new LinkedBlockingQueue<>();

		@DelayListener(queue = "batches")
		void onBatch(List<Order> orders) {
			this.received.add(orders);
		}

	}

	static class OrderBatchListener {

		final BlockingQueue<List<Order>> received = new LinkedBlockingQueue<>();

		final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();

		final java.util.concurrent.atomic.AtomicInteger mismatches = new java.util.concurrent.atomic.AtomicInteger();

		@DelayListener(id = "bulk", queue = "bulk-orders", batch = "true", batchSize = "10", batchWait = "500ms")
		void onOrders(List<Order> orders, List<DelayMessageContext> contexts) {
			this.calls.incrementAndGet();
			if (orders.size() != contexts.size()) {
				this.mismatches.incrementAndGet();
			}
			this.received.add(orders);
		}

	}

	static class BatchSizeWithoutBatch {

		@DelayListener(queue = "orders", batchSize = "10")
		void onOrder(Order order) {
		}

	}

	static class ContextListWithoutBatch {

		@DelayListener(queue = "orders")
		void onOrder(Order order, List<DelayMessageContext> contexts) {
		}

	}

	static class BatchOfOne {

		@DelayListener(queue = "orders", batch = "true")
		void onOrder(Order order) {
		}

	}

	static class BatchWithOneContext {

		@DelayListener(queue = "orders", batch = "true")
		void onOrders(List<Order> orders, DelayMessageContext context) {
		}

	}

	static class RawBatch {

		@SuppressWarnings("rawtypes")
		@DelayListener(queue = "orders", batch = "true")
		void onOrders(List orders) {
		}

	}

	static class FailingListener {

		final List<Integer> attempts = new java.util.concurrent.CopyOnWriteArrayList<>();

		@DelayListener(queue = "failing", maxAttempts = "2", initialBackoff = "50ms")
		void onOrder(Order order, DelayMessageContext context) {
			this.attempts.add(context.attempt());
			throw new IllegalStateException("payment service down");
		}

	}

	static class DeadLetterHandlers {

		final Map<String, DeadLetter> handled = new java.util.concurrent.ConcurrentHashMap<>();

		final List<Object> raw = new java.util.concurrent.CopyOnWriteArrayList<>();

		@DelayListener(queue = "declined", maxAttempts = "1")
		void onPayment(Order order) {
			throw new IllegalStateException("card declined for " + order.id());
		}

		@DeadLetterListener(queue = "declined")
		void onDeadPayment(DeadLetter letter, Order order) {
			this.handled.put(order.id(), letter);
		}

		@DeadLetterListener(queue = "declined")
		void onDeadLetterOnly(DeadLetter letter) {
			this.raw.add(letter.messageId());
		}

	}

	static class TwoPayloadDeadLetterHandler {

		@DeadLetterListener(queue = "declined")
		void onDead(Order order, String other) {
		}

	}

	static class NonRetryableListener {

		final List<Integer> attempts = new java.util.concurrent.CopyOnWriteArrayList<>();

		@DelayListener(queue = "refusing", maxAttempts = "5", initialBackoff = "50ms",
				nonRetryable = IllegalArgumentException.class)
		void onOrder(Order order, DelayMessageContext context) {
			this.attempts.add(context.attempt());
			if (order.id().startsWith("bad")) {
				// a subclass of the declared type
				throw new NumberFormatException("bad order " + order.id());
			}
			throw new IllegalStateException("try again");
		}

	}

	static class ManualListener {

		final BlockingQueue<Order> received = new LinkedBlockingQueue<>();

		@DelayListener(id = "manual", queue = "manual", autoStartup = "false")
		void onOrder(Order order) {
			this.received.add(order);
		}

	}

	static class FactoryListener {

		@DelayListener(id = "withFactory", queue = "factory", containerFactory = "slowFactory")
		void onOrder(Order order) {
		}

	}

	static class TwoPayloads {

		@DelayListener(queue = "orders")
		void onTwo(Order first, Order second) {
		}

	}

	static class BadQueue {

		@DelayListener(queue = "orders{x}")
		void onBad(Order order) {
		}

	}

	static class BadConcurrency {

		@DelayListener(queue = "orders", concurrency = "lots")
		void onBad(Order order) {
		}

	}

	static class ZeroConcurrency {

		@DelayListener(queue = "orders", concurrency = "0")
		void onZero(Order order) {
		}

	}

	static class BadHeader {

		@DelayListener(queue = "orders")
		void onBad(Order order, @DelayHeader("count") int count) {
		}

	}

	static class UnknownFactory {

		@DelayListener(queue = "orders", containerFactory = "nope")
		void onOrder(Order order) {
		}

	}

}
