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
import java.util.Map;
import java.util.concurrent.Executor;

import io.github.delayqueue.autoconfigure.actuate.DelayQueueAdminAccessEnvironmentPostProcessor;
import io.github.delayqueue.autoconfigure.actuate.DelayQueueEndpoint;
import io.github.delayqueue.autoconfigure.actuate.QueueDescriptor;
import io.github.delayqueue.autoconfigure.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.autoconfigure.metrics.MicrometerDelayQueueObserver;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.config.DelayListenerContainerFactory;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.ListenerSettings;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for the listener, metrics, endpoint and health auto-configuration, one scenario
 * each, on a real Redis started per class.
 */
@RedisTest
class DelayListenerAutoConfigurationTests {

	private final ApplicationContextRunner runner;

	DelayListenerAutoConfigurationTests(RedisServer redis) {
		this.runner = AllAutoConfigurations.runner(redis);
	}

	@Test
	void registersListenersWithTheDefaultContainerFactory() {
		this.runner.withUserConfiguration(OrderListener.class).run((context) -> {
			assertThat(context).hasSingleBean(DelayListenerContainerFactory.class)
				.hasSingleBean(DelayListenerEndpointRegistry.class)
				.hasSingleBean(DelayQueueAdmin.class);
			assertThat(context.getBean(DelayQueueAdmin.class).queues()).contains("orders");
			DelayQueueListenerContainer container = context.getBean(DelayListenerEndpointRegistry.class)
				.getListenerContainer("orders");
			assertThat(container.isRunning()).isTrue();
			assertThat(container.settings().concurrency()).isEqualTo(4);
			assertThat(container.settings().visibilityTimeout()).isEqualTo(Duration.ofSeconds(30));
			assertThat(container.settings().shutdownTimeout()).isEqualTo(Duration.ofSeconds(25));
			// the build's java-25 execution turns virtual threads on for every context
			boolean virtual = Boolean.getBoolean("spring.threads.virtual.enabled") && Runtime.version().feature() >= 21;
			assertThat(container.settings().executor())
				.isSameAs(virtual ? context.getBean(DelayQueueAutoConfiguration.LISTENER_EXECUTOR_BEAN_NAME) : null);
		});
	}

	@Test
	void bindsListenerProperties() {
		this.runner.withUserConfiguration(OrderListener.class)
			.withPropertyValues("delayqueue.listener.concurrency=9", "delayqueue.listener.visibility-timeout=1m",
					"delayqueue.listener.shutdown-timeout=5s", "delayqueue.listener.poll-timeout=2s",
					"delayqueue.listener.dead-letter-retention=1d", "delayqueue.listener.retry.max-attempts=3")
			.run((context) -> {
				ListenerSettings settings = context.getBean(DelayListenerEndpointRegistry.class)
					.getListenerContainer("orders")
					.settings();
				assertThat(settings.concurrency()).isEqualTo(9);
				assertThat(settings.visibilityTimeout()).isEqualTo(Duration.ofMinutes(1));
				assertThat(settings.shutdownTimeout()).isEqualTo(Duration.ofSeconds(5));
				assertThat(settings.pollTimeout()).isEqualTo(Duration.ofSeconds(2));
				assertThat(settings.deadLetterRetention()).isEqualTo(Duration.ofDays(1));
				assertThat(settings.retryPolicy().maxAttempts()).isEqualTo(3);
			});
	}

	@Test
	void appliesPerQueuePropertiesUnderTheAnnotation() {
		this.runner.withUserConfiguration(OrderListener.class, InvoiceListener.class)
			.withPropertyValues("delayqueue.listener.concurrency=2", "delayqueue.queues.orders.concurrency=6",
					"delayqueue.queues.orders.retry.max-attempts=10",
					"delayqueue.queues.orders.retry.initial-backoff=3s",
					"delayqueue.queues.orders.dead-letter-retention=2d", "delayqueue.queues.invoices.concurrency=8",
					"delayqueue.queues.invoices.auto-startup=false", "delayqueue.listener.batch-wait=50ms",
					"delayqueue.queues.orders.batch-size=500")
			.run((context) -> {
				DelayListenerEndpointRegistry registry = context.getBean(DelayListenerEndpointRegistry.class);
				ListenerSettings orders = registry.getListenerContainer("orders").settings();
				assertThat(orders.concurrency()).isEqualTo(6);
				assertThat(orders.batchSize()).isEqualTo(500);
				assertThat(orders.batchWait()).isEqualTo(Duration.ofMillis(50));
				assertThat(orders.retryPolicy().maxAttempts()).isEqualTo(10);
				assertThat(orders.retryPolicy().initialBackoff()).isEqualTo(Duration.ofSeconds(3));
				assertThat(orders.deadLetterRetention()).isEqualTo(Duration.ofDays(2));
				DelayQueueListenerContainer invoices = registry.getListenerContainer("invoices");
				// the annotation's concurrency = "1" wins over the queue's 8
				assertThat(invoices.settings().concurrency()).isEqualTo(1);
				assertThat(invoices.isRunning()).isFalse();
			});
	}

	@Test
	void bindsNonRetryableExceptionTypesAndNamesTheBadOnes() {
		this.runner.withUserConfiguration(OrderListener.class)
			.withPropertyValues("delayqueue.listener.retry.non-retryable=java.lang.IllegalArgumentException",
					"delayqueue.queues.orders.retry.non-retryable=java.lang.IllegalStateException, "
							+ "java.lang.UnsupportedOperationException")
			.run((context) -> assertThat(context.getBean(DelayListenerEndpointRegistry.class)
				.getListenerContainer("orders")
				.settings()
				.retryPolicy()
				.nonRetryable())
				.containsExactlyInAnyOrder(IllegalStateException.class, UnsupportedOperationException.class));
		this.runner.withUserConfiguration(OrderListener.class)
			.withPropertyValues("delayqueue.queues.orders.retry.non-retryable=com.example.NoSuchException")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining(
						"delayqueue.queues.orders.retry.non-retryable: class 'com.example.NoSuchException' not found"));
		this.runner.withUserConfiguration(OrderListener.class)
			.withPropertyValues("delayqueue.listener.retry.non-retryable=java.lang.String")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining(
						"delayqueue.listener.retry.non-retryable: 'java.lang.String' is not a Throwable"));
	}

	@Test
	void renamedPerQueueKeysStillBindAndInvalidOnesAreNamed() {
		this.runner.withUserConfiguration(OrderListener.class)
			.withPropertyValues("delayqueue.queues.orders.max-attempts=10",
					"delayqueue.queues.orders.dead-letter.retention=2d")
			.run((context) -> {
				ListenerSettings orders = context.getBean(DelayListenerEndpointRegistry.class)
					.getListenerContainer("orders")
					.settings();
				assertThat(orders.retryPolicy().maxAttempts()).isEqualTo(10);
				assertThat(orders.deadLetterRetention()).isEqualTo(Duration.ofDays(2));
			});
		this.runner.withUserConfiguration(OrderListener.class)
			.withPropertyValues("delayqueue.queues.orders.prefetch=0")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("delayqueue.queues.orders.prefetch: Prefetch must be at least 1, but was 0"));
	}

	@Test
	void orderedListenersOwnTheirPartitionsAndShowThemInTheEndpointAndTheMetrics() {
		this.runner.withUserConfiguration(OrderListener.class, LedgerListener.class)
			.withBean(MeterRegistry.class, SimpleMeterRegistry::new)
			.withPropertyValues("delayqueue.queues.orders.partitions=3", "delayqueue.queues.orders.ordered=true",
					"delayqueue.queues.orders.blocking-retries=false",
					"management.endpoints.web.exposure.include=delayqueue")
			.run((context) -> {
				DelayListenerEndpointRegistry registry = context.getBean(DelayListenerEndpointRegistry.class);
				DelayQueueListenerContainer orders = registry.getListenerContainer("orders");
				assertThat(orders.settings().ordered()).isTrue();
				assertThat(orders.settings().exclusive()).isTrue();
				assertThat(orders.settings().blockingRetries()).isFalse();
				DelayQueueListenerContainer ledger = registry.getListenerContainer("ledger");
				assertThat(ledger.settings().ordered()).isTrue();
				assertThat(ledger.settings().blockingRetries()).isTrue();
				Awaitility.await()
					.atMost(Duration.ofSeconds(10))
					.until(() -> orders.partitionsRead().size() == 3 && ledger.partitionsRead().size() == 1);
				assertThat(context.getBean(MeterRegistry.class)
					.get("delayqueue.partitions.owned")
					.tags("queue", "orders", "group", orders.group())
					.gauge()
					.value()).isEqualTo(3);
				QueueDescriptor queue = context.getBean(DelayQueueEndpoint.class).queue("orders", null);
				assertThat(queue.partitionOwners()).containsEntry(orders.group(),
						Map.of(0, orders.consumerName(), 1, orders.consumerName(), 2, orders.consumerName()));
				assertThat(context.getBean(DelayQueueEndpoint.class).queues().listeners())
					.anySatisfy((listener) -> assertThat(listener.partitions()).containsExactly(0, 1, 2));
			});
		this.runner.withUserConfiguration(OrderListener.class)
			.withPropertyValues("delayqueue.queues.orders.blocking-retries=true")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("delayqueue.queues.orders.blocking-retries: Blocking retries apply to ordered "
						+ "listeners only"));
	}

	@Test
	void failsAtStartupOnAnUnknownProperty() {
		this.runner.withPropertyValues("delayqueue.queues.orders.max-atempts=3").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("max-atempts");
		});
	}

	@Test
	void failsAtStartupOnAMisdeclaredListenerNamingTheMethod() {
		this.runner.withUserConfiguration(TwoPayloadListener.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining("TwoPayloadListener.onTwo(String, String)")
				.hasStackTraceContaining("2 payload parameters");
		});
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwnContainerFactory() {
		this.runner.withUserConfiguration(OrderListener.class, CustomFactory.class).run((context) -> {
			assertThat(context.getBean(DelayListenerEndpointRegistry.class)
				.getListenerContainer("orders")
				.settings()
				.concurrency()).isEqualTo(11);
		});
	}

	@Test
	void runsWorkersOnVirtualThreadsWhenEnabled() {
		this.runner.withUserConfiguration(OrderListener.class)
			.withPropertyValues("spring.threads.virtual.enabled=true")
			.run((context) -> {
				Executor executor = context.getBean(DelayListenerEndpointRegistry.class)
					.getListenerContainer("orders")
					.settings()
					.executor();
				if (Runtime.version().feature() >= 21) {
					assertThat(executor)
						.isSameAs(context.getBean(DelayQueueAutoConfiguration.LISTENER_EXECUTOR_BEAN_NAME));
				}
				else {
					// virtual threads need Java 21: Spring Boot ignores the property
					// before
					assertThat(executor).isNull();
				}
			});
	}

	@Test
	void registersMetricsWhenAMeterRegistryIsPresent() {
		this.runner.withBean(MeterRegistry.class, SimpleMeterRegistry::new).run((context) -> {
			assertThat(context).hasSingleBean(MicrometerDelayQueueObserver.class);
			context.getBean(DelayQueueEngine.class).template().send("metered", "x", Duration.ofHours(1));
			MeterRegistry registry = context.getBean(MeterRegistry.class);
			assertThat(registry.get("delayqueue.messages.sent")
				.tag("queue", "metered")
				.tag("result", "scheduled")
				.counter()
				.count()).isEqualTo(1);
			assertThat(registry.get("delayqueue.messages.scheduled").tag("queue", "metered").gauge().value())
				.isEqualTo(1);
		});
	}

	@Test
	void noMetersWithoutMicrometer() {
		this.runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(MicrometerDelayQueueObserver.class);
		});
	}

	@Test
	void noEndpointWithoutActuator() {
		this.runner.withClassLoader(new FilteredClassLoader(Endpoint.class)).run((context) -> {
			assertThat(context).hasNotFailed().doesNotHaveBean(DelayQueueEndpoint.class);
		});
	}

	@Test
	void noEndpointWhenNotExposed() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).doesNotHaveBean(DelayQueueEndpoint.class));
	}

	@Test
	void endpointWritesAreReadOnlyByDefaultAndFollowBootsAccessControl() {
		this.runner.run((context) -> assertThat(context).hasSingleBean(DelayQueueEndpoint.class));
		org.springframework.boot.actuate.endpoint.annotation.Endpoint endpoint = DelayQueueEndpoint.class
			.getAnnotation(org.springframework.boot.actuate.endpoint.annotation.Endpoint.class);
		assertThat(endpoint.defaultAccess()).isEqualTo(org.springframework.boot.actuate.endpoint.Access.READ_ONLY);
	}

	@Test
	void theRenamedAdminKeyStandsForUnrestrictedAccessUnlessAccessIsSet() {
		DelayQueueAdminAccessEnvironmentPostProcessor postProcessor = new DelayQueueAdminAccessEnvironmentPostProcessor();
		org.springframework.mock.env.MockEnvironment legacy = new org.springframework.mock.env.MockEnvironment()
			.withProperty("delayqueue.admin.enabled", "true");
		postProcessor.postProcessEnvironment(legacy, new org.springframework.boot.SpringApplication());
		assertThat(legacy.getProperty("management.endpoint.delayqueue.access")).isEqualTo("unrestricted");
		org.springframework.mock.env.MockEnvironment both = new org.springframework.mock.env.MockEnvironment()
			.withProperty("delayqueue.admin.enabled", "true")
			.withProperty("management.endpoint.delayqueue.access", "read-only");
		postProcessor.postProcessEnvironment(both, new org.springframework.boot.SpringApplication());
		assertThat(both.getProperty("management.endpoint.delayqueue.access")).isEqualTo("read-only");
		org.springframework.mock.env.MockEnvironment none = new org.springframework.mock.env.MockEnvironment();
		postProcessor.postProcessEnvironment(none, new org.springframework.boot.SpringApplication());
		assertThat(none.containsProperty("management.endpoint.delayqueue.access")).isFalse();
	}

	@Test
	void healthIsUpWithRunningListenersAndOffWhenDisabled() {
		this.runner.withUserConfiguration(OrderListener.class).run((context) -> {
			HealthIndicator health = context.getBean(DelayQueueHealthIndicator.class);
			assertThat(health.health().getStatus()).isEqualTo(Status.UP);
			context.getBean(DelayListenerEndpointRegistry.class).getListenerContainer("orders").stop();
			assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
		});
		this.runner.withPropertyValues("management.health.delayqueue.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(DelayQueueHealthIndicator.class));
	}

	static class OrderListener {

		@DelayListener(id = "orders", queue = "orders")
		void onOrder(String order) {
		}

	}

	static class LedgerListener {

		@DelayListener(id = "ledger", queue = "ledger", ordered = "true")
		void onEntry(String entry) {
		}

	}

	static class InvoiceListener {

		@DelayListener(id = "invoices", queue = "invoices", concurrency = "1")
		void onInvoice(String invoice) {
		}

	}

	static class TwoPayloadListener {

		@DelayListener(queue = "orders")
		void onTwo(String first, String second) {
		}

	}

	@org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
	static class CustomFactory {

		@org.springframework.context.annotation.Bean
		DelayListenerContainerFactory delayListenerContainerFactory(DelayQueueEngine engine) {
			DelayListenerContainerFactory factory = new DelayListenerContainerFactory(engine);
			factory.getSettings().concurrency(11);
			return factory;
		}

	}

}
