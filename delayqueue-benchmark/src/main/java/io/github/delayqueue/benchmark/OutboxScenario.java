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
package io.github.delayqueue.benchmark;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import java.nio.charset.StandardCharsets;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueEngineBuilder;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.github.delayqueue.test.DatabaseServer;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.stream.ByteRecord;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The {@code outbox} scenario: {@code n} transactions from {@code threads} threads on
 * PostgreSQL (a server of the machine's packages, started for the run, or
 * {@code --jdbc}), each inserting an order row and sending one message due at once; with
 * {@code sendAfterCommit}, then through the outbox. Per mode: transactions per second,
 * and the time from each commit to the message's delivery (p50, p99, max), an upper bound
 * of the relay's lag.
 */
final class OutboxScenario {

	private final RedisConnectionFactory connectionFactory;

	private final Scenarios scenarios;

	private final String jdbc;

	private final DatabaseServer.Kind database;

	OutboxScenario(RedisConnectionFactory connectionFactory, Scenarios scenarios, String jdbc, String database) {
		this.connectionFactory = connectionFactory;
		this.scenarios = scenarios;
		this.jdbc = jdbc;
		this.database = switch (database) {
			case "postgresql" -> DatabaseServer.Kind.POSTGRESQL;
			case "mariadb" -> DatabaseServer.Kind.MARIADB;
			default -> throw new IllegalArgumentException(
					"--database must be postgresql or mariadb, but was '" + database + "'");
		};
	}

	Map<String, Object> run(int n, int threads) throws Exception {
		return run(n, threads, 0);
	}

	/**
	 * @param seconds 0: {@code n} transactions per mode; more: the outbox alone, its
	 * writers committing as fast as they can for that long, and the relay measured
	 * against them (rows relayed per second, lag, rows left waiting)
	 */
	Map<String, Object> run(int n, int threads, int seconds) throws Exception {
		DatabaseServer server = (this.jdbc == null) ? DatabaseServer.start(this.database) : null;
		try (HikariDataSource dataSource = new HikariDataSource()) {
			dataSource.setJdbcUrl((server != null) ? server.jdbcUrl() : this.jdbc);
			if (server != null) {
				dataSource.setUsername(server.user());
			}
			dataSource.setMaximumPoolSize(threads + 8);
			Map<String, Object> result = new LinkedHashMap<>();
			result.put("scenario", "outbox");
			result.put("database", (this.jdbc != null) ? this.jdbc.replaceAll("\\?.*", "") : this.database.name());
			result.put("threads", threads);
			if (seconds > 0) {
				result.put("seconds", seconds);
				run(dataSource, "outbox", Math.min(1000, n), threads, 0);
				run(dataSource, "outbox", 0, threads, seconds)
					.forEach((key, value) -> result.put("outbox_" + key, value));
				return result;
			}
			result.put("n", n);
			for (String mode : List.of("after_commit", "outbox")) {
				run(dataSource, mode, Math.min(1000, n), threads, 0);
				Map<String, Object> measured = run(dataSource, mode, n, threads, 0);
				measured.forEach((key, value) -> result.put(mode + "_" + key, value));
			}
			return result;
		}
		finally {
			if (server != null) {
				server.close();
			}
		}
	}

	/** The most transactions a timed run records the lag of. */
	private static final int TIMED_CAPACITY = 4_000_000;

	private Map<String, Object> run(HikariDataSource dataSource, String mode, int n, int threads, int seconds)
			throws Exception {
		this.scenarios.flush();
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		jdbc.execute("DROP TABLE IF EXISTS bench_orders");
		jdbc.execute("CREATE TABLE bench_orders (id VARCHAR(100) PRIMARY KEY, created BIGINT NOT NULL)");
		jdbc.execute("DROP TABLE IF EXISTS delayqueue_outbox");
		boolean outbox = mode.equals("outbox");
		DelayQueueEngineBuilder builder = DelayQueueEngine.builder(this.connectionFactory);
		if (outbox) {
			builder.outbox(dataSource,
					(declared) -> declared.initializeSchema(true)
						.batchSize(Integer.getInteger("outbox.batch-size", 500))
						.relayWorkers(Integer.getInteger("outbox.relay-workers", 2)));
		}
		DelayQueueEngine engine = builder.build();
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
		Map<String, Long> committedAt = new ConcurrentHashMap<>();
		// when each message reached the queue's stream: a plain XREAD of it, no consumer
		// group, so that the figure is the relay's, not the handlers'
		Map<String, Long> arrivedAt = new ConcurrentHashMap<>();
		// how many to watch for: n, or, in a timed run, what was committed once the
		// writers stopped
		AtomicInteger expected = new AtomicInteger((seconds > 0) ? Integer.MAX_VALUE : n);
		AtomicInteger committed = new AtomicInteger();
		Thread watcher = new Thread(() -> watch(arrivedAt, expected), "outbox-bench-watcher");
		watcher.setDaemon(true);
		watcher.start();
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		AtomicInteger next = new AtomicInteger();
		try {
			long start = System.nanoTime();
			long end = start + TimeUnit.SECONDS.toNanos(seconds);
			List<Future<?>> workers = new ArrayList<>();
			for (int t = 0; t < threads; t++) {
				workers.add(pool.submit(() -> {
					for (int i = next.getAndIncrement(); (seconds > 0) ? System.nanoTime() < end
							: i < n; i = next.getAndIncrement()) {
						String id = mode + "-" + i;
						DelayMessage<String> message = DelayMessage.builder(id)
							.queue(Scenarios.QUEUE)
							.id(id)
							.delay(Duration.ZERO)
							.build();
						transactions.executeWithoutResult((status) -> {
							jdbc.update("INSERT INTO bench_orders (id, created) VALUES (?, ?)", id,
									System.currentTimeMillis());
							if (outbox) {
								engine.template().sendWithOutbox(message);
							}
							else {
								engine.template().sendAfterCommit(message);
							}
						});
						committedAt.putIfAbsent(id, System.nanoTime());
						committed.incrementAndGet();
					}
					return null;
				}));
			}
			for (Future<?> worker : workers) {
				worker.get();
			}
			long written = System.nanoTime();
			int total = committed.get();
			expected.set(total);
			double writeSeconds = (written - start) / 1e9;
			// rows committed and not yet in Redis when the writers are done: a relay that
			// keeps up leaves about one step's worth
			Long backlog = outbox ? jdbc.queryForObject("SELECT COUNT(*) FROM delayqueue_outbox", Long.class) : null;
			long inRedisWhenWritten = arrivedAt.size();
			Long backlogAfterOneSecond = null;
			if (outbox && seconds > 0) {
				Thread.sleep(1000);
				backlogAfterOneSecond = jdbc.queryForObject("SELECT COUNT(*) FROM delayqueue_outbox", Long.class);
			}
			watcher.join(TimeUnit.SECONDS.toMillis(120));
			long lastArrival = arrivedAt.values().stream().mapToLong(Long::longValue).max().orElse(start);
			Latencies lag = new Latencies((seconds > 0) ? TIMED_CAPACITY : n);
			arrivedAt.forEach((id, at) -> lag
				.record(Math.max(0, TimeUnit.NANOSECONDS.toMicros(at - committedAt.getOrDefault(id, at)))));
			Map<String, Object> result = new LinkedHashMap<>();
			result.put("transactions", total);
			result.put("transactions_per_s", Scenarios.round(total / writeSeconds));
			if (outbox) {
				result.put("relay_workers", Integer.getInteger("outbox.relay-workers", 2));
				result.put("backlog_when_written", backlog);
				// from the first transaction to the last message in Redis
				result.put("relayed_per_s", Scenarios.round(total / ((lastArrival - start) / 1e9)));
				if (seconds > 0) {
					// what the relay moved while the writers wrote, and what was left
					result.put("relayed_per_s_while_writing", Scenarios.round(inRedisWhenWritten / writeSeconds));
					result.put("backlog_1s_after_written", backlogAfterOneSecond);
				}
			}
			result.put("in_redis", arrivedAt.size());
			result.put("commit_to_redis_p50_ms", Scenarios.round(lag.percentileMillis(50)));
			result.put("commit_to_redis_p99_ms", Scenarios.round(lag.percentileMillis(99)));
			result.put("commit_to_redis_max_ms", Scenarios.round(lag.percentileMillis(100)));
			return result;
		}
		finally {
			pool.shutdownNow();
			engine.close();
		}
	}

	/** Notes when each message's entry appears in the queue's stream, until n did. */
	@SuppressWarnings("unchecked")
	private void watch(Map<String, Long> arrivedAt, AtomicInteger expected) {
		byte[] stream = ("dq:{" + Scenarios.QUEUE + "}:stream").getBytes(StandardCharsets.UTF_8);
		byte[] idField = WireFormat.ID.getBytes(StandardCharsets.UTF_8);
		String last = "0-0";
		// 120 s from when the count to wait for is known
		long deadline = Long.MAX_VALUE;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			while (arrivedAt.size() < expected.get()) {
				if (deadline == Long.MAX_VALUE && expected.get() != Integer.MAX_VALUE) {
					deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
				}
				if (System.nanoTime() - deadline > 0 && deadline != Long.MAX_VALUE) {
					break;
				}
				List<ByteRecord> records = connection.streamCommands()
					.xRead(StreamReadOptions.empty().count(1000).block(Duration.ofMillis(100)),
							StreamOffset.create(stream, ReadOffset.from(last)));
				long now = System.nanoTime();
				if (records == null) {
					continue;
				}
				for (ByteRecord record : records) {
					last = record.getId().getValue();
					for (Map.Entry<byte[], byte[]> field : record.getValue().entrySet()) {
						if (java.util.Arrays.equals(field.getKey(), idField)) {
							arrivedAt.putIfAbsent(new String(field.getValue(), StandardCharsets.UTF_8), now);
						}
					}
				}
			}
		}
	}

}
