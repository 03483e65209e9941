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
package io.github.delayqueue.core;

import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.zaxxer.hikari.HikariConfig;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import io.github.delayqueue.core.internal.outbox.OutboxDialect;
import io.github.delayqueue.test.RedisServer;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The transactional outbox ({@link DelayQueueEngineBuilder#outbox}) on a real database: a
 * message sent inside a transaction exists exactly when the transaction commits, relays
 * move committed rows to Redis (none twice at once, none lost while Redis is down), and a
 * delay counts from the send call. Run on H2, PostgreSQL and MariaDB.
 */
abstract class OutboxContract extends QueueTestFixture {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private final RedisServer redis;

	private HikariDataSource dataSource;

	private JdbcTemplate jdbc;

	private TransactionTemplate transactions;

	OutboxContract(RedisServer redis, RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
		this.redis = redis;
	}

	/** The database's JDBC URL, user and password. */
	abstract String[] database();

	@BeforeEach
	void database(org.junit.jupiter.api.TestInfo info) {
		String[] database = database();
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(database[0]);
		config.setUsername(database[1]);
		config.setPassword(database[2]);
		config.setMaximumPoolSize(20);
		this.dataSource = new HikariDataSource(config);
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.jdbc.execute("DROP TABLE IF EXISTS orders");
		this.jdbc.execute("CREATE TABLE orders (id VARCHAR(100) PRIMARY KEY)");
		this.jdbc.execute("DROP TABLE IF EXISTS delayqueue_outbox");
		this.transactions = new TransactionTemplate(new DataSourceTransactionManager(this.dataSource));
	}

	@AfterEach
	void closeDatabase() {
		stop();
		this.dataSource.close();
	}

	private DelayQueueEngine engine() {
		return build(DelayQueueEngine.builder(this.connectionFactory)
			.outbox(this.dataSource, (outbox) -> outbox.initializeSchema(true).pollInterval(Duration.ofMillis(100))));
	}

	private Map<String, Integer> listen(DelayQueueEngine engine) {
		Map<String, Integer> received = new ConcurrentHashMap<>();
		start(engine
			.listenerContainer(this.queue, "g", String.class,
					(payload, context) -> received.merge(payload, 1, Integer::sum))
			.concurrency(8)
			.build());
		return received;
	}

	private DelayMessage<String> message(String payload, Duration delay) {
		return DelayMessage.builder(payload).queue(this.queue).id(payload).delay(delay).build();
	}

	private long rows() {
		return this.jdbc.queryForObject("SELECT COUNT(*) FROM delayqueue_outbox", Long.class);
	}

	@Test
	void aCommittedSendIsDeliveredAndARolledBackOneNever() {
		DelayQueueEngine engine = engine();
		Map<String, Integer> received = listen(engine);
		SendResult result = this.transactions.execute((status) -> {
			this.jdbc.update("INSERT INTO orders (id) VALUES ('o-1')");
			return engine.template().sendWithOutbox(message("cancel o-1", Duration.ofMillis(200)));
		});
		assertThat(result.status()).isEqualTo(SendResult.Status.DEFERRED);
		assertThat(result.id()).isEqualTo("cancel o-1");
		this.transactions.executeWithoutResult((status) -> {
			this.jdbc.update("INSERT INTO orders (id) VALUES ('o-2')");
			engine.template().sendWithOutbox(message("cancel o-2", Duration.ZERO));
			status.setRollbackOnly();
		});
		await().atMost(WAIT).until(() -> received.containsKey("cancel o-1"));
		sleep(500);
		assertThat(received).containsOnlyKeys("cancel o-1");
		assertThat(rows()).isZero();
		assertThat(engine.outbox().backlog()).isEqualTo(new DelayQueueOutbox.Backlog(0, Duration.ZERO));
	}

	@Test
	void aTransactionManagerThatNeverSynchronizesStillHasItsRowsCommittedWithIt() {
		DelayQueueEngine engine = engine();
		Map<String, Integer> received = listen(engine);
		DataSourceTransactionManager manager = new DataSourceTransactionManager(this.dataSource);
		manager.setTransactionSynchronization(DataSourceTransactionManager.SYNCHRONIZATION_NEVER);
		TransactionTemplate never = new TransactionTemplate(manager);
		never.executeWithoutResult((status) -> {
			assertThat(engine.template().sendWithOutbox(message("kept", Duration.ZERO)).status())
				.isEqualTo(SendResult.Status.DEFERRED);
		});
		never.executeWithoutResult((status) -> {
			engine.template().sendWithOutbox(message("dropped", Duration.ZERO));
			status.setRollbackOnly();
		});
		await().atMost(WAIT).until(() -> received.containsKey("kept"));
		sleep(300);
		assertThat(received).containsOnlyKeys("kept");
	}

	@Test
	void outsideATransactionItSendsAtOnce() {
		DelayQueueEngine engine = engine();
		SendResult result = engine.template().sendWithOutbox(message("now", Duration.ofHours(1)));
		assertThat(result.status()).isEqualTo(SendResult.Status.SCHEDULED);
		assertThat(rows()).isZero();
		assertThat(engine.admin().stats(this.queue).scheduled()).isEqualTo(1);
	}

	@Test
	void theDelayCountsFromTheSendCallNotFromTheCommitOrTheRelay() {
		DelayQueueEngine engine = engine();
		Map<String, Instant> received = new ConcurrentHashMap<>();
		start(engine
			.listenerContainer(this.queue, "g", String.class,
					(payload, context) -> received.put(payload, Instant.now()))
			.build());
		Instant[] sent = new Instant[1];
		this.transactions.executeWithoutResult((status) -> {
			sent[0] = Instant.now();
			engine.template().sendWithOutbox(message("m", Duration.ofMillis(1500)));
			sleep(700);
		});
		await().atMost(WAIT).until(() -> received.containsKey("m"));
		Duration after = Duration.between(sent[0], received.get("m"));
		assertThat(after).isBetween(Duration.ofMillis(1500), Duration.ofMillis(2100));
	}

	@Test
	void whileRedisIsDownRowsWaitAndNothingIsLost() {
		DelayQueueEngine engine = engine();
		Map<String, Integer> received = listen(engine);
		this.redis.kill();
		try {
			long started = System.nanoTime();
			for (int i = 0; i < 20; i++) {
				String id = "down-" + i;
				this.transactions.executeWithoutResult((status) -> {
					this.jdbc.update("INSERT INTO orders (id) VALUES (?)", id);
					engine.template().sendWithOutbox(message(id, Duration.ZERO));
				});
			}
			// the relay, waiting for Redis with rows locked, does not hold up the
			// application's inserts (MariaDB's gap locks did: a minute for these 20)
			assertThat(Duration.ofNanos(System.nanoTime() - started)).as("20 transactions while Redis is down")
				.isLessThan(Duration.ofSeconds(10));
			sleep(1500);
			DelayQueueOutbox.Backlog backlog = engine.outbox().backlog();
			assertThat(backlog.rows()).isEqualTo(20);
			assertThat(backlog.oldest()).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
			// the relay's failure shows (the health of the outbox)
			await().atMost(WAIT).until(() -> !engine.outbox().isHealthy());
			assertThat(engine.outbox().lastFailure()).isNotNull();
		}
		finally {
			this.redis.restart();
		}
		await().atMost(WAIT).until(() -> received.size() == 20);
		assertThat(received.values()).allMatch((times) -> times == 1);
		await().atMost(WAIT).until(() -> rows() == 0);
		await().atMost(WAIT).until(() -> engine.outbox().isHealthy());
	}

	@Test
	void afterAnOutageUnderWritesTheRelayResumesWithinAFewBackoffs() throws Exception {
		// the operators' setting (PostgreSQL); the relay's steps are the same on the
		// others
		org.junit.jupiter.api.Assumptions
			.assumeTrue(this.jdbc.execute((Connection connection) -> connection.getMetaData().getDatabaseProductName())
				.equals("PostgreSQL"), "run on PostgreSQL");
		// the starter's reconnect delay (100 ms doubling to 1 s), not Lettuce's (to 30 s)
		ClientResources resources = ClientResources.builder()
			.reconnectDelay(Delay.exponential(Duration.ofMillis(100), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS))
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(this.redis.standaloneConfiguration(),
				LettuceClientConfiguration.builder().clientResources(resources).build());
		factory.afterPropertiesSet();
		factory.start();
		try {
			relayAfterAnOutage(build(DelayQueueEngine.builder(factory)
				.outbox(this.dataSource,
						(outbox) -> outbox.initializeSchema(true).pollInterval(Duration.ofMillis(100)))));
		}
		finally {
			stop();
			factory.destroy();
			resources.shutdown();
		}
	}

	private void relayAfterAnOutage(DelayQueueEngine engine) throws Exception {
		Map<String, Integer> received = listen(engine);
		AtomicBoolean writing = new AtomicBoolean(true);
		AtomicInteger written = new AtomicInteger();
		List<Thread> writers = new ArrayList<>();
		for (int w = 0; w < 4; w++) {
			int writer = w;
			Thread thread = new Thread(() -> {
				for (int i = 0; writing.get(); i++) {
					String id = "w" + writer + "-" + i;
					this.transactions.executeWithoutResult((status) -> {
						this.jdbc.update("INSERT INTO orders (id) VALUES (?)", id);
						engine.template().sendWithOutbox(message(id, Duration.ZERO));
					});
					written.incrementAndGet();
					sleep(20);
				}
			});
			thread.start();
			writers.add(thread);
		}
		try {
			sleep(1000);
			boolean pause = Boolean.getBoolean("outage.pause");
			if (pause) {
				this.redis.pause();
			}
			else {
				this.redis.kill();
			}
			sleep(Long.getLong("outage.millis", 6000));
			assertThat(rows()).as("rows waiting while Redis is down").isGreaterThan(50);
			long waiting = rows();
			if (pause) {
				this.redis.resume();
			}
			else {
				this.redis.restart();
			}
			long back = System.nanoTime();
			await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> rows() < waiting / 2);
			long resumedMillis = Duration.ofNanos(System.nanoTime() - back).toMillis();
			System.out.println("Outbox relay: half of " + waiting + " rows relayed " + resumedMillis
					+ " ms after Redis answered again");
			// the relay's backoff is 500 ms at most, and the starter's reconnect 1 s
			assertThat(resumedMillis).as("ms from Redis answering to half the waiting rows relayed").isLessThan(5000);
		}
		finally {
			writing.set(false);
			for (Thread writer : writers) {
				writer.join();
			}
		}
		await().atMost(WAIT).until(() -> received.size() == written.get());
		if (!Boolean.getBoolean("outage.pause")) {
			// a killed server answered nothing: no send was applied without its row's
			// delete
			assertThat(received.values()).allMatch((times) -> times == 1);
		}
	}

	@Test
	void relaysOnSeveralInstancesNeverSendARowTwice() throws Exception {
		DelayQueueEngine first = engine();
		DelayQueueEngine second = engine();
		DelayQueueEngine third = engine();
		Map<String, Integer> received = listen(first);
		int transactions = 600;
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<java.util.concurrent.Future<?>> sends = new ArrayList<>();
			for (int i = 0; i < transactions; i++) {
				String id = "m-" + i;
				DelayQueueEngine engine = List.of(first, second, third).get(i % 3);
				// due at once: a stream entry is not deduplicated, a second send would
				// deliver twice
				sends.add(threads.submit(() -> this.transactions.executeWithoutResult((status) -> {
					this.jdbc.update("INSERT INTO orders (id) VALUES (?)", id);
					engine.template().sendWithOutbox(message(id, Duration.ZERO));
				})));
			}
			for (java.util.concurrent.Future<?> send : sends) {
				send.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		await().atMost(WAIT).until(() -> received.size() == transactions);
		sleep(500);
		assertThat(received).hasSize(transactions);
		assertThat(received.values()).allMatch((times) -> times == 1);
		assertThat(rows()).isZero();
	}

	@Test
	void withSeveralRelayWorkersTheRowsOfOneMessageIdKeepTheirOrder() throws Exception {
		// small batches and 4 workers: one id's rows fall in many batches, which run at
		// once; each id's replacements must still reach Redis in their commit order (on
		// MariaDB a worker's locking scan locks, for a moment, the rows of other shares:
		// SKIP LOCKED passed over them)
		DelayQueueEngine engine = orderedRelay(4);
		assertThat(engine.outbox().relayWorkers()).isEqualTo(4);
		writeVersionsAndCheckTheLastWins(engine, engine);
	}

	@Test
	void acrossInstancesTheRowsOfOneMessageIdKeepTheirOrder() throws Exception {
		// two instances' workers of one share take the same rows: SKIP LOCKED passes over
		// the rows one holds, and the other must not send a newer row of their ids first
		DelayQueueEngine first = orderedRelay(2);
		DelayQueueEngine second = orderedRelay(2);
		writeVersionsAndCheckTheLastWins(first, second);
	}

	private DelayQueueEngine orderedRelay(int workers) {
		return build(DelayQueueEngine.builder(this.connectionFactory)
			.outbox(this.dataSource,
					(outbox) -> outbox.initializeSchema(true)
						.pollInterval(Duration.ofMillis(20))
						.batchSize(3)
						.relayWorkers(workers)));
	}

	private void writeVersionsAndCheckTheLastWins(DelayQueueEngine first, DelayQueueEngine second) throws Exception {
		int ids = 48;
		int versions = 12;
		ExecutorService threads = Executors.newFixedThreadPool(8);
		try {
			List<java.util.concurrent.Future<?>> writers = new ArrayList<>();
			for (int i = 0; i < ids; i++) {
				String id = "debounced-" + i;
				DelayQueueEngine engine = (i % 2 == 0) ? first : second;
				writers.add(threads.submit(() -> {
					for (int version = 0; version < versions; version++) {
						DelayMessage<String> message = DelayMessage.builder(id + "#" + version)
							.queue(this.queue)
							.id(id)
							.delay(Duration.ofHours(1).plusSeconds(version))
							.replaceExisting()
							.build();
						this.transactions.executeWithoutResult((status) -> engine.template().sendWithOutbox(message));
					}
					return null;
				}));
			}
			for (java.util.concurrent.Future<?> writer : writers) {
				writer.get(60, TimeUnit.SECONDS);
			}
		}
		finally {
			threads.shutdownNow();
		}
		await().atMost(WAIT).until(() -> rows() == 0);
		for (int i = 0; i < ids; i++) {
			ScheduledMessage scheduled = first.admin().scheduledMessage(this.queue, "debounced-" + i).orElseThrow();
			// the last version won: the one committed last
			assertThat(new String(scheduled.payload(), java.nio.charset.StandardCharsets.UTF_8)).as("debounced-" + i)
				.contains("debounced-" + i + "#" + (versions - 1));
		}
	}

	@Test
	void aRowThatCannotBeSentDoesNotHoldUpTheOthers() {
		DelayQueueEngine engine = engine();
		// a row written by hand, with a queue name no engine sends to: oldest of all
		this.jdbc.update(
				"INSERT INTO delayqueue_outbox (queue_name, message_id, message_key, envelope, due_at, "
						+ "send_mode, created_at, retry_at) VALUES ('no such queue!', 'x', NULL, ?, 0, '0', 0, 0)",
				(Object) new byte[] { 1 });
		Map<String, Integer> received = listen(engine);
		for (int i = 0; i < 10; i++) {
			String id = "after-" + i;
			this.transactions
				.executeWithoutResult((status) -> engine.template().sendWithOutbox(message(id, Duration.ZERO)));
		}
		await().atMost(WAIT).until(() -> received.size() == 10);
		// it waits, tried again later; the relay is not failing
		assertThat(rows()).isEqualTo(1);
		assertThat(this.jdbc.queryForObject("SELECT retry_at FROM delayqueue_outbox", Long.class))
			.isGreaterThan(System.currentTimeMillis());
		assertThat(engine.outbox().isHealthy()).isTrue();
	}

	@Test
	void sendThroughOutboxMakesEverySendInATransactionAnOutboxSend() {
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory)
			.outbox(this.dataSource, (outbox) -> outbox.initializeSchema(true).sendThroughOutbox(true)));
		Map<String, Integer> received = listen(engine);
		List<SendResult> results = this.transactions.execute((status) -> engine.template()
			.sendAll(List.of(message("a", Duration.ZERO), message("b", Duration.ZERO))));
		assertThat(results).extracting(SendResult::status)
			.containsExactly(SendResult.Status.DEFERRED, SendResult.Status.DEFERRED);
		// an async send too: written on the caller's thread, in its transaction
		SendResult async = this.transactions
			.execute((status) -> engine.template().sendAsync(message("d", Duration.ZERO)).join());
		assertThat(async.status()).isEqualTo(SendResult.Status.DEFERRED);
		this.transactions.executeWithoutResult((status) -> {
			engine.template().sendAsync(message("rolled back", Duration.ZERO)).join();
			status.setRollbackOnly();
		});
		await().atMost(WAIT).until(() -> received.size() == 3);
		sleep(300);
		assertThat(received).containsOnlyKeys("a", "b", "d");
		// outside a transaction: at once
		assertThat(engine.template().send(message("c", Duration.ofHours(1))).status())
			.isEqualTo(SendResult.Status.SCHEDULED);
	}

	@Test
	void whileTheRelayIsBehindARowItPassedOverGoesWithinAPollInterval() throws Exception {
		// behind, the relay reads on from the newest row it took; a row it passed over
		// (here one waiting for its retry, as after a refusal) must not wait until the
		// writers stop
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory)
			.outbox(this.dataSource,
					(outbox) -> outbox.initializeSchema(true)
						.pollInterval(Duration.ofMillis(200))
						.batchSize(5)
						.relayWorkers(1)));
		Map<String, Integer> received = listen(engine);
		this.transactions.executeWithoutResult((status) -> {
			engine.template().sendWithOutbox(message("held", Duration.ZERO));
			this.jdbc.update("UPDATE delayqueue_outbox SET retry_at = ? WHERE message_id = 'held'", Long.MAX_VALUE);
		});
		AtomicBoolean writing = new AtomicBoolean(true);
		AtomicInteger written = new AtomicInteger();
		Thread writer = new Thread(() -> {
			while (writing.get()) {
				this.transactions.executeWithoutResult((status) -> {
					for (int i = 0; i < 50; i++) {
						engine.template().sendWithOutbox(message("w-" + written.incrementAndGet(), Duration.ZERO));
					}
				});
			}
		});
		writer.start();
		try {
			await().atMost(WAIT).until(() -> received.size() >= 200);
			assertThat(received).doesNotContainKey("held");
			// released while the writers keep the relay behind (a relay that caught up
			// for a
			// moment would take the row at its next look, proving nothing): the writer's
			// 50
			// rows a transaction outrun the relay's 5
			await().atMost(WAIT).until(() -> rows() > 5);
			this.jdbc.update("UPDATE delayqueue_outbox SET retry_at = 0 WHERE message_id = 'held'");
			long released = System.nanoTime();
			await().atMost(WAIT).until(() -> received.containsKey("held"));
			long waitedMillis = (System.nanoTime() - released) / 1_000_000;
			// the writers go on meanwhile: the row went while the relay was behind, not
			// once
			// the writers stopped
			assertThat(waitedMillis).isLessThan(5_000);
		}
		finally {
			writing.set(false);
			writer.join(10_000);
		}
		// every row relayed, and every message delivered (once)
		await().atMost(WAIT).until(() -> rows() == 0 && received.size() == written.get() + 1);
		assertThat(received).allSatisfy((id, count) -> assertThat(count).isOne());
	}

	@Test
	void theSchemaItCreatesHasTheIdIndexAndATableWithoutItIsWarnedAboutAndStillRelays() throws Exception {
		DelayQueueEngine created = engine();
		try (Connection connection = this.dataSource.getConnection()) {
			assertThat(OutboxDialect.hasIdIndex(connection, "delayqueue_outbox")).isTrue();
		}
		stop();
		// a table of an earlier release: no index
		this.jdbc.execute("DROP TABLE delayqueue_outbox");
		try (Connection connection = this.dataSource.getConnection()) {
			String table = OutboxDialect.of(connection)
				.ddlStatements("delayqueue_outbox")
				.get(0)
				.replaceAll(",\\s*INDEX [^)]*\\)", "");
			this.jdbc.execute(table);
			assertThat(OutboxDialect.hasIdIndex(connection, "delayqueue_outbox")).isFalse();
		}
		ListAppender<ILoggingEvent> appender = new ListAppender<>();
		appender.start();
		Logger logger = (Logger) LoggerFactory.getLogger(DelayQueueOutbox.class);
		logger.addAppender(appender);
		try {
			DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory)
				.outbox(this.dataSource, (outbox) -> outbox.pollInterval(Duration.ofMillis(100))));
			assertThat(appender.list).anySatisfy((event) -> assertThat(event.getFormattedMessage())
				.contains("The outbox table 'delayqueue_outbox' has no index on message_id")
				.contains("CREATE INDEX"));
			Map<String, Integer> received = listen(engine);
			this.transactions
				.executeWithoutResult((status) -> engine.template().sendWithOutbox(message("a", Duration.ZERO)));
			await().atMost(WAIT).until(() -> received.containsKey("a"));
		}
		finally {
			logger.detachAppender(appender);
		}
		assertThat(created).isNotNull();
	}

	@Test
	void aMissingTableFailsTheBuildWithItsDdl() {
		assertThatIllegalStateException()
			.isThrownBy(() -> DelayQueueEngine.builder(this.connectionFactory)
				.outbox(this.dataSource, (outbox) -> outbox.table("no_such_outbox"))
				.build())
			.withMessageContaining("The outbox table 'no_such_outbox' is missing")
			.withMessageContaining("CREATE TABLE IF NOT EXISTS no_such_outbox (");
	}

	@Test
	void withEverySendThroughTheOutboxAPlainSendInAnotherDataSourcesTransactionIsRefusedOrWaitsForItsCommit() {
		DelayQueueEngine through = build(DelayQueueEngine.builder(this.connectionFactory)
			.outbox(this.dataSource, (outbox) -> outbox.initializeSchema(true).sendThroughOutbox(true)));
		DataSource other = new org.springframework.jdbc.datasource.DriverManagerDataSource(
				"jdbc:h2:mem:other-plain;DB_CLOSE_DELAY=-1");
		TransactionTemplate otherTransactions = new TransactionTemplate(new DataSourceTransactionManager(other));
		assertThatIllegalStateException()
			.isThrownBy(() -> otherTransactions
				.executeWithoutResult((status) -> through.template().send(message("plain", Duration.ZERO))))
			.withMessageContaining("not one of the outbox's data source");
		assertThatIllegalStateException()
			.isThrownBy(() -> otherTransactions.executeWithoutResult(
					(status) -> through.template().sendAll(List.of(message("plain-all", Duration.ZERO)))))
			.withMessageContaining("not one of the outbox's data source");
		java.util.concurrent.CompletableFuture<SendResult> async = otherTransactions
			.execute((status) -> through.template().sendAsync(message("plain-async", Duration.ZERO)));
		assertThat(async).failsWithin(Duration.ofSeconds(1))
			.withThrowableThat()
			.havingCause()
			.withMessageContaining("not one of the outbox's data source");
		QueueStats stats = through.admin().stats(this.queue);
		assertThat(stats.scheduled() + stats.ready()).as("nothing reached Redis").isZero();
		assertThat(rows()).isZero();

		// with sendAfterCommit too, it waits for that transaction's commit instead
		DelayQueueEngine deferring = build(DelayQueueEngine.builder(this.connectionFactory)
			.outbox(this.dataSource, (outbox) -> outbox.initializeSchema(true).sendThroughOutbox(true))
			.sendAfterCommit(true));
		otherTransactions.executeWithoutResult((status) -> {
			assertThat(deferring.template().send(message("rolled-back", Duration.ZERO)).status())
				.isEqualTo(SendResult.Status.DEFERRED);
			status.setRollbackOnly();
		});
		otherTransactions
			.executeWithoutResult((status) -> deferring.template().send(message("committed", Duration.ofHours(1))));
		assertThat(deferring.admin().scheduledMessage(this.queue, "committed")).isPresent();
		assertThat(deferring.admin().stats(this.queue).ready()).as("the rolled-back one").isZero();
	}

	@Test
	void badSettingsAndMisuseAreRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayQueueEngine.builder(this.connectionFactory)
				.outbox(this.dataSource, (outbox) -> outbox.table("orders; DROP TABLE x")))
			.withMessageContaining("Outbox table name must be letters, digits and '_'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayQueueEngine.builder(this.connectionFactory)
				.outbox(this.dataSource, (outbox) -> outbox.relayWorkers(0)))
			.withMessage("Outbox relay workers must be between 1 and 16, but was 0");
		DelayQueueEngine plain = build(DelayQueueEngine.builder(this.connectionFactory));
		assertThatIllegalStateException().isThrownBy(() -> plain.template().sendWithOutbox(message("x", Duration.ZERO)))
			.withMessageContaining("The engine has no outbox");
		// a transaction of another data source: the row would not commit with it
		DelayQueueEngine engine = engine();
		DataSource other = new org.springframework.jdbc.datasource.DriverManagerDataSource(
				"jdbc:h2:mem:other;DB_CLOSE_DELAY=-1");
		assertThatIllegalStateException()
			.isThrownBy(() -> new TransactionTemplate(new DataSourceTransactionManager(other))
				.executeWithoutResult((status) -> engine.template().sendWithOutbox(message("x", Duration.ZERO))))
			.withMessageContaining("not one of the outbox's data source");
		// bad input fails in the transaction: nothing written
		assertThatIllegalArgumentException().isThrownBy(() -> this.transactions.executeWithoutResult(
				(status) -> engine.template().sendWithOutbox(message("x".repeat(2_000_000), Duration.ZERO))));
		assertThat(rows()).isZero();
	}

}
