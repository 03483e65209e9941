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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.test.RedisServer;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How soon the application's Lettuce client reconnects after Redis went away: 100 ms
 * doubling to {@code delayqueue.reconnect.max-delay} (1 s) instead of Lettuce's 30 s;
 * configurable, off with a property, and an application's own customizer wins. Against a
 * real Redis killed for 12 s (with Lettuce's delay the client came back 4 s after Redis
 * did, and up to 14 s after a 20 s outage), a message that came due during the outage is
 * delivered soon after Redis answers; the {@code outage} benchmark scenario measures how
 * soon.
 */
class RedisReconnectTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(DataRedisAutoConfiguration.class, DelayQueueRedisReconnectAutoConfiguration.class));

	private static Delay delay(AssertableApplicationContext context) {
		return context.getBean(ClientResources.class).reconnectDelay();
	}

	private static long longestMillis(Delay delay) {
		long longest = 0;
		for (int attempt = 1; attempt <= 30; attempt++) {
			longest = Math.max(longest, delay.createDelay(attempt).toMillis());
		}
		return longest;
	}

	@Test
	void theClientReconnects100MsAfterALossDoublingToOneSecond() {
		this.runner.run((context) -> {
			Delay delay = delay(context);
			assertThat(delay.createDelay(1)).isEqualTo(Duration.ofMillis(100));
			assertThat(longestMillis(delay)).isEqualTo(1000);
		});
	}

	@Test
	void theLongestDelayIsAProperty() {
		this.runner.withPropertyValues("delayqueue.reconnect.max-delay=250ms")
			.run((context) -> assertThat(longestMillis(delay(context))).isEqualTo(250));
		this.runner.withPropertyValues("delayqueue.reconnect.max-delay=10ms")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessage("delayqueue.reconnect.max-delay must be at least 100 ms, but was PT0.01S"));
	}

	@Test
	void turnedOffOrOverriddenLettucesOwnOrTheApplicationsApplies() {
		this.runner.withPropertyValues("delayqueue.reconnect.enabled=false")
			.run((context) -> assertThat(longestMillis(delay(context))).isEqualTo(30_000));
		this.runner
			.withBean(ClientResourcesBuilderCustomizer.class,
					() -> (builder) -> builder.reconnectDelay(Delay.constant(Duration.ofSeconds(3))))
			.run((context) -> assertThat(longestMillis(delay(context))).isEqualTo(3000));
	}

	@Test
	@Tag("faults")
	void aMessageThatCameDueDuringAnOutageIsDeliveredSoonAfterRedisAnswers() {
		try (RedisServer redis = RedisServer.builder().appendOnly(RedisServer.AppendFsync.ALWAYS).start()) {
			AllAutoConfigurations.runner(redis).withUserConfiguration(Listener.class).run((context) -> {
				DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
				Listener listener = context.getBean(Listener.class);
				template.send("outage", "warm-up", Duration.ZERO);
				await().atMost(Duration.ofSeconds(10)).until(() -> listener.warmedUp.get() > 0);
				template.send("outage", "due", Duration.ofSeconds(4));
				redis.kill();
				Thread.sleep(12_000);
				redis.startAgain();
				long answered = System.nanoTime();
				await().atMost(Duration.ofSeconds(30)).until(() -> listener.delivered.get() > 0);
				long millis = TimeUnit.NANOSECONDS.toMillis(listener.delivered.get() - answered);
				System.out.println("Delivered " + millis + " ms after Redis answered again (12 s outage)");
				// Lettuce's own delay: about 4,400 ms; the starter's: about 1 s at most,
				// with
				// room for a busy machine
				assertThat(millis).isLessThan(3000);
			});
		}
	}

	static class Listener {

		final AtomicLong warmedUp = new AtomicLong();

		final AtomicLong delivered = new AtomicLong();

		@DelayListener(queue = "outage")
		void handle(String payload) {
			(payload.equals("due") ? this.delivered : this.warmedUp).compareAndSet(0, System.nanoTime());
		}

	}

}
