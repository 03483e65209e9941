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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelaySchedule;
import io.github.delayqueue.core.ScheduleInfo;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.codec.JsonMessageCodec;
import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.codec.RawMessageCodec;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.config.DelayListenerContainerFactory;
import io.github.delayqueue.core.listener.ListenerSettings;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.core.observation.DefaultDelayQueueSendObservationConvention;
import io.github.delayqueue.core.observation.DelayQueueSendContext;
import io.github.delayqueue.core.observation.DelayQueueSendObservationConvention;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link DelayQueueAutoConfiguration}, on a real Redis started per class.
 */
@RedisTest
class DelayQueueAutoConfigurationTests {

	private final ApplicationContextRunner runner;

	DelayQueueAutoConfigurationTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DelayQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
	}

	@Test
	void createsEngineTemplateCodecAndListenerDefaultsByDefault() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(DelayQueueEngine.class)
				.hasSingleBean(DelayQueueTemplate.class)
				.hasSingleBean(DelayListenerContainerFactoryConfigurer.class);
			assertThat(context.getBean(MessageCodec.class)).isInstanceOf(JsonMessageCodec.class);
			DelayQueueEngine engine = context.getBean(DelayQueueEngine.class);
			assertThat(engine.keyPrefix()).isEqualTo("dq");
			assertThat(engine.maxPayloadSize()).isEqualTo(1024 * 1024);
			assertThat(engine.codec()).isSameAs(context.getBean(MessageCodec.class));
			assertThat(context.getBean(DelayQueueTemplate.class)).isSameAs(engine.template());
			ListenerSettings defaults = listenerDefaults(context);
			assertThat(defaults.retryPolicy()).isEqualTo(RetryPolicy.DEFAULT);
			assertThat(defaults.shutdownTimeout()).isEqualTo(Duration.ofSeconds(25));
			assertThat(defaults.concurrency()).isEqualTo(ListenerSettings.DEFAULTS.concurrency());
		});
	}

	private static ListenerSettings listenerDefaults(org.springframework.context.ApplicationContext context) {
		return context.getBean(DelayListenerContainerFactory.class).getSettings().build();
	}

	@Test
	void registersTheSchedulesOfConfigurationAtStartUp() {
		this.runner.withPropertyValues("delayqueue.schedules.report.queue=reports",
				"delayqueue.schedules.report.cron=0 0 6 * * MON-FRI", "delayqueue.schedules.report.zone=Europe/Berlin",
				"delayqueue.schedules.report.payload={\"k\":1}", "delayqueue.schedules.report.headers.source=yaml",
				"delayqueue.schedules.report.missed-ticks=skip", "delayqueue.schedules.report.missed-after=5m")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				ScheduleInfo report = context.getBean(DelayQueueEngine.class)
					.admin()
					.schedules()
					.find("reports", "report")
					.orElseThrow();
				assertThat(report.cron()).isEqualTo("0 0 6 * * MON-FRI");
				assertThat(report.zone()).isEqualTo(java.time.ZoneId.of("Europe/Berlin"));
				assertThat(new String(report.payload(), java.nio.charset.StandardCharsets.UTF_8))
					.isEqualTo("{\"k\":1}");
				assertThat(report.headers()).containsEntry("source", "yaml");
				assertThat(report.missedTicks()).isEqualTo(DelaySchedule.MissedTicks.SKIP);
				assertThat(report.missedAfter()).isEqualTo(Duration.ofMinutes(5));
				assertThat(report.nextTick().atZone(java.time.ZoneId.of("Europe/Berlin")).getHour()).isEqualTo(6);
				context.getBean(DelayQueueEngine.class).admin().schedules().delete("reports", "report");
			});
	}

	@Test
	void anInvalidScheduleFailsTheStartUpNamingItsPropertyBeforeAnyIsWritten() {
		this.runner
			.withPropertyValues("delayqueue.schedules.good.queue=reports", "delayqueue.schedules.good.every=1h",
					"delayqueue.schedules.bad.queue=reports", "delayqueue.schedules.bad.cron=61 * * * * *")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("delayqueue.schedules.bad is invalid: Invalid cron expression '61 * * * * *' "
						+ "of schedule 'bad': Invalid value for SecondOfMinute"));
		this.runner.withPropertyValues("delayqueue.schedules.bad.every=1h")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("delayqueue.schedules.bad is invalid: queue is not set"));
		this.runner.withPropertyValues("delayqueue.schedules.bad.queue=reports", "delayqueue.schedules.bad.every=0s")
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("delayqueue.schedules.bad is invalid: Interval of schedule 'bad'"));
		this.runner.withPropertyValues("delayqueue.schedules.good.queue=reports", "delayqueue.schedules.good.every=1h")
			.run((context) -> assertThat(context.getBean(DelayQueueEngine.class).admin().schedules().list("reports"))
				.extracting(ScheduleInfo::name)
				.as("the good one of the failed start-up was not written")
				.containsExactly("good"));
	}

	@Test
	void bindsProperties() {
		this.runner
			.withPropertyValues("delayqueue.key-prefix=orders", "delayqueue.max-payload-size=10KB",
					"delayqueue.max-headers-size=1KB", "delayqueue.send-batch-size=100",
					"delayqueue.scheduler.batch-size=50", "delayqueue.listener.retry.max-attempts=7",
					"delayqueue.listener.retry.initial-backoff=500ms", "delayqueue.listener.retry.multiplier=3",
					"delayqueue.listener.retry.max-backoff=1m", "delayqueue.listener.retry.jitter=0",
					"delayqueue.listener.trim-interval=10s", "delayqueue.listener.stale-consumer-timeout=1h",
					"delayqueue.listener.dead-letter-retention=3d")
			.run((context) -> {
				DelayQueueEngine engine = context.getBean(DelayQueueEngine.class);
				assertThat(engine.keyPrefix()).isEqualTo("orders");
				assertThat(engine.maxPayloadSize()).isEqualTo(10 * 1024);
				assertThat(engine.maxHeadersSize()).isEqualTo(1024);
				DelayQueueProperties properties = context.getBean(DelayQueueProperties.class);
				assertThat(properties.getSendBatchSize()).isEqualTo(100);
				assertThat(properties.getScheduler().getBatchSize()).isEqualTo(50);
				ListenerSettings defaults = listenerDefaults(context);
				RetryPolicy policy = defaults.retryPolicy();
				assertThat(policy.maxAttempts()).isEqualTo(7);
				assertThat(policy.initialBackoff()).isEqualTo(Duration.ofMillis(500));
				assertThat(policy.multiplier()).isEqualTo(3.0);
				assertThat(policy.maxBackoff()).isEqualTo(Duration.ofMinutes(1));
				assertThat(policy.jitter()).isZero();
				assertThat(defaults.trimInterval()).isEqualTo(Duration.ofSeconds(10));
				assertThat(defaults.staleConsumerTimeout()).isEqualTo(Duration.ofHours(1));
				assertThat(defaults.deadLetterRetention()).isEqualTo(Duration.ofDays(3));
			});
	}

	@Test
	void renamedKeysStillBindAndTheNewOnesWin() {
		this.runner
			.withPropertyValues("delayqueue.retry.max-attempts=7", "delayqueue.retry.jitter=0",
					"delayqueue.dead-letter.retention=1d", "delayqueue.listener.retry.jitter=0.5")
			.run((context) -> {
				ListenerSettings defaults = listenerDefaults(context);
				assertThat(defaults.retryPolicy().maxAttempts()).isEqualTo(7);
				assertThat(defaults.retryPolicy().jitter()).isEqualTo(0.5);
				assertThat(defaults.deadLetterRetention()).isEqualTo(Duration.ofDays(1));
			});
	}

	@Test
	void anInvalidListenerPropertyIsNamedInTheStartupFailure() {
		this.runner.withPropertyValues("delayqueue.listener.concurrency=0")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("delayqueue.listener.concurrency: Concurrency must be at least 1, but was 0"));
		this.runner.withPropertyValues("delayqueue.listener.batch-size=0")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining(
						"delayqueue.listener.batch-size: Batch size must be from 1 to 10000, but was 0"));
		this.runner.withPropertyValues("delayqueue.listener.retry.jitter=2")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("delayqueue.listener.retry: Jitter must be between 0 and 1, but was 2.0"));
	}

	@Test
	void anApplicationsOwnFactoryGetsTheSameSettingsThroughTheConfigurer() {
		this.runner.withPropertyValues("delayqueue.listener.concurrency=3").run((context) -> {
			DelayListenerContainerFactory own = new DelayListenerContainerFactory(
					context.getBean(DelayQueueEngine.class));
			context.getBean(DelayListenerContainerFactoryConfigurer.class).configure(own);
			assertThat(own.getSettings().build()).isEqualTo(listenerDefaults(context));
			assertThat(own.getSettings().build().concurrency()).isEqualTo(3);
		});
	}

	@Test
	void bindsDurableSendProperties() {
		this.runner.run((context) -> assertThat(context.getBean(DelayQueueEngine.class).sendDurability()).isNull());
		this.runner.withPropertyValues("delayqueue.durable-send.replicas=2", "delayqueue.durable-send.timeout=250ms")
			.run((context) -> assertThat(context.getBean(DelayQueueEngine.class).sendDurability())
				.isEqualTo(io.github.delayqueue.core.Durability.replicas(2, Duration.ofMillis(250))));
	}

	@Test
	void recordsObservationsWhenEnabledAndARegistryExists() {
		io.micrometer.observation.ObservationRegistry registry = io.micrometer.observation.ObservationRegistry.create();
		this.runner.withBean(io.micrometer.observation.ObservationRegistry.class, () -> registry)
			.run((context) -> assertThat(context.getBean(DelayQueueEngine.class).observationRegistry())
				.isSameAs(io.micrometer.observation.ObservationRegistry.NOOP));
		this.runner.withBean(io.micrometer.observation.ObservationRegistry.class, () -> registry)
			.withPropertyValues("delayqueue.observation.enabled=true")
			.run((context) -> assertThat(context.getBean(DelayQueueEngine.class).observationRegistry())
				.isSameAs(registry));
		this.runner.withPropertyValues("delayqueue.observation.enabled=true")
			.run((context) -> assertThat(context.getBean(DelayQueueEngine.class).observationRegistry())
				.isSameAs(io.micrometer.observation.ObservationRegistry.NOOP));
	}

	@Test
	void aConventionBeanNamesTheSendsAndTheLegacyKeysCanBeTurnedOff() {
		List<io.micrometer.observation.Observation.Context> stopped = new java.util.concurrent.CopyOnWriteArrayList<>();
		io.micrometer.observation.ObservationRegistry registry = io.micrometer.observation.ObservationRegistry.create();
		registry.observationConfig().observationHandler(new io.micrometer.observation.ObservationHandler<>() {

			@Override
			public boolean supportsContext(io.micrometer.observation.Observation.Context context) {
				return true;
			}

			@Override
			public void onStop(io.micrometer.observation.Observation.Context context) {
				stopped.add(context);
			}

		});
		DelayQueueSendObservationConvention custom = new DefaultDelayQueueSendObservationConvention(true) {

			@Override
			public String getContextualName(DelayQueueSendContext context) {
				return "enqueue " + context.getQueue();
			}

		};
		this.runner.withBean(io.micrometer.observation.ObservationRegistry.class, () -> registry)
			.withBean(DelayQueueSendObservationConvention.class, () -> custom)
			.withPropertyValues("delayqueue.observation.enabled=true")
			.run((context) -> {
				context.getBean(DelayQueueTemplate.class).send("conventions", "a", Duration.ofHours(1));
				assertThat(stopped).extracting(io.micrometer.observation.Observation.Context::getContextualName)
					.containsExactly("enqueue conventions");
			});
		stopped.clear();
		this.runner.withBean(io.micrometer.observation.ObservationRegistry.class, () -> registry)
			.withPropertyValues("delayqueue.observation.enabled=true", "delayqueue.observation.legacy-key-values=false")
			.run((context) -> {
				context.getBean(DelayQueueTemplate.class).send("conventions", "b", Duration.ofHours(1));
				assertThat(stopped).hasSize(1);
				assertThat(stopped.get(0).getContextualName()).isEqualTo("send conventions");
				assertThat(stopped.get(0).getLowCardinalityKeyValue("messaging.destination.name").getValue())
					.isEqualTo("conventions");
				assertThat(stopped.get(0).getLowCardinalityKeyValue("delayqueue.queue")).isNull();
			});
	}

	@Test
	void bindsSendAfterCommit() {
		this.runner.run((context) -> assertThat(context.getBean(DelayQueueEngine.class).sendAfterCommit()).isFalse());
		this.runner.withPropertyValues("delayqueue.send.after-commit=true")
			.run((context) -> assertThat(context.getBean(DelayQueueEngine.class).sendAfterCommit()).isTrue());
	}

	@Test
	void bindsThePartitionsOfAQueueAndNamesTheBadOnes() {
		this.runner.withPropertyValues("delayqueue.queues.orders.partitions=4").run((context) -> {
			DelayQueueEngine engine = context.getBean(DelayQueueEngine.class);
			assertThat(engine.partitions("orders")).isEqualTo(4);
			assertThat(engine.partitions("other")).isEqualTo(1);
		});
		this.runner.withPropertyValues("delayqueue.queues.orders.partitions=0").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessage("delayqueue.queues.orders.partitions: Partitions of queue 'orders' must be between 1 and "
						+ "1024, but was 0");
		});
		this.runner.withPropertyValues("delayqueue.listener.partitions=2").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause()
				.hasMessageContaining("set delayqueue.queues.<name>.partitions");
		});
	}

	@Test
	void failsAtStartupOnAnInvalidKeyPrefix() {
		this.runner.withPropertyValues("delayqueue.key-prefix={bad}").run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("Key prefix '{bad}'");
		});
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwnBeans() {
		this.runner.withBean("myCodec", MessageCodec.class, RawMessageCodec::new)
			.withBean("myPolicy", RetryPolicy.class, () -> RetryPolicy.fixed(2, Duration.ofSeconds(1)))
			.run((context) -> {
				assertThat(context.getBean(MessageCodec.class)).isInstanceOf(RawMessageCodec.class);
				assertThat(context.getBean(DelayQueueEngine.class).codec()).isInstanceOf(RawMessageCodec.class);
				assertThat(context.getBean(RetryPolicy.class).maxAttempts()).isEqualTo(2);
			});
	}

	@Test
	void backsOffWhenTheApplicationDefinesItsOwnEngine() {
		this.runner
			.withBean("myEngine", DelayQueueEngine.class,
					() -> DelayQueueEngine
						.builder(new org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory())
						.keyPrefix("mine")
						.build())
			.run((context) -> assertThat(context.getBean(DelayQueueEngine.class).keyPrefix()).isEqualTo("mine"));
	}

	@Test
	void doesNothingWithoutARedisConnectionFactory() {
		new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(DelayQueueAutoConfiguration.class))
			.run((context) -> assertThat(context).doesNotHaveBean(DelayQueueEngine.class)
				.doesNotHaveBean(RedisConnectionFactory.class));
	}

	@Test
	void definesNoJsonCodecWithoutJackson() {
		// the engine then picks its own default (raw byte[]/String when Jackson is
		// absent); Jackson 2 alone gets its codec (Jackson2CodecTests)
		this.runner.withClassLoader(new FilteredClassLoader("tools.jackson.databind", "com.fasterxml.jackson.databind"))
			.run((context) -> assertThat(context).hasSingleBean(DelayQueueEngine.class)
				.doesNotHaveBean(MessageCodec.class));
	}

	@Test
	void sendsAndDeliversThroughTheAutoConfiguredEngine() {
		this.runner.run((context) -> {
			DelayQueueEngine engine = context.getBean(DelayQueueEngine.class);
			BlockingQueue<String> received = new LinkedBlockingQueue<>();
			DelayQueueListenerContainer container = engine
				.listenerContainer("boot", "g", String.class, (payload, delivery) -> received.add(payload))
				.build();
			container.start();
			try {
				context.getBean(DelayQueueTemplate.class).send("boot", "hello", Duration.ofMillis(200));
				assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("hello");
			}
			finally {
				container.stop();
			}
		});
	}

}
