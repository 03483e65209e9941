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
import java.sql.SQLException;
import java.util.Locale;

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

	/** The shipped DDL, for a table of that name. */
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
			return statement.toString().trim().replace("delayqueue_outbox", table);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot read " + path, ex);
		}
	}

	/**
	 * Takes the oldest rows due for a send, locked, skipping those another relay holds.
	 */
	public String select(String table) {
		return select(table, 0, 1);
	}

	/**
	 * Takes the oldest rows due for a send of one worker's share of the message ids,
	 * locked, skipping those another relay holds.
	 * @param table the table
	 * @param worker the worker, from 0
	 * @param workers how many workers share the table
	 * @return the statement
	 */
	public String select(String table, int worker, int workers) {
		String share = (workers > 1) ? " AND " + idHash() + " % " + workers + " = " + worker : "";
		return "SELECT seq, queue_name, message_id, message_key, envelope, due_at, send_mode FROM " + table
				+ " WHERE retry_at <= ?" + share + " ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED";
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
