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
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.autoconfigure.actuate.DelayQueueEndpoint;
import io.github.delayqueue.autoconfigure.actuate.QueueDescriptor;
import io.github.delayqueue.autoconfigure.actuate.ScheduleDescriptor;
import io.github.delayqueue.autoconfigure.actuate.QueuesDescriptor;
import io.github.delayqueue.autoconfigure.actuate.ListenerDescriptor;
import io.github.delayqueue.autoconfigure.actuate.DeadLetterDescriptor;
import io.github.delayqueue.autoconfigure.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.PartitionLayout;
import io.github.delayqueue.core.QueueFullException;
import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * A small application on a real Redis, configured the way a user would: the starter's
 * auto-configuration, a YAML-like set of properties, two {@code @DelayListener}s (one
 * that always fails), Micrometer and the actuator endpoint with admin writes on.
 */
@RedisTest
class DelayQueueApplicationIntegrationTests {

	private final ApplicationContextRunner runner;

	private final RedisServer redis;

	DelayQueueApplicationIntegrationTests(RedisServer redis) {
		this.redis = redis;
		this.runner = AllAutoConfigurations.runner(redis)
			.withUserConfiguration(Application.class)
			.withPropertyValues("spring.application.name=shop", "delayqueue.queues.payments.retry.max-attempts=3",
					"delayqueue.queues.payments.retry.initial-backoff=100ms",
					"delayqueue.queues.payments.retry.jitter=0");
	}

	@Test
	void deliversRetriesDeadLettersAndShowsItInMetricsHealthAndTheEndpoint() {
		this.runner.run((context) -> {
			DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
			Listeners listeners = context.getBean(Listeners.class);
			// the lateness timer of each listener exists before its first delivery
			assertThat(context.getBean(MeterRegistry.class)
				.get("delayqueue.lateness")
				.tags("queue", "payments", "group", "shop")
				.timer()
				.count()).isZero();

			Instant sent = Instant.now();
			template.send("order-timeout", new OrderTimeout("o-1"), Duration.ofMillis(500));
			Received received = listeners.timeouts.poll(10, TimeUnit.SECONDS);
			assertThat(received).isNotNull();
			assertThat(received.event()).isEqualTo(new OrderTimeout("o-1"));
			assertThat(received.context().group()).isEqualTo("shop");
			assertThat(received.at()).isAfterOrEqualTo(sent.plusMillis(450));

			template.send("payments", new OrderTimeout("o-2"), Duration.ZERO);
			await().atMost(Duration.ofSeconds(10)).until(() -> listeners.paymentAttempts.size() == 3);
			DelayQueueEndpoint endpoint = context.getBean(DelayQueueEndpoint.class);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> endpoint.queue("payments", null).deadLetters().size() == 1);
			assertThat(listeners.paymentAttempts).containsExactly(1, 2, 3);

			MeterRegistry meters = context.getBean(MeterRegistry.class);
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(meters.get("delayqueue.messages.acked")
					.tags("queue", "order-timeout", "group", "shop")
					.counter()
					.count()).isEqualTo(1));
			assertThat(meters.get("delayqueue.messages.sent").tags("queue", "order-timeout").counter().count())
				.isEqualTo(1);
			assertThat(meters.get("delayqueue.lateness").tags("queue", "order-timeout").timer().count()).isEqualTo(1);
			assertThat(meters.get("delayqueue.messages.retried").tags("queue", "payments").counter().count())
				.isEqualTo(2);
			assertThat(meters.get("delayqueue.messages.dead-lettered").tags("queue", "payments").counter().count())
				.isEqualTo(1);
			// one name, one type: the gauge of dead letters is not merged with the
			// counter
			assertThat(meters.find("delayqueue.messages.dead").counters()).isEmpty();
			assertThat(meters.get("delayqueue.processing").tags("queue", "payments", "result", "dead").timer().count())
				.isEqualTo(1);
			assertThat(meters.get("delayqueue.messages.dead").tags("queue", "payments").gauge().value()).isEqualTo(1);

			QueuesDescriptor queues = endpoint.queues();
			assertThat(queues.queues()).containsKeys("order-timeout", "payments");
			assertThat(queues.queues().get("payments").dead()).isEqualTo(1);
			assertThat(queues.listeners()).extracting(ListenerDescriptor::queue)
				.containsExactlyInAnyOrder("order-timeout", "payments");
			DeadLetterDescriptor letter = endpoint.queue("payments", null).deadLetters().get(0);
			assertThat(letter.attempts()).isEqualTo(3);
			assertThat(letter.snoozes()).isZero();
			assertThat(letter.errorMessage()).isEqualTo("card declined");
			assertThat(letter.payload()).isEqualTo("{\"orderId\":\"o-2\"}");

			Health health = context.getBean(DelayQueueHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsKeys("listeners", "queues");

			// replay through the admin endpoint: three more attempts, dead again
			DelayQueueEndpoint admin = endpoint;
			assertThat(admin.act("payments", "replay", letter.entryId(), null, null, null, null, null, null, null))
				.containsEntry("replayed", 1);
			await().atMost(Duration.ofSeconds(10)).until(() -> listeners.paymentAttempts.size() == 6);
			await().atMost(Duration.ofSeconds(5))
				.until(() -> endpoint.queue("payments", null).deadLetters().size() == 1);
			assertThat(admin.purgeDeadLetters("payments")).containsEntry("purged", 1L);
			assertThat(endpoint.queue("payments", null).deadLetters()).isEmpty();

			// cancel a scheduled message through the endpoint
			template.send(io.github.delayqueue.core.DelayMessage.builder(new OrderTimeout("o-3"))
				.queue("order-timeout")
				.id("order-o-3")
				.delay(Duration.ofHours(1))
				.build());
			assertThat(admin.act("order-timeout", "cancel", null, null, "order-o-3", null, null, null, null, null))
				.containsEntry("cancelled", true);
			assertThat(endpoint.queue("order-timeout", null).stats().scheduled()).isZero();

			// the partition count, shown and changed through the endpoint
			assertThat(endpoint.queue("order-timeout", null).partitions())
				.isEqualTo(new PartitionLayout("order-timeout", 1, 0, List.of()));
			assertThatIllegalArgumentException()
				.isThrownBy(() -> admin.act("order-timeout", "change-partitions", null, null, null, null, null, null,
						null, null))
				.withMessageContaining("needs partitions");
			assertThat(admin.act("order-timeout", "change-partitions", null, null, null, 3, null, null, null, null))
				.containsEntry("layout", new PartitionLayout("order-timeout", 3, 0, List.of()));
			assertThatIllegalStateException()
				.isThrownBy(() -> admin.act("order-timeout", "finish-partition-change", null, null, null, null, null,
						null, null, null))
				.withMessageContaining("has no change of its partition count in progress");
		});
	}

	@Test
	void aQueueIsPausedAtStartUpByPropertyAndPausedAndResumedThroughTheEndpoint() {
		this.runner.withPropertyValues("delayqueue.queues.order-timeout.paused=true").run((context) -> {
			DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
			Listeners listeners = context.getBean(Listeners.class);
			DelayQueueEndpoint endpoint = context.getBean(DelayQueueEndpoint.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			template.send("order-timeout", new OrderTimeout("p-1"), Duration.ZERO);
			assertThat(listeners.timeouts.poll(1500, TimeUnit.MILLISECONDS)).isNull();
			assertThat(endpoint.queue("order-timeout", null).controls().paused()).isTrue();
			assertThat(endpoint.queues().paused()).containsKey("order-timeout");
			assertThat(meters.get("delayqueue.queue.paused").tags("queue", "order-timeout").gauge().value())
				.isEqualTo(1);
			Health health = context.getBean(DelayQueueHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails().get("queues").toString()).contains("paused=true");

			assertThat(endpoint.act("order-timeout", "resume", null, null, null, null, null, null, null, null))
				.containsKey("controls");
			assertThat(listeners.timeouts.poll(5, TimeUnit.SECONDS)).isNotNull();

			// one group only, through the endpoint
			endpoint.act("order-timeout", "pause", null, "shop", null, null, null, null, null, null);
			assertThat(endpoint.queue("order-timeout", null).controls().pausedGroups()).containsExactly("shop");
			template.send("order-timeout", new OrderTimeout("p-2"), Duration.ZERO);
			assertThat(listeners.timeouts.poll(1500, TimeUnit.MILLISECONDS)).isNull();
			endpoint.act("order-timeout", "resume", null, "shop", null, null, null, null, null, null);
			assertThat(listeners.timeouts.poll(5, TimeUnit.SECONDS)).isNotNull();
			assertThat(endpoint.queues().paused()).isEmpty();

			assertThatIllegalArgumentException()
				.isThrownBy(() -> endpoint.act("order-timeout", "pause", null, "", null, null, null, null, null, null));
			assertThatExceptionOfType(DelayQueueEndpoint.NotFoundException.class).isThrownBy(
					() -> endpoint.act("no-such-queue", "pause", null, null, null, null, null, null, null, null));
			assertThat(endpoint.queues().paused()).isEmpty();
		});
	}

	@Test
	void theEndpointListsAQueuesSchedulesAndPausesResumesTriggersAndDeletesThem() {
		this.runner.withPropertyValues("delayqueue.schedules.reminder.queue=order-timeout",
				"delayqueue.schedules.reminder.every=1h", "delayqueue.schedules.reminder.payload={\"orderId\":\"r\"}")
			.run((context) -> {
				DelayQueueEndpoint endpoint = context.getBean(DelayQueueEndpoint.class);
				Listeners listeners = context.getBean(Listeners.class);
				List<ScheduleDescriptor> schedules = endpoint.queue("order-timeout", null).schedules();
				assertThat(schedules).hasSize(1);
				assertThat(schedules.get(0).name()).isEqualTo("reminder");
				assertThat(schedules.get(0).ticks()).isEqualTo("every PT1H");
				assertThat(schedules.get(0).payload()).isEqualTo("{\"orderId\":\"r\"}");
				assertThat(schedules.get(0).nextTick()).isNotNull();
				assertThat(endpoint.act("order-timeout", "trigger-schedule", null, null, null, null, null, null,
						"reminder", null))
					.extractingByKey("schedule")
					.asString()
					.contains("schedule/reminder/now-");
				Received received = listeners.timeouts.poll(10, TimeUnit.SECONDS);
				assertThat(received).isNotNull();
				assertThat(received.event()).isEqualTo(new OrderTimeout("r"));
				endpoint.act("order-timeout", "pause-schedule", null, null, null, null, null, null, "reminder", null);
				assertThat(endpoint.queue("order-timeout", null).schedules().get(0).paused()).isTrue();
				endpoint.act("order-timeout", "resume-schedule", null, null, null, null, null, null, "reminder", null);
				assertThat(endpoint.queue("order-timeout", null).schedules().get(0).nextTick()).isNotNull();
				assertThatIllegalArgumentException()
					.isThrownBy(() -> endpoint.act("order-timeout", "delete-schedule", null, null, null, null, null,
							null, null, null))
					.withMessageContaining("needs a schedule");
				assertThatExceptionOfType(DelayQueueEndpoint.NotFoundException.class)
					.isThrownBy(() -> endpoint.act("order-timeout", "pause-schedule", null, null, null, null, null,
							null, "none", null))
					.withMessageContaining("No schedule 'none'");
				endpoint.act("order-timeout", "delete-schedule", null, null, null, null, null, null, "reminder", null);
				assertThat(endpoint.queue("order-timeout", null).schedules()).isEmpty();
			});
	}

	@Test
	void aQueueIsFairShareByPropertyAndTheEndpointSaysSo() {
		this.runner.withPropertyValues("delayqueue.queues.order-timeout.fair-share=true").run((context) -> {
			DelayQueueEngine engine = context.getBean(DelayQueueEngine.class);
			assertThat(engine.isFairShare("order-timeout")).isTrue();
			assertThat(engine.isFairShare("other")).isFalse();
			DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
			Listeners listeners = context.getBean(Listeners.class);
			template.send("order-timeout", new OrderTimeout("f-1"), Duration.ZERO);
			assertThat(listeners.timeouts.poll(5, TimeUnit.SECONDS)).isNotNull();
			assertThat(context.getBean(DelayQueueEndpoint.class).queue("order-timeout", null).fairShare()).isTrue();
		});
	}

	@Test
	void fairShareIsAQueueSettingNotAListenerOne() {
		this.runner.withPropertyValues("delayqueue.listener.fair-share=true")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.listener.fair-share is not a setting of every listener"));
	}

	@Test
	void pausedIsAQueueSettingNotAListenerOne() {
		this.runner.withPropertyValues("delayqueue.listener.paused=true")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.listener.paused is not a setting of every listener"));
	}

	@Test
	void aQueueExpiresItsMessagesByPropertyAndCountsThem() {
		this.runner
			.withPropertyValues("delayqueue.queues.order-timeout.paused=true",
					"delayqueue.queues.order-timeout.expire-after=200ms")
			.run((context) -> {
				DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
				Listeners listeners = context.getBean(Listeners.class);
				DelayQueueAdmin admin = context.getBean(DelayQueueAdmin.class);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				template.send("order-timeout", new OrderTimeout("e-1"), Duration.ZERO);
				Thread.sleep(600);
				admin.resume("order-timeout");
				await().atMost(Duration.ofSeconds(10))
					.until(() -> meters.find("delayqueue.messages.expired")
						.tags("queue", "order-timeout", "result", "dead-lettered")
						.counters()
						.stream()
						.mapToDouble(Counter::count)
						.sum() >= 1);
				assertThat(listeners.timeouts.poll(300, TimeUnit.MILLISECONDS)).isNull();
				assertThat(admin.deadLetters("order-timeout", null, 10)).anyMatch(DeadLetter::isExpired);
			});
	}

	@Test
	void aQueueSizeLimitIsSetByPropertyAndChangedThroughTheEndpoint() {
		this.runner.withPropertyValues("delayqueue.queues.bounded.size-limit=2").run((context) -> {
			DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
			DelayQueueEndpoint endpoint = context.getBean(DelayQueueEndpoint.class);
			MeterRegistry meters = context.getBean(MeterRegistry.class);
			template.send("bounded", new OrderTimeout("s-1"), Duration.ofMinutes(5));
			template.send("bounded", new OrderTimeout("s-2"), Duration.ofMinutes(5));
			assertThatExceptionOfType(QueueFullException.class)
				.isThrownBy(() -> template.send("bounded", new OrderTimeout("s-3"), Duration.ofMinutes(5)))
				.withMessageContaining("size limit is 2");
			assertThat(meters.get("delayqueue.messages.sent")
				.tags("queue", "bounded", "result", "refused")
				.counter()
				.count()).isEqualTo(1);
			assertThat(endpoint.queue("bounded", null).sizeLimit()).isEqualTo(2);
			assertThat(endpoint.act("bounded", "limit-size", null, null, null, null, 3L, null, null, null))
				.containsEntry("sizeLimit", 3L);
			template.send("bounded", new OrderTimeout("s-3"), Duration.ofMinutes(5));
			assertThatIllegalArgumentException()
				.isThrownBy(() -> endpoint.act("bounded", "limit-size", null, null, null, null, null, null, null, null))
				.withMessageContaining("needs sizeLimit");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> endpoint.act("bounded", "limit-size", null, null, null, null, 0L, null, null, null))
				.withMessageContaining("must be from 1");
			endpoint.act("bounded", "remove-size-limit", null, null, null, null, null, null, null, null);
			assertThat(endpoint.queue("bounded", null).sizeLimit()).isNull();
		});
		this.runner.withPropertyValues("delayqueue.listener.size-limit=5")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.listener.size-limit is not a setting of every listener"));
	}

	@Test
	void aRateLimitIsDeclaredByPropertyShownInHealthAndChangedThroughTheEndpoint() {
		this.runner.withPropertyValues("delayqueue.queues.order-timeout.rate-limit=1000/1s/5").run((context) -> {
			DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
			Listeners listeners = context.getBean(Listeners.class);
			DelayQueueEndpoint endpoint = context.getBean(DelayQueueEndpoint.class);
			template.send("order-timeout", new OrderTimeout("r-1"), Duration.ZERO);
			assertThat(listeners.timeouts.poll(5, TimeUnit.SECONDS)).isNotNull();
			assertThat(endpoint.queue("order-timeout", null).controls().rateLimit())
				.isEqualTo(new RateLimit(1000, Duration.ofSeconds(1), 5));
			Health health = context.getBean(DelayQueueHealthIndicator.class).health();
			assertThat(health.getDetails().get("queues").toString()).contains("rateLimit=1000/1000ms/5");
			endpoint.act("order-timeout", "limit-rate", null, "shop", null, null, null, "2/1s/key", null, null);
			assertThat(endpoint.queue("order-timeout", null).controls().rateLimit("shop"))
				.isEqualTo(RateLimit.parse("2/1s/key"));
			assertThatIllegalArgumentException().isThrownBy(
					() -> endpoint.act("order-timeout", "limit-rate", null, null, null, null, null, "fast", null, null))
				.withMessageContaining("Rate limit 'fast' is not permits/period");
			assertThatIllegalArgumentException().isThrownBy(
					() -> endpoint.act("order-timeout", "limit-rate", null, null, null, null, null, null, null, null))
				.withMessageContaining("needs rateLimit");
			endpoint.act("order-timeout", "remove-rate-limit", null, "shop", null, null, null, null, null, null);
			endpoint.act("order-timeout", "remove-rate-limit", null, null, null, null, null, null, null, null);
			assertThat(endpoint.queue("order-timeout", null).controls().rateLimit("shop")).isNull();
		});
		this.runner.withPropertyValues("delayqueue.queues.order-timeout.rate-limit=0/1s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.queues.order-timeout.rate-limit: Rate limit permits must be from 1"));
		this.runner.withPropertyValues("delayqueue.listener.rate-limit=5/1s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.listener.rate-limit is not a setting of every listener"));
	}

	@Test
	void aConcurrencyLimitIsDeclaredByPropertyShownWithItsSlotsAndChangedThroughTheEndpoint() {
		// another test of this class may have changed the queue's partitions
		this.redis.execute("FLUSHALL");
		this.runner.withPropertyValues("delayqueue.queues.order-timeout.concurrency-limit=3").run((context) -> {
			DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
			Listeners listeners = context.getBean(Listeners.class);
			DelayQueueEndpoint endpoint = context.getBean(DelayQueueEndpoint.class);
			template.send("order-timeout", new OrderTimeout("c-1"), Duration.ZERO);
			assertThat(listeners.timeouts.poll(5, TimeUnit.SECONDS)).isNotNull();
			QueueDescriptor queue = endpoint.queue("order-timeout", null);
			assertThat(queue.controls().concurrencyLimit()).isEqualTo(ConcurrencyLimit.of(3));
			// the handler returned: its slot is freed (sent to Redis with the
			// acknowledgements, by the acker)
			await().atMost(Duration.ofSeconds(5))
				.untilAsserted(() -> assertThat(endpoint.queue("order-timeout", null).concurrencySlots())
					.containsEntry("shop", 0L));
			Health health = context.getBean(DelayQueueHealthIndicator.class).health();
			assertThat(health.getDetails().get("queues").toString()).contains("concurrencyLimit=3");
			endpoint.act("order-timeout", "limit-concurrency", null, "shop", null, null, null, null, null, "2/key");
			assertThat(endpoint.queue("order-timeout", null).controls().concurrencyLimit("shop"))
				.isEqualTo(ConcurrencyLimit.of(2).eachKey());
			assertThatIllegalArgumentException()
				.isThrownBy(() -> endpoint.act("order-timeout", "limit-concurrency", null, null, null, null, null, null,
						null, "0"))
				.withMessageContaining("Concurrency limit must be from 1");
			assertThatIllegalArgumentException()
				.isThrownBy(() -> endpoint.act("order-timeout", "limit-concurrency", null, null, null, null, null, null,
						null, null))
				.withMessageContaining("needs concurrencyLimit");
			endpoint.act("order-timeout", "remove-concurrency-limit", null, "shop", null, null, null, null, null, null);
			endpoint.act("order-timeout", "remove-concurrency-limit", null, null, null, null, null, null, null, null);
			assertThat(endpoint.queue("order-timeout", null).controls().concurrencyLimit("shop")).isNull();
		});
		this.runner.withPropertyValues("delayqueue.queues.order-timeout.concurrency-limit=lots")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.queues.order-timeout.concurrency-limit: Concurrency limit 'lots'"));
		this.runner.withPropertyValues("delayqueue.listener.concurrency-limit=5")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.listener.concurrency-limit is not a setting of every listener"));
	}

	@Test
	void expiryPropertiesAreCheckedByName() {
		this.runner.withPropertyValues("delayqueue.listener.expire-after=1m")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.listener.expire-after is not a setting of every listener"));
		this.runner.withPropertyValues("delayqueue.queues.order-timeout.expire-after=0s")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.queues.order-timeout.expire-after: Expire-after of queue "
						+ "'order-timeout' must be from 1 ms to 3650 days"));
	}

	record OrderTimeout(String orderId) {
	}

	record Received(OrderTimeout event, DelayMessageContext context, Instant at) {
	}

	static class Listeners {

		final BlockingQueue<Received> timeouts = new LinkedBlockingQueue<>();

		final List<Integer> paymentAttempts = new CopyOnWriteArrayList<>();

		@DelayListener(queue = "order-timeout")
		void onTimeout(OrderTimeout event, DelayMessageContext context) {
			this.timeouts.add(new Received(event, context, Instant.now()));
		}

		@DelayListener(queue = "payments")
		void onPayment(OrderTimeout event, DelayMessageContext context) {
			this.paymentAttempts.add(context.attempt());
			throw new IllegalStateException("card declined");
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Application {

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@Bean
		Listeners listeners() {
			return new Listeners();
		}

	}

}
