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
package io.github.delayqueue.core.reliability;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.DatabaseServer;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The outbox against a JVM killed with SIGKILL (PostgreSQL): after its transactions
 * committed and before its relay sent them, and after its relay sent them to Redis and
 * before it deleted the rows; and against Redis killed for 30 s while transactions keep
 * coming. Every committed message is delivered, none of the rolled back ones, none twice
 * while still scheduled.
 */
@Tag("faults")
@RedisTest
class OutboxCrashTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	private static final int COUNT = 50;

	private static DatabaseServer database;

	private final RedisServer redis;

	private final RedisConnectionFactory connectionFactory;

	private HikariDataSource dataSource;

	private JdbcTemplate jdbc;

	private String queue;

	OutboxCrashTests(RedisServer redis, RedisConnectionFactory connectionFactory) {
		this.redis = redis;
		this.connectionFactory = connectionFactory;
	}

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

	@BeforeEach
	void tables(TestInfo info) {
		this.queue = info.getTestMethod().orElseThrow().getName();
		this.dataSource = new HikariDataSource();
		this.dataSource.setJdbcUrl(database.jdbcUrl());
		this.dataSource.setUsername(database.user());
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.jdbc.execute("DROP TABLE IF EXISTS orders");
		this.jdbc.execute("CREATE TABLE orders (id VARCHAR(100) PRIMARY KEY)");
		this.jdbc.execute("DROP TABLE IF EXISTS delayqueue_outbox");
		try (DelayQueueEngine schema = DelayQueueEngine.builder(this.connectionFactory)
			.outbox(this.dataSource, (outbox) -> outbox.initializeSchema(true))
			.build()) {
			// the table, created once
		}
	}

	@AfterEach
	void closeDataSource() {
		this.dataSource.close();
	}

	private String[] args(int redisPort, String mode) {
		return new String[] { String.valueOf(redisPort), database.jdbcUrl(), database.user(), this.queue, mode,
				String.valueOf(COUNT) };
	}

	/** Receives with an engine that has the outbox (its relay takes what is left). */
	private Map<String, Integer> receive(DelayQueueEngine engine, Map<String, Instant> firstAt) {
		Map<String, Integer> received = new ConcurrentHashMap<>();
		DelayQueueListenerContainer container = engine
			.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
				received.merge(payload, 1, Integer::sum);
				firstAt.putIfAbsent(payload, Instant.now());
			})
			.build();
		container.start();
		return received;
	}

	@Test
	void killedAfterItsTransactionsCommittedAndBeforeItsRelaySentThem() throws Exception {
		// the instance's Redis does not answer: its relay never sends
		try (ReliabilitySupport.ChildJvm child = new ReliabilitySupport.ChildJvm(OutboxInstance.class,
				args(deadPort(), "commit"))) {
			child.awaitLine("COMMITTED", WAIT);
			child.kill();
		}
		assertThat(rows()).isEqualTo(COUNT);
		Map<String, Instant> firstAt = new ConcurrentHashMap<>();
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory)
			.outbox(this.dataSource, (outbox) -> outbox.pollInterval(Duration.ofMillis(50)))
			.build()) {
			Map<String, Integer> received = receive(engine, firstAt);
			await().atMost(WAIT).until(() -> received.size() == COUNT);
			Thread.sleep(1000);
			assertThat(received).hasSize(COUNT).allSatisfy((id, times) -> {
				assertThat(id).startsWith("m-");
				assertThat(times).isEqualTo(1);
			});
			assertThat(rows()).isZero();
		}
	}

	@Test
	void killedAfterItsRelaySentTheRowsAndBeforeItDeletedThem() throws Exception {
		// committed by an instance whose relay cannot reach Redis
		try (ReliabilitySupport.ChildJvm writer = new ReliabilitySupport.ChildJvm(OutboxInstance.class,
				args(deadPort(), "commit"))) {
			writer.awaitLine("COMMITTED", WAIT);
			writer.kill();
		}
		// SHARE mode: a relay may lock the rows (FOR UPDATE) but not delete them
		java.sql.Connection lock = this.dataSource.getConnection();
		lock.setAutoCommit(false);
		try (java.sql.Statement statement = lock.createStatement()) {
			statement.execute("LOCK TABLE delayqueue_outbox IN SHARE MODE");
			try (ReliabilitySupport.ChildJvm relay = new ReliabilitySupport.ChildJvm(OutboxInstance.class,
					args(this.redis.port(), "relay"))) {
				relay.awaitLine("STARTED", WAIT);
				try (DelayQueueEngine observer = DelayQueueEngine.builder(this.connectionFactory).build()) {
					// sent: scheduled in Redis, still in the outbox
					await().atMost(WAIT).until(() -> observer.admin().stats(this.queue).scheduled() == COUNT);
				}
				relay.kill();
			}
		}
		finally {
			lock.rollback();
			lock.close();
		}
		assertThat(rows()).isEqualTo(COUNT);
		Map<String, Instant> firstAt = new ConcurrentHashMap<>();
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory)
			.outbox(this.dataSource, (outbox) -> outbox.pollInterval(Duration.ofMillis(50)))
			.build()) {
			// the rows go again: Redis has them scheduled, nothing twice
			await().atMost(WAIT).until(() -> rows() == 0);
			assertThat(engine.admin().stats(this.queue).scheduled()).isEqualTo(COUNT);
			Map<String, Integer> received = receive(engine, firstAt);
			await().atMost(WAIT).until(() -> received.size() == COUNT);
			Thread.sleep(1000);
			assertThat(received).hasSize(COUNT).allSatisfy((id, times) -> {
				assertThat(id).startsWith("m-");
				assertThat(times).isEqualTo(1);
			});
		}
	}

	@Test
	void redisDownFor30SecondsDuringAStreamOfTransactions() throws Exception {
		try (RedisServer redis = RedisServer.builder().appendOnly(RedisServer.AppendFsync.ALWAYS).start()) {
			LettuceConnectionFactory factory = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration("127.0.0.1", redis.port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
			factory.afterPropertiesSet();
			factory.start();
			TransactionTemplate transactions = new TransactionTemplate(
					new DataSourceTransactionManager(this.dataSource));
			List<String> committed = new CopyOnWriteArrayList<>();
			AtomicBoolean producing = new AtomicBoolean(true);
			try (DelayQueueEngine engine = DelayQueueEngine.builder(factory)
				.outbox(this.dataSource, (outbox) -> outbox.pollInterval(Duration.ofMillis(50)))
				.build()) {
				Map<String, Integer> received = receive(engine, new ConcurrentHashMap<>());
				Thread producer = new Thread(() -> {
					for (int i = 0; producing.get(); i++) {
						String id = "m-" + i;
						String rolledBack = "rb-" + i;
						transactions.executeWithoutResult((status) -> {
							this.jdbc.update("INSERT INTO orders (id) VALUES (?)", id);
							engine.template().sendWithOutbox(DelayMessage.builder(id).queue(this.queue).id(id).build());
						});
						committed.add(id);
						transactions.executeWithoutResult((status) -> {
							engine.template()
								.sendWithOutbox(
										DelayMessage.builder(rolledBack).queue(this.queue).id(rolledBack).build());
							status.setRollbackOnly();
						});
						sleep(20);
					}
				}, "outbox-producer");
				producer.start();
				Thread.sleep(2000);
				redis.kill();
				int beforeOutage = committed.size();
				Thread.sleep(30_000);
				int duringOutage = committed.size() - beforeOutage;
				redis.restart();
				Thread.sleep(2000);
				producing.set(false);
				producer.join(30_000);
				await().atMost(WAIT).until(() -> received.keySet().containsAll(committed));
				await().atMost(WAIT).until(() -> rows() == 0);
				long twice = received.values().stream().filter((times) -> times > 1).count();
				System.out.println("Outbox, Redis down 30 s: " + committed.size() + " transactions committed ("
						+ duringOutage + " during the outage), all delivered; " + twice
						+ " delivered twice (a batch whose reply the kill lost)");
				assertThat(duringOutage).as("transactions committed while Redis was down").isGreaterThan(100);
				assertThat(received.keySet()).allMatch((id) -> id.startsWith("m-")).hasSize(committed.size());
			}
			finally {
				producing.set(false);
				factory.destroy();
			}
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

	private long rows() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM delayqueue_outbox", Long.class);
	}

	/** A port nothing listens on: a server's, started and stopped. */
	private static int deadPort() {
		try (RedisServer server = RedisServer.start()) {
			return server.port();
		}
	}

}
