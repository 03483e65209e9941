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

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.convert.support.ConfigurableConversionService;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What start-up warns about: write operations of the endpoint switched on without Spring
 * Security on the class path, and {@code delayqueue.queues.<name>} entries that match no
 * listener and no queue in Redis.
 */
@RedisTest
@ExtendWith(OutputCaptureExtension.class)
class StartUpWarningTests {

	private static final String WARNING = "The delayqueue endpoint's write operations are on";

	private final ApplicationContextRunner runner;

	static class OrdersListener {

		@DelayListener(queue = "orders")
		void onOrder(String order) {
		}

	}

	StartUpWarningTests(RedisServer redis) {
		// as in an application: lenient enum values (access=unrestricted)
		// without Spring Security, whatever the test class path holds
		this.runner = AllAutoConfigurations.runner(redis)
			.withClassLoader(new FilteredClassLoader("org.springframework.security"))
			.withInitializer((context) -> context.getEnvironment()
				.setConversionService(
						(ConfigurableConversionService) ApplicationConversionService.getSharedInstance()));
	}

	@Test
	void warnsWhenWritesAreOpenWithoutSpringSecurity(CapturedOutput output) {
		this.runner.withPropertyValues("management.endpoint.delayqueue.access=unrestricted")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains(WARNING).contains("Spring Security is not on the class path");
	}

	@Test
	void unrestrictedAccessForAllEndpointsWarnsToo(CapturedOutput output) {
		this.runner.withPropertyValues("management.endpoints.access.default=unrestricted")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains(WARNING);
	}

	@Test
	void warnsAboutQueueSettingsThatMatchNoListenerAndNoQueue(CapturedOutput output) {
		this.runner.withUserConfiguration(OrdersListener.class)
			.withPropertyValues("delayqueue.queues.orders.concurrency=2", "delayqueue.queues.oders.concurrency=3",
					"delayqueue.queues.known.partitions=1")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				// a queue in Redis counts as known
				context.getBean(DelayQueueEngine.class).register("known");
			});
		assertThat(output)
			.contains(
					"delayqueue.queues.oders matches no @DelayListener of this application and no " + "queue in Redis")
			.doesNotContain("delayqueue.queues.orders matches");
		int before = output.toString().split("delayqueue.queues.known matches", -1).length;
		this.runner.withPropertyValues("delayqueue.queues.known.partitions=1")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output.toString().split("delayqueue.queues.known matches", -1)).hasSize(before);
	}

	@Test
	void saysNothingWhileTheEndpointIsReadOnly(CapturedOutput output) {
		this.runner.run((context) -> assertThat(context).hasNotFailed());
		this.runner
			.withPropertyValues("management.endpoint.delayqueue.access=unrestricted",
					"management.endpoints.access.max-permitted=read-only")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).doesNotContain(WARNING);
	}

}
