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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.redis.WireFormat;
import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A transactional outbox: a send inside a transaction writes its messages to a table
 * through the transaction's own connection, so they exist exactly when the business rows
 * do, and a relay (a {@link SupervisedLoop} on every engine that has the outbox) moves
 * committed rows to Redis and deletes them once Redis took them. A row's message id is
 * the id Redis deduplicates by, so a relay that dies between the send and the delete
 * sends it again without scheduling it twice while it is still scheduled. Relays on
 * several instances lock the rows they take ({@code FOR UPDATE SKIP LOCKED}) and never
 * send a row at the same time. See {@code docs/outbox.md}.
 * <p>
 * Obtain it with {@link DelayQueueEngine#outbox()} once the engine is built with
 * {@link DelayQueueEngineBuilder#outbox(DataSource)}.
 */
public final class DelayQueueOutbox {

	private static final Log logger = LogFactory.getLog(DelayQueueOutbox.class);

	/** The default table. */
	public static final String DEFAULT_TABLE = "delayqueue_outbox";

	private static final Pattern TABLE = Pattern
		.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

	/**
	 * How long a row the queue refused (over its size limit) waits before the next try.
	 */
	static final long REFUSED_RETRY_MILLIS = 5000;

	/** How long the rows of a queue whose send failed (not Redis being away) wait. */
	static final long FAILED_RETRY_MILLIS = 30_000;

	private final DelayQueueEngine engine;

	private final DataSource dataSource;

	private final JdbcTemplate jdbc;

	private final String table;

	private final int batchSize;

	private final long pollNanos;

	private final Clock clock;

	private final SupervisedLoop relay;

	private volatile OutboxDialect dialect;

	private volatile Throwable lastFailure;

	DelayQueueOutbox(DelayQueueEngine engine, DataSource dataSource, String table, boolean initializeSchema,
			Duration pollInterval, int batchSize, Clock clock) {
		this.engine = engine;
		this.dataSource = dataSource;
		this.jdbc = new JdbcTemplate(dataSource);
		this.table = table;
		this.batchSize = batchSize;
		this.pollNanos = pollInterval.toNanos();
		this.clock = clock;
		this.relay = new SupervisedLoop("outbox relay of table " + table, "delayqueue-outbox-relay", new Relay());
		check(initializeSchema);
	}

	/**
	 * Checks a table name: letters, digits and underscores, optionally after a schema
	 * name and a dot.
	 * @param table the name
	 * @return the name
	 */
	static String checkTable(String table) {
		if (table == null || !TABLE.matcher(table).matches()) {
			throw new IllegalArgumentException("Outbox table name must be letters, digits and '_' (optionally "
					+ "'schema.table'), at most 63 characters each, but was '" + table + "'");
		}
		return table;
	}

	/**
	 * Checks the table is there (creates it first when asked); a missing table fails with
	 * the DDL to apply. A database that does not answer is logged: the relay retries.
	 */
	private void check(boolean initializeSchema) {
		try (Connection connection = this.dataSource.getConnection()) {
			OutboxDialect found = OutboxDialect.of(connection);
			this.dialect = found;
			if (initializeSchema) {
				try (Statement statement = connection.createStatement()) {
					statement.execute(found.ddl(this.table));
				}
				if (!connection.getAutoCommit()) {
					connection.commit();
				}
			}
			try (Statement statement = connection.createStatement()) {
				statement
					.executeQuery("SELECT seq, queue_name, message_id, message_key, envelope, due_at, send_mode, "
							+ "created_at, retry_at FROM " + this.table + " WHERE 1 = 0")
					.close();
			}
			catch (SQLException ex) {
				throw new IllegalStateException("The outbox table '" + this.table + "' is missing or lacks columns ("
						+ ex.getMessage() + "). Create it with your migration tool, or set "
						+ "delayqueue.outbox.initialize-schema=true (DelayQueueEngineBuilder.outboxInitializeSchema): \n"
						+ found.ddl(this.table));
			}
		}
		catch (SQLException ex) {
			logger.warn("Cannot check the outbox table '" + this.table + "' now (" + ex.getMessage()
					+ "): the relay retries until the database answers");
		}
	}

	/**
	 * @return the table's name
	 */
	public String table() {
		return this.table;
	}

	/**
	 * Returns what waits in the outbox: rows committed (or being written) and not yet
	 * moved to Redis, and the age of the oldest.
	 * @return the backlog
	 */
	public Backlog backlog() {
		return this.jdbc.queryForObject("SELECT COUNT(*), MIN(created_at) FROM " + this.table, (rs, row) -> {
			long rows = rs.getLong(1);
			long oldest = rs.getLong(2);
			boolean none = rs.wasNull() || rows == 0;
			return new Backlog(rows,
					none ? Duration.ZERO : Duration.ofMillis(Math.max(0, this.clock.millis() - oldest)));
		});
	}

	/**
	 * Whether the relay's loop runs and its last step did not fail (Redis or the database
	 * did not answer: it retries with a backoff, and the rows wait).
	 * @return whether it is
	 */
	public boolean isHealthy() {
		return this.relay.isServing() && this.lastFailure == null;
	}

	/**
	 * @return why the relay's last step failed, or {@code null} when it did not
	 */
	public Throwable lastFailure() {
		return this.lastFailure;
	}

	void start() {
		this.relay.start();
	}

	void stop() {
		this.relay.stop(Duration.ofSeconds(10));
	}

	/**
	 * Whether a send now joins a transaction of this outbox's data source (a connection
	 * of it is bound to the thread by a transaction manager).
	 */
	boolean inTransaction() {
		return TransactionSynchronizationManager.isActualTransactionActive()
				&& TransactionSynchronizationManager.hasResource(this.dataSource);
	}

	/**
	 * Writes a batch's messages to the outbox through the current transaction's
	 * connection; the relay is woken once it commits.
	 */
	void write(SendBatch batch) {
		long now = this.clock.millis();
		List<Object[]> rows = new ArrayList<>(batch.all.size());
		for (SendBatch.Prepared prepared : batch.all) {
			// a delay counts from the send call; a generated id is looked up too: a
			// relay that sends a row again must not schedule it twice
			long due = WireFormat.DUE_AT.equals(prepared.kind) ? prepared.value : now + prepared.value;
			rows.add(new Object[] { prepared.queue, prepared.id, prepared.partitionKey, prepared.envelope, due,
					"1".equals(prepared.mode) ? "1" : "0", now });
		}
		this.jdbc.batchUpdate("INSERT INTO " + this.table + " (queue_name, message_id, message_key, envelope, due_at, "
				+ "send_mode, created_at, retry_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0)", rows);
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCommit() {
				DelayQueueOutbox.this.relay.wake();
			}

		});
	}

	/**
	 * Moves one batch of committed rows to Redis.
	 * @return how many rows it moved (sent, or seen as already sent)
	 */
	int relayOnce() throws SQLException {
		try (Connection connection = this.dataSource.getConnection()) {
			if (this.dialect == null) {
				this.dialect = OutboxDialect.of(connection);
			}
			boolean autoCommit = connection.getAutoCommit();
			int isolation = connection.getTransactionIsolation();
			connection.setAutoCommit(false);
			// row locks only: under MariaDB's and MySQL's repeatable read, the locking
			// read
			// would also lock the gap after the last row, and every insert into the
			// outbox
			// would wait for the relay's send to Redis
			connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
			try {
				int moved = relay(connection);
				connection.commit();
				return moved;
			}
			catch (SQLException | RuntimeException ex) {
				try {
					connection.rollback();
				}
				catch (SQLException rollback) {
					ex.addSuppressed(rollback);
				}
				throw ex;
			}
			finally {
				connection.setAutoCommit(autoCommit);
				connection.setTransactionIsolation(isolation);
			}
		}
	}

	private int relay(Connection connection) throws SQLException {
		List<Long> seqs = new ArrayList<>();
		List<SendBatch.Prepared> prepared = new ArrayList<>();
		try (PreparedStatement select = connection.prepareStatement(this.dialect.select(this.table))) {
			select.setLong(1, this.clock.millis());
			select.setInt(2, this.batchSize);
			try (ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					seqs.add(rs.getLong(1));
					SendBatch.Prepared row = new SendBatch.Prepared(rs.getString(2), rs.getString(3), rs.getBytes(5),
							WireFormat.DUE_AT, rs.getLong(6), rs.getString(7));
					row.partitionKey = rs.getString(4);
					prepared.add(row);
				}
			}
		}
		if (prepared.isEmpty()) {
			return 0;
		}
		List<Long> sent = new ArrayList<>();
		List<Long> refused = new ArrayList<>();
		try {
			sort(this.engine.template().sendPrepared(prepared), seqs, sent, refused);
		}
		catch (RuntimeException ex) {
			if (isUnavailable(ex)) {
				throw ex;
			}
			// not Redis being away: a row this engine cannot send (a queue name or layout
			// it refuses) must not hold up the others, queue by queue
			sendByQueue(connection, prepared, seqs, sent, refused, ex);
		}
		delete(connection, sent);
		if (!refused.isEmpty()) {
			logger.warn(refused.size() + " outbox message(s) refused by a queue over its size limit: retried in "
					+ REFUSED_RETRY_MILLIS + " ms");
			update(connection, "UPDATE " + this.table + " SET retry_at = ? WHERE seq = ?", refused,
					this.clock.millis() + REFUSED_RETRY_MILLIS);
		}
		return sent.size();
	}

	private static void sort(List<SendResult> results, List<Long> seqs, List<Long> sent, List<Long> refused) {
		for (int i = 0; i < results.size(); i++) {
			(results.get(i).status() == SendResult.Status.REFUSED ? refused : sent).add(seqs.get(i));
		}
	}

	/**
	 * Sends the rows of each queue apart; the rows of a queue whose send fails wait
	 * {@link #FAILED_RETRY_MILLIS} (logged as an error). When every queue fails, the
	 * batch's failure is thrown: nothing is postponed.
	 */
	private void sendByQueue(Connection connection, List<SendBatch.Prepared> prepared, List<Long> seqs, List<Long> sent,
			List<Long> refused, RuntimeException batchFailure) throws SQLException {
		Map<String, List<Integer>> byQueue = new LinkedHashMap<>();
		for (int i = 0; i < prepared.size(); i++) {
			byQueue.computeIfAbsent(prepared.get(i).queue, (queue) -> new ArrayList<>()).add(i);
		}
		List<Long> failed = new ArrayList<>();
		Map<String, RuntimeException> failures = new LinkedHashMap<>();
		for (Map.Entry<String, List<Integer>> queue : byQueue.entrySet()) {
			List<SendBatch.Prepared> rows = new ArrayList<>();
			List<Long> rowSeqs = new ArrayList<>();
			for (int i : queue.getValue()) {
				rows.add(prepared.get(i));
				rowSeqs.add(seqs.get(i));
			}
			try {
				sort(this.engine.template().sendPrepared(rows), rowSeqs, sent, refused);
			}
			catch (RuntimeException ex) {
				if (isUnavailable(ex)) {
					throw ex;
				}
				failed.addAll(rowSeqs);
				failures.put(queue.getKey(), ex);
			}
		}
		if (failures.size() == byQueue.size()) {
			throw batchFailure;
		}
		failures.forEach((queue, ex) -> logger.error("Cannot send the outbox rows of queue '" + queue + "' (retried in "
				+ FAILED_RETRY_MILLIS + " ms; the other queues' rows go on): " + ex.getMessage()));
		update(connection, "UPDATE " + this.table + " SET retry_at = ? WHERE seq = ?", failed,
				this.clock.millis() + FAILED_RETRY_MILLIS);
	}

	/**
	 * Whether a failure is Redis (or the connection to it) being away or slow, rather
	 * than something about the rows.
	 */
	static boolean isUnavailable(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof DataAccessResourceFailureException || cause instanceof TransientDataAccessException
					|| cause instanceof QueryTimeoutException || cause instanceof java.io.IOException
					|| cause instanceof java.util.concurrent.TimeoutException
					|| cause.getClass().getName().startsWith("io.lettuce.core.RedisConnectionException")
					|| cause.getClass().getName().startsWith("io.lettuce.core.RedisCommandTimeoutException")
					|| Failures.hasMessage(cause, "OOM command not allowed")) {
				return true;
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return false;
	}

	/**
	 * Deletes rows in one statement per 500 ({@code seq IN (...)}): one round trip. On
	 * MariaDB and MySQL, one statement per row (a batch): InnoDB may scan a range for a
	 * long {@code IN} list, locking rows another relay holds, and the two relays deadlock
	 * (one then rolls back after its send, and its rows go again).
	 */
	private void delete(Connection connection, List<Long> seqs) throws SQLException {
		if (this.dialect == OutboxDialect.MARIADB) {
			update(connection, "DELETE FROM " + this.table + " WHERE seq = ?", seqs, null);
			return;
		}
		for (int from = 0; from < seqs.size(); from += 500) {
			List<Long> slice = seqs.subList(from, Math.min(seqs.size(), from + 500));
			String marks = String.join(", ", java.util.Collections.nCopies(slice.size(), "?"));
			try (PreparedStatement statement = connection
				.prepareStatement("DELETE FROM " + this.table + " WHERE seq IN (" + marks + ")")) {
				for (int i = 0; i < slice.size(); i++) {
					statement.setLong(i + 1, slice.get(i));
				}
				statement.executeUpdate();
			}
		}
	}

	private static void update(Connection connection, String sql, List<Long> seqs, Long first) throws SQLException {
		if (seqs.isEmpty()) {
			return;
		}
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			for (Long seq : seqs) {
				int index = 1;
				if (first != null) {
					statement.setLong(index++, first);
				}
				statement.setLong(index, seq);
				statement.addBatch();
			}
			statement.executeBatch();
		}
	}

	/**
	 * What waits in the outbox.
	 *
	 * @param rows rows not yet moved to Redis
	 * @param oldest the age of the oldest of them (zero when there is none)
	 */
	public record Backlog(long rows, Duration oldest) {
	}

	private final class Relay implements SupervisedLoop.Job {

		@Override
		public long runOnce() throws Exception {
			int moved = relayOnce();
			DelayQueueOutbox.this.lastFailure = null;
			// a full batch: more wait
			return (moved >= DelayQueueOutbox.this.batchSize) ? 0 : DelayQueueOutbox.this.pollNanos;
		}

		@Override
		public void failed(Throwable failure) {
			DelayQueueOutbox.this.lastFailure = failure;
		}

	}

}
