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

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * The SQL of the outbox per database: PostgreSQL, MariaDB (and MySQL 8+), H2. Each locks
 * the rows a relay takes with {@code FOR UPDATE SKIP LOCKED}, so relays on several
 * instances take different rows and never wait for each other.
 */
public enum OutboxDialect {

	POSTGRESQL("postgresql"), MARIADB("mariadb"), H2("h2");

	private final String resource;

	OutboxDialect(String resource) {
		this.resource = resource;
	}

	/**
	 * The dialect of a connection's database, by its product name; a version without
	 * {@code FOR UPDATE SKIP LOCKED} is refused.
	 */
	public static OutboxDialect of(Connection connection) throws SQLException {
		DatabaseMetaData meta = connection.getMetaData();
		String product = meta.getDatabaseProductName();
		String name = (product != null) ? product.toLowerCase(Locale.ROOT) : "";
		int version = meta.getDatabaseMajorVersion() * 100 + meta.getDatabaseMinorVersion();
		if (name.contains("postgres")) {
			return atLeast(POSTGRESQL, product, version, 905, "9.5");
		}
		if (name.contains("mariadb")) {
			return atLeast(MARIADB, product, version, 1006, "10.6");
		}
		if (name.contains("mysql")) {
			return atLeast(MARIADB, product, version, 800, "8.0");
		}
		if (name.equals("h2")) {
			return atLeast(H2, product, version, 200, "2.0");
		}
		throw new IllegalStateException(
				"The delayqueue outbox supports PostgreSQL, MariaDB, MySQL and H2, not '" + product + "'");
	}

	private static OutboxDialect atLeast(OutboxDialect dialect, String product, int version, int least,
			String leastName) {
		if (version < least) {
			throw new IllegalStateException("The delayqueue outbox needs " + product + " " + leastName
					+ " or newer (SELECT ... FOR UPDATE SKIP LOCKED), but the database is version " + (version / 100)
					+ "." + (version % 100));
		}
		return dialect;
	}

	/**
	 * The shipped DDL, for a table of that name: the table and its index on
	 * {@code message_id}, each statement ended by {@code ;}.
	 */
	public String ddl(String table) {
		String path = "/META-INF/delayqueue/outbox/" + this.resource + ".sql";
		try (InputStream in = OutboxDialect.class.getResourceAsStream(path)) {
			if (in == null) {
				throw new IllegalStateException("Missing " + path);
			}
			String ddl = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			StringBuilder statement = new StringBuilder();
			for (String line : ddl.split("\n")) {
				if (!line.startsWith("--")) {
					statement.append(line).append('\n');
				}
			}
			return statement.toString().trim().replace(INDEX, indexName(table)).replace("delayqueue_outbox", table);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot read " + path, ex);
		}
	}

	/**
	 * The statements of the {@link #ddl(String) DDL}, to run one by one.
	 */
	public List<String> ddlStatements(String table) {
		return Arrays.stream(ddl(table).split(";")).map(String::trim).filter((sql) -> !sql.isEmpty()).toList();
	}

	/**
	 * A condition on a list of values, bound by {@link #bindList}: on PostgreSQL, one
	 * array parameter ({@code = ANY(?)}), so that the statement's text is the same for
	 * any number of values and the server plans it once; elsewhere an {@code IN} list.
	 * @param column the column
	 * @param count how many values
	 * @return the condition
	 */
	String inList(String column, int count) {
		return (this == POSTGRESQL) ? column + " = ANY(?)" : column + " IN (" + OutboxGaps.placeholders(count) + ")";
	}

	/**
	 * Binds the values of an {@link #inList} condition.
	 * @param statement the statement
	 * @param index the first parameter's index
	 * @param values the values, all {@link Long} or all {@link String}
	 * @return the index of the parameter after them
	 */
	int bindList(PreparedStatement statement, int index, List<?> values) throws SQLException {
		if (this == POSTGRESQL) {
			boolean numbers = !values.isEmpty() && values.get(0) instanceof Long;
			statement.setArray(index,
					statement.getConnection().createArrayOf(numbers ? "bigint" : "varchar", values.toArray()));
			return index + 1;
		}
		for (Object value : values) {
			statement.setObject(index++, value);
		}
		return index;
	}

	/**
	 * Readies a relay step's transaction. On PostgreSQL, the step's reads walk an index
	 * in its order: the statistics of a table that takes thousands of rows and deletes
	 * them a second later are stale most of the time, and with them the planner scanned
	 * the whole table, every row deleted since the last vacuum included (a sequential
	 * scan), or every waiting row, sorted for the oldest 500 (a bitmap scan): a step that
	 * grew with the backlog, so a relay that fell behind fell further behind ({@code SET
	 * LOCAL}: for this transaction only).
	 */
	void prepareStep(Connection connection) throws SQLException {
		if (this == POSTGRESQL) {
			try (Statement statement = connection.createStatement()) {
				statement.execute("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off");
			}
		}
	}

	/**
	 * Whether a table has an index that starts with {@code message_id} (the table name as
	 * written, or folded to lower or upper case as the database stores it).
	 */
	public static boolean hasIdIndex(Connection connection, String table) throws SQLException {
		int dot = table.indexOf('.');
		String schema = (dot < 0) ? null : table.substring(0, dot);
		String name = table.substring(dot + 1);
		DatabaseMetaData meta = connection.getMetaData();
		// as written, then as the database may have stored it
		List<UnaryOperator<String>> folds = List.of((text) -> text, (text) -> text.toLowerCase(Locale.ROOT),
				(text) -> text.toUpperCase(Locale.ROOT));
		for (UnaryOperator<String> fold : folds) {
			String folded = fold.apply(name);
			String inSchema = (schema != null) ? fold.apply(schema) : null;
			try (ResultSet indexes = meta.getIndexInfo(null, inSchema, folded, false, true)) {
				while (indexes.next()) {
					if (indexes.getShort("ORDINAL_POSITION") == 1
							&& "message_id".equalsIgnoreCase(indexes.getString("COLUMN_NAME"))) {
						return true;
					}
				}
			}
		}
		return false;
	}

	/**
	 * The statement that adds the index on {@code message_id} to a table of an earlier
	 * release.
	 */
	public String idIndexDdl(String table) {
		// MySQL has no IF NOT EXISTS for an index
		return "CREATE INDEX " + ((this == MARIADB) ? "" : "IF NOT EXISTS ") + indexName(table) + " ON " + table
				+ " (message_id)";
	}

	/** The shipped index on {@code message_id}, as the DDL names it. */
	private static final String INDEX = "delayqueue_outbox_message_id";

	/**
	 * The name of a table's index on {@code message_id}: in the table's schema, so
	 * unqualified, and short enough for every database (64 characters at most).
	 */
	static String indexName(String table) {
		String name = table.substring(table.indexOf('.') + 1);
		return name.substring(0, Math.min(name.length(), 50)) + "_message_id";
	}

	/**
	 * Takes the oldest rows due for a send, locked, skipping those another relay holds
	 * (parameters as {@link #select(String, int, int)}).
	 */
	public String select(String table) {
		return select(table, 0, 1);
	}

	/**
	 * Takes the oldest rows due for a send of one worker's share of the message ids,
	 * locked, skipping those another relay holds: the rows after a floor (the first
	 * parameter, 0 for all), due by the second, at most the third.
	 * @param table the table
	 * @param worker the worker, from 0
	 * @param workers how many workers share the table
	 * @return the statement
	 */
	public String select(String table, int worker, int workers) {
		String share = (workers > 1) ? " AND " + idHash() + " % " + workers + " = " + worker : "";
		return "SELECT seq, queue_name, message_id, message_key, envelope, due_at, send_mode FROM " + table
				+ " WHERE seq > ? AND retry_at <= ?" + share + " ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED";
	}

	/**
	 * A non-negative hash of a row's message id, the same for every instance: which
	 * worker's share the row is.
	 */
	private String idHash() {
		return switch (this) {
			// hashtext is PostgreSQL's own text hash (int4, may be negative)
			case POSTGRESQL -> "(hashtext(message_id) & 2147483647)";
			// unsigned 32 bits
			case MARIADB -> "CRC32(message_id)";
			// 0 to 4294967295
			case H2 -> "ORA_HASH(message_id)";
		};
	}

}
