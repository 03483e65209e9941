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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import io.github.delayqueue.autoconfigure.actuate.DelayQueueHealthIndicator;
import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code delayqueue.outbox.*}: sends inside a transaction of the application's DataSource
 * go through the outbox table, with its meters and health details; misuse fails the
 * start-up with a clear message.
 */
@RedisTest
class OutboxAutoConfigurationTests {

	private final ApplicationContextRunner runner;

	OutboxAutoConfigurationTests(RedisServer redis) {
		this.runner = AllAutoConfigurations.runner(redis).withUserConfiguration(Application.class);
	}

	@Test
	void sendsInATransactionGoThroughTheOutbox() {
		this.runner
			.withPropertyValues("delayqueue.outbox.enabled=true", "delayqueue.outbox.initialize-schema=true",
					"delayqueue.outbox.poll-interval=100ms", "delayqueue.outbox.relay-workers=3")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(DelayQueueEngine.class).outbox().relayWorkers()).isEqualTo(3);
				DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
				TransactionTemplate transactions = new TransactionTemplate(
						context.getBean(DataSourceTransactionManager.class));
				JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
				SendResult result = transactions.execute((status) -> template
					.send(DelayMessage.builder("cancel o-1").queue("timeouts").delay(Duration.ofMillis(100)).build()));
				assertThat(result.status()).isEqualTo(SendResult.Status.DEFERRED);
				assertThat(context.getBean(Application.class).received.poll(10, TimeUnit.SECONDS))
					.isEqualTo("cancel o-1");
				await().atMost(Duration.ofSeconds(10))
					.until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delayqueue_outbox", Long.class) == 0);
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				assertThat(meters.get("delayqueue.outbox.rows").tags("table", "delayqueue_outbox").gauge()).isNotNull();
				assertThat(meters.get("delayqueue.outbox.oldest").timeGauge()).isNotNull();
				Health health = context.getBean(DelayQueueHealthIndicator.class).health();
				@SuppressWarnings("unchecked")
				Map<String, Object> outbox = (Map<String, Object>) health.getDetails().get("outbox");
				assertThat(outbox).containsEntry("table", "delayqueue_outbox")
					.containsEntry("rows", 0L)
					.containsEntry("relay", "relaying");
			});
	}

	@Test
	void theHealthNamesTheDatabaseWhenTheOutboxBacklogCannotBeReadInTime() {
		this.runner
			.withPropertyValues("delayqueue.outbox.enabled=true", "delayqueue.outbox.initialize-schema=true",
					"delayqueue.outbox.poll-interval=100ms")
			.run((context) -> {
				assertThat(context).hasNotFailed();
				DelayQueueHealthIndicator indicator = context.getBean(DelayQueueHealthIndicator.class);
				// the database restarting: a connection takes 1.5 s, then fails
				context.getBean(RestartingDataSource.class).stallMillis = 1500;
				try {
					long started = System.nanoTime();
					Health health = indicator.health();
					assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(1500);
					@SuppressWarnings("unchecked")
					Map<String, Object> outbox = (Map<String, Object>) health.getDetails().get("outbox");
					assertThat((String) outbox.get("error"))
						.isEqualTo("The outbox's backlog cannot be read: the database did not answer within 1000 ms");
					assertThat(health.getDetails()).as("Redis answered").doesNotContainKey("error");
				}
				finally {
					context.getBean(RestartingDataSource.class).stallMillis = 0;
				}
			});
	}

	@Test
	void aMissingTableFailsTheStartUpWithItsDdl() {
		this.runner.withPropertyValues("delayqueue.outbox.enabled=true", "delayqueue.outbox.table=missing_outbox")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("The outbox table 'missing_outbox' is missing")
				.hasMessageContaining("CREATE TABLE IF NOT EXISTS missing_outbox"));
	}

	@Test
	void anInvalidTableNameFailsTheStartUpNamingTheProperty() {
		this.runner.withPropertyValues("delayqueue.outbox.enabled=true", "delayqueue.outbox.table=x;drop")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.outbox: Outbox table name must be letters"));
	}

	@Test
	void withoutADataSourceTheStartUpFailsSayingSo() {
		AllAutoConfigurations.runner()
			.withPropertyValues("spring.data.redis.port=1", "delayqueue.outbox.enabled=true",
					"delayqueue.server-check.enabled=false")
			.run((context) -> assertThat(context).getFailure()
				.rootCause()
				.hasMessageContaining("delayqueue.outbox.enabled=true needs one DataSource bean"));
	}

	/** An H2 database that can be made to answer as one restarting does. */
	static class RestartingDataSource extends DriverManagerDataSource {

		volatile long stallMillis;

		RestartingDataSource(String url) {
			super(url);
		}

		@Override
		protected java.sql.Connection getConnectionFromDriver(java.util.Properties properties)
				throws java.sql.SQLException {
			long stall = this.stallMillis;
			if (stall > 0) {
				try {
					Thread.sleep(stall);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				throw new java.sql.SQLException("the database system is starting up");
			}
			return super.getConnectionFromDriver(properties);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Application {

		final BlockingQueue<String> received = new LinkedBlockingQueue<>();

		@Bean
		RestartingDataSource dataSource() {
			return new RestartingDataSource("jdbc:h2:mem:boot-outbox;DB_CLOSE_DELAY=-1");
		}

		@Bean
		DataSourceTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@Bean
		MeterRegistry meterRegistry() {
			return new SimpleMeterRegistry();
		}

		@DelayListener(queue = "timeouts")
		void onTimeout(String payload) {
			this.received.add(payload);
		}

	}

}
