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
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;

import javax.sql.DataSource;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.InputText;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;
import io.github.delayqueue.core.internal.outbox.OutboxSettings;
import io.github.delayqueue.core.internal.outbox.OutboxDialect;
import io.github.delayqueue.core.internal.outbox.OutboxRelay;
import io.github.delayqueue.core.internal.send.SendBatch;
import io.github.delayqueue.core.internal.send.SendBatch.Prepared;

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
	public static final String DEFAULT_TABLE = OutboxSettings.DEFAULT_TABLE;

	private static final Pattern TABLE = Pattern
		.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

	private final DataSource dataSource;

	private final JdbcTemplate jdbc;

	private final String table;

	private final Clock clock;

	/** The relay's workers, each taking its share of the message ids. */
	private final List<OutboxRelay> relayJobs = new ArrayList<>();

	private final List<SupervisedLoop> relays = new ArrayList<>();

	DelayQueueOutbox(Function<List<Prepared>, List<SendResult>> send, OutboxSettings settings, Clock clock) {
		this.dataSource = settings.dataSource();
		this.jdbc = new JdbcTemplate(this.dataSource);
		this.table = settings.table();
		this.clock = clock;
		int workers = settings.relayWorkers();
		for (int worker = 0; worker < workers; worker++) {
			OutboxRelay job = new OutboxRelay(send, this.dataSource, this.table, settings.batchSize(),
					settings.pollInterval().toNanos(), clock, worker, workers);
			this.relayJobs.add(job);
			this.relays.add(new SupervisedLoop("outbox relay " + (worker + 1) + " of " + workers + " of table " + table,
					"delayqueue-outbox-relay-" + (worker + 1), job));
		}
		check(settings.initializeSchema());
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
					+ "'schema.table'), at most 63 characters each, but was " + InputText.quote(table));
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
			this.relayJobs.forEach((job) -> job.dialect(found));
			if (initializeSchema) {
				try (Statement statement = connection.createStatement()) {
					for (String sql : found.ddlStatements(this.table)) {
						statement.execute(sql);
					}
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
						+ "delayqueue.outbox.initialize-schema=true (OutboxDeclaration.initializeSchema): \n"
						+ found.ddl(this.table));
			}
			if (!OutboxDialect.hasIdIndex(connection, this.table)) {
				logger.warn("The outbox table '" + this.table + "' has no index on message_id: each relay step "
						+ "scans the table to keep a message's rows in order, and the relay falls behind busy "
						+ "writers. Add it (docs/outbox.md): " + found.idIndexDdl(this.table));
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
		return this.relays.stream().allMatch(SupervisedLoop::isServing) && lastFailure() == null;
	}

	/**
	 * @return why the relay's last step failed, or {@code null} when it did not
	 */
	public Throwable lastFailure() {
		for (OutboxRelay job : this.relayJobs) {
			Throwable failure = job.lastFailure();
			if (failure != null) {
				return failure;
			}
		}
		return null;
	}

	/**
	 * @return how many relay workers move this instance's rows
	 */
	public int relayWorkers() {
		return this.relays.size();
	}

	void start() {
		this.relays.forEach(SupervisedLoop::start);
	}

	void stop() {
		this.relays.forEach((relay) -> relay.stop(Duration.ofSeconds(10)));
	}

	/**
	 * Whether a send now joins a transaction of this outbox's data source: a connection
	 * of it is bound to the thread (by its transaction manager, whether it synchronizes
	 * or not).
	 */
	boolean inTransaction() {
		return TransactionSynchronizationManager.hasResource(this.dataSource);
	}

	/**
	 * Writes a batch's messages to the outbox through the current transaction's
	 * connection; the relay is woken once it commits.
	 */
	void write(SendBatch batch) {
		long now = this.clock.millis();
		List<Object[]> rows = new ArrayList<>(batch.all().size());
		for (Prepared prepared : batch.all()) {
			// a delay counts from the send call; a generated id is looked up too: a
			// relay that sends a row again must not schedule it twice
			long due = WireFormat.DUE_AT.equals(prepared.kind()) ? prepared.value() : now + prepared.value();
			rows.add(new Object[] { prepared.queue(), prepared.id(), prepared.partitionKey(), prepared.envelope(), due,
					"1".equals(prepared.mode()) ? "1" : "0", now });
		}
		this.jdbc.batchUpdate("INSERT INTO " + this.table + " (queue_name, message_id, message_key, envelope, due_at, "
				+ "send_mode, created_at, retry_at) VALUES (?, ?, ?, ?, ?, ?, ?, 0)", rows);
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			// a transaction manager set to synchronize never: the relay's next look finds
			// the rows once committed
			return;
		}
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCommit() {
				DelayQueueOutbox.this.relays.forEach(SupervisedLoop::wake);
			}

		});
	}

	/**
	 * What waits in the outbox.
	 *
	 * @param rows rows not yet moved to Redis
	 * @param oldest the age of the oldest of them (zero when there is none)
	 */
	public record Backlog(long rows, Duration oldest) {
	}

}
