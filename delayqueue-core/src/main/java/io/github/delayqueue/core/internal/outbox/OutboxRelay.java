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
package io.github.delayqueue.core.internal.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.github.delayqueue.core.internal.runtime.BoundedCalls;
import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;
import io.github.delayqueue.core.internal.send.SendBatch.Prepared;

import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.QueryTimeoutException;
import org.springframework.dao.TransientDataAccessException;

/**
 * The relay of a {@link DelayQueueOutbox}: each step takes the oldest committed rows
 * ({@code FOR UPDATE SKIP LOCKED}, at read committed), sends them to Redis, and deletes
 * them in the same database transaction; a step that fails rolls back, and its rows go
 * again (Redis deduplicates the messages still scheduled by id).
 */
public final class OutboxRelay implements SupervisedLoop.Job {

	private static final Log logger = LogFactory.getLog(OutboxRelay.class);

	/**
	 * How long a row the queue refused (over its size limit) waits before the next try.
	 */
	static final long REFUSED_RETRY_MILLIS = 5000;

	/** How long the rows of a queue whose send failed (not Redis being away) wait. */
	static final long FAILED_RETRY_MILLIS = 30_000;

	/**
	 * The longest a relay statement may take: a database that hangs fails the step (the
	 * health shows it, the relay retries) instead of holding the relay for good.
	 */
	static final int QUERY_TIMEOUT_SECONDS = 30;

	/** Sends rows to Redis (the template's send of prepared messages). */
	private final Function<List<Prepared>, List<SendResult>> send;

	private final DataSource dataSource;

	private final String table;

	private final int batchSize;

	private final long pollNanos;

	private final Clock clock;

	/** This worker's number, from 0, and how many share the table on this instance. */
	private final int worker;

	private final int workers;

	private volatile OutboxDialect dialect;

	/**
	 * While the relay is behind (its last step took a full batch), the newest row it
	 * took: the next step reads only the rows after it, instead of scanning again the
	 * deleted rows at the table's head that the database has not vacuumed yet. 0: read
	 * from the head.
	 */
	private long floor;

	/** When a step last read from the table's head ({@link System#nanoTime()}). */
	private long readFromHeadAt;

	private volatile Throwable lastFailure;

	public OutboxRelay(Function<List<Prepared>, List<SendResult>> send, DataSource dataSource, String table,
			int batchSize, long pollNanos, Clock clock) {
		this(send, dataSource, table, batchSize, pollNanos, clock, 0, 1);
	}

	/**
	 * A worker of the relay: it takes the rows of its share of the message ids only (a
	 * hash of the id, modulo {@code workers}), so that the rows of one id are sent by one
	 * worker, in their order.
	 * @param worker this worker's number, from 0
	 * @param workers how many workers share the table on this instance
	 */
	public OutboxRelay(Function<List<Prepared>, List<SendResult>> send, DataSource dataSource, String table,
			int batchSize, long pollNanos, Clock clock, int worker, int workers) {
		this.worker = worker;
		this.workers = workers;
		this.send = send;
		this.dataSource = dataSource;
		this.table = table;
		this.batchSize = batchSize;
		this.pollNanos = pollNanos;
		this.clock = clock;
	}

	public void dialect(OutboxDialect found) {
		this.dialect = found;
	}

	/**
	 * @return why the last step failed, or {@code null} when it did not
	 */
	public Throwable lastFailure() {
		return this.lastFailure;
	}

	@Override
	public long runOnce() throws Exception {
		int moved = relayOnce();
		this.lastFailure = null;
		// a full batch: more wait
		return (moved >= this.batchSize) ? 0 : this.pollNanos;
	}

	@Override
	public void failed(Throwable failure) {
		this.lastFailure = failure;
	}

	/**
	 * Moves one batch of committed rows to Redis.
	 * @return how many rows it moved (sent, or seen as already sent)
	 */
	public int relayOnce() throws SQLException {
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
				this.dialect.prepareStep(connection);
				int moved = relay(connection);
				connection.commit();
				return moved;
			}
			catch (SQLException | RuntimeException ex) {
				this.floor = 0;
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
		List<Prepared> prepared = new ArrayList<>();
		try (PreparedStatement select = connection
			.prepareStatement(this.dialect.select(this.table, this.worker, this.workers))) {
			select.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
			select.setLong(1, floor());
			select.setLong(2, this.clock.millis());
			select.setInt(3, this.batchSize);
			try (ResultSet rs = select.executeQuery()) {
				while (rs.next()) {
					seqs.add(rs.getLong(1));
					prepared.add(new Prepared(rs.getString(2), rs.getString(3), rs.getString(4), rs.getBytes(5),
							WireFormat.DUE_AT, rs.getLong(6), rs.getString(7)));
				}
			}
		}
		// the rows of a full batch after the floor are read next step; the rows it
		// passed over (held by another relay, waiting for a retry, held behind a gap, or
		// committed late with an older seq) at the next read from the head
		this.floor = (seqs.size() >= this.batchSize) ? seqs.get(seqs.size() - 1) : 0;
		OutboxGaps.holdBehindGaps(connection, this.dialect, this.table, seqs, prepared);
		if (prepared.isEmpty()) {
			return 0;
		}
		List<Long> sent = new ArrayList<>();
		List<Long> refused = new ArrayList<>();
		try {
			sort(this.send.apply(prepared), seqs, sent, refused);
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

	/**
	 * The floor of this step: the last step's, unless the relay last read from the head a
	 * poll interval ago or more (rows passed over wait no longer than that).
	 */
	private long floor() {
		long now = System.nanoTime();
		if (this.floor > 0 && now - this.readFromHeadAt < this.pollNanos) {
			return this.floor;
		}
		this.readFromHeadAt = now;
		return 0;
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
	private void sendByQueue(Connection connection, List<Prepared> prepared, List<Long> seqs, List<Long> sent,
			List<Long> refused, RuntimeException batchFailure) throws SQLException {
		Map<String, List<Integer>> byQueue = new LinkedHashMap<>();
		for (int i = 0; i < prepared.size(); i++) {
			byQueue.computeIfAbsent(prepared.get(i).queue(), (queue) -> new ArrayList<>()).add(i);
		}
		List<Long> failed = new ArrayList<>();
		Map<String, RuntimeException> failures = new LinkedHashMap<>();
		for (Map.Entry<String, List<Integer>> queue : byQueue.entrySet()) {
			List<Prepared> rows = new ArrayList<>();
			List<Long> rowSeqs = new ArrayList<>();
			for (int i : queue.getValue()) {
				rows.add(prepared.get(i));
				rowSeqs.add(seqs.get(i));
			}
			try {
				sort(this.send.apply(rows), rowSeqs, sent, refused);
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
	 * What Redis answers, or the client says, while Redis is away, starting, failing over
	 * or busy: a step that meets one backs off and takes its rows again, none is
	 * postponed as a row the engine cannot send would be.
	 */
	private static final List<String> PASSING_STATES = List.of("OOM command not allowed", "LOADING ", "BUSY ",
			"READONLY ", "MASTERDOWN ", "CLUSTERDOWN ", "TRYAGAIN ", "NOREPLICAS ", "Connection reset",
			"Connection closed", "Currently not connected", "Connection refused");

	/**
	 * Whether a failure is Redis (or the connection to it) being away, slow or in a
	 * passing state, rather than something about the rows. A send that Redis did not
	 * answer within the operation timeout is one: while the client reconnects it queues
	 * the commands, and a send then times out rather than being refused.
	 */
	public static boolean isUnavailable(Throwable failure) {
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			if (cause instanceof DataAccessResourceFailureException || cause instanceof TransientDataAccessException
					|| cause instanceof QueryTimeoutException || cause instanceof java.io.IOException
					|| cause instanceof java.util.concurrent.TimeoutException
					|| cause instanceof BoundedCalls.TimeoutException
					|| cause.getClass().getName().startsWith("io.lettuce.core.RedisConnectionException")
					|| cause.getClass().getName().startsWith("io.lettuce.core.RedisCommandTimeoutException")) {
				return true;
			}
		}
		return PASSING_STATES.stream().anyMatch((state) -> Failures.hasMessage(failure, state));
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
			try (PreparedStatement statement = connection
				.prepareStatement("DELETE FROM " + this.table + " WHERE " + this.dialect.inList("seq", slice.size()))) {
				statement.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
				this.dialect.bindList(statement, 1, slice);
				statement.executeUpdate();
			}
		}
	}

	private static void update(Connection connection, String sql, List<Long> seqs, Long first) throws SQLException {
		if (seqs.isEmpty()) {
			return;
		}
		try (PreparedStatement statement = connection.prepareStatement(sql)) {
			statement.setQueryTimeout(QUERY_TIMEOUT_SECONDS);
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

}
