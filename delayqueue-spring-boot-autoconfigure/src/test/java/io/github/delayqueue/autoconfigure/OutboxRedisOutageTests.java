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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.test.DatabaseServer;
import io.github.delayqueue.test.RedisServer;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The outbox relay of a Boot application (the starter's reconnect on, PostgreSQL, two
 * writers committing through the outbox into two queues) while Redis is killed and
 * started again on its port: during the outage the client queues the relay's sends and
 * they time out ("Redis did not answer within 2000 ms"), they are not refused. Such a
 * timeout is Redis being away: the relay backs off (100 ms doubling to 500 ms) and moves
 * the rows once Redis answers, it does not postpone a queue's rows for 30 s as rows it
 * cannot send.
 */
@Tag("faults")
class OutboxRedisOutageTests {

	private static final List<String> QUEUES = List.of("o02", "o02-fresh");

	private static DatabaseServer database;

	@BeforeAll
	static void startDatabase() {
		Assumptions.assumeTrue(DatabaseServer.isAvailable(DatabaseServer.Kind.POSTGRESQL), "no PostgreSQL here");
		database = DatabaseServer.start(DatabaseServer.Kind.POSTGRESQL);
	}

	@AfterAll
	static void stopDatabase() {
		if (database != null) {
			database.close();
		}
	}

	@Test
	void rowsWhoseSendsTimedOutDuringAnOutageAreRelayedSoonAfterRedisAnswers() {
		try (RedisServer redis = RedisServer.builder().appendOnly(RedisServer.AppendFsync.ALWAYS).start()) {
			AllAutoConfigurations.runner(redis)
				.withUserConfiguration(Application.class)
				.withPropertyValues("delayqueue.outbox.enabled=true", "delayqueue.outbox.initialize-schema=true")
				.run((context) -> {
					assertThat(context).hasNotFailed();
					DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
					TransactionTemplate transactions = new TransactionTemplate(
							context.getBean(DataSourceTransactionManager.class));
					JdbcTemplate jdbc = new JdbcTemplate(context.getBean(DataSource.class));
					Map<String, Integer> received = context.getBean(Application.class).received;
					AtomicBoolean writing = new AtomicBoolean(true);
					AtomicInteger written = new AtomicInteger();
					List<Thread> writers = new ArrayList<>();
					for (int w = 0; w < 2; w++) {
						int writer = w;
						Thread thread = new Thread(() -> {
							for (int i = 0; writing.get(); i++) {
								String id = "w" + writer + "-" + i;
								String queue = QUEUES.get(i % QUEUES.size());
								transactions.executeWithoutResult((status) -> template
									.send(DelayMessage.builder(id).queue(queue).id(id).delay(Duration.ZERO).build()));
								written.incrementAndGet();
								sleep(20);
							}
						}, "writer-" + w);
						thread.start();
						writers.add(thread);
					}
					try {
						await().atMost(Duration.ofSeconds(20)).until(() -> received.size() > 50);
						redis.kill();
						// the relay's step: its batch times out (2 s), then each queue's
						// send (2 s each); Redis answers again while the second queue's
						// send waits: the first queue's failed, the second's goes through
						sleep(4500);
						long committed = jdbc.queryForObject("SELECT COALESCE(MAX(seq), 0) FROM delayqueue_outbox",
								Long.class);
						long waiting = jdbc.queryForObject("SELECT COUNT(*) FROM delayqueue_outbox", Long.class);
						assertThat(waiting).as("rows waiting while Redis is down").isGreaterThan(50);
						redis.startAgain();
						long back = System.nanoTime();
						await().atMost(Duration.ofSeconds(45))
							.pollInterval(Duration.ofMillis(20))
							.until(() -> jdbc.queryForObject("SELECT COUNT(*) FROM delayqueue_outbox WHERE seq <= ?",
									Long.class, committed) == 0);
						long relayedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - back);
						System.out.println("Outbox relay (Boot, PostgreSQL): the " + waiting
								+ " rows committed during a 4.5 s outage relayed " + relayedMillis
								+ " ms after Redis answered again");
						// the starter's reconnect (1 s at most) and the relay's backoff
						// (0.5 s at most), with room for a busy machine; a queue's rows
						// postponed as unsendable wait 30 s
						assertThat(relayedMillis).as("ms from Redis answering to every waiting row relayed")
							.isLessThan(3000);
					}
					finally {
						writing.set(false);
						for (Thread writer : writers) {
							writer.join();
						}
					}
					await().atMost(Duration.ofSeconds(30)).until(() -> received.size() == written.get());
					System.out.println("Outbox relay (Boot, PostgreSQL): " + written.get() + " messages, "
							+ received.values().stream().filter((times) -> times > 1).count()
							+ " delivered more than once");
				});
		}
	}

	private static void sleep(long millis) {
		try {
			Thread.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	@Configuration(proxyBeanMethods = false)
	static class Application {

		final Map<String, Integer> received = new ConcurrentHashMap<>();

		@Bean
		DataSource dataSource() {
			return new DriverManagerDataSource(database.jdbcUrl(), database.user(), database.password());
		}

		@Bean
		DataSourceTransactionManager transactionManager(DataSource dataSource) {
			return new DataSourceTransactionManager(dataSource);
		}

		@DelayListener(queue = "o02")
		void onO02(String id) {
			this.received.merge(id, 1, Integer::sum);
		}

		@DelayListener(queue = "o02-fresh")
		void onFresh(String id) {
			this.received.merge(id, 1, Integer::sum);
		}

	}

}
