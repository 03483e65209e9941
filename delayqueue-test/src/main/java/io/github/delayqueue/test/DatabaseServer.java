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
package io.github.delayqueue.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A PostgreSQL or MariaDB server of the machine's packages, started by a test as
 * {@link RedisServer} starts {@code redis-server}: in a temporary directory, on a free
 * port of 127.0.0.1, as a child process, without durability settings that slow tests
 * down. No Docker. As root, PostgreSQL runs as the {@code postgres} user (it refuses
 * root), MariaDB as root. <pre>
 * try (DatabaseServer db = DatabaseServer.start(DatabaseServer.Kind.POSTGRESQL)) {
 *     // db.jdbcUrl(), db.user(), db.password(); db.kill(); db.start() ...
 * }
 * </pre>
 */
public final class DatabaseServer implements AutoCloseable {

	/** The databases it can run. */
	public enum Kind {

		/** PostgreSQL ({@code initdb} and {@code postgres}). */
		POSTGRESQL,

		/** MariaDB ({@code mariadb-install-db} and {@code mariadbd}). */
		MARIADB

	}

	private static final long START_TIMEOUT_MILLIS = 30_000;

	private final Kind kind;

	private final Path directory;

	private final int port;

	private Process process;

	private DatabaseServer(Kind kind, Path directory, int port) {
		this.kind = kind;
		this.directory = directory;
		this.port = port;
	}

	/**
	 * Whether this machine has the binaries of a database (tests skip without them).
	 * @param kind the database
	 * @return whether it can be started
	 */
	public static boolean isAvailable(Kind kind) {
		return (kind == Kind.POSTGRESQL) ? postgresBin() != null
				: Files.isExecutable(Paths.get("/usr/sbin/mariadbd")) || onPath("mariadbd") != null;
	}

	/**
	 * Creates a database cluster in a new temporary directory and starts its server.
	 * @param kind the database
	 * @return the running server
	 */
	public static DatabaseServer start(Kind kind) {
		try {
			Path directory = Files.createTempDirectory("delayqueue-" + kind.name().toLowerCase() + "-");
			DatabaseServer server = new DatabaseServer(kind, directory, ServerProbe.freePort());
			server.initialize();
			server.startAgain();
			Runtime.getRuntime().addShutdownHook(new Thread(server::kill));
			return server;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * @return the JDBC URL of its test database
	 */
	public String jdbcUrl() {
		return (this.kind == Kind.POSTGRESQL) ? "jdbc:postgresql://127.0.0.1:" + this.port + "/postgres"
				: "jdbc:mariadb://127.0.0.1:" + this.port + "/test";
	}

	/**
	 * @return the user (no password)
	 */
	public String user() {
		return (this.kind == Kind.POSTGRESQL) ? "test" : "root";
	}

	/**
	 * @return the password: none
	 */
	public String password() {
		return "";
	}

	/**
	 * @return the port
	 */
	public int port() {
		return this.port;
	}

	/**
	 * @return the database
	 */
	public Kind kind() {
		return this.kind;
	}

	private void initialize() throws IOException {
		List<String> command = new ArrayList<>();
		if (this.kind == Kind.POSTGRESQL) {
			command.addAll(asPostgres());
			command.addAll(List.of(postgresBin().resolve("initdb").toString(), "-D", data().toString(), "-A", "trust",
					"-U", "test", "-E", "UTF8", "--no-sync"));
		}
		else {
			command.addAll(List.of(binary("mariadb-install-db"), "--no-defaults", "--datadir=" + data(),
					"--auth-root-authentication-method=normal", "--skip-test-db"));
			if (isRoot()) {
				command.add("--user=root");
			}
			Files.writeString(this.directory.resolve("init.sql"), "CREATE DATABASE IF NOT EXISTS test;\n");
		}
		if (this.kind == Kind.POSTGRESQL && isRoot()) {
			own(this.directory);
		}
		run(command, this.directory.resolve("init.log"));
	}

	/** Starts the server (again, after {@link #kill()}), on the same port and data. */
	public synchronized void startAgain() {
		if (this.process != null && this.process.isAlive()) {
			return;
		}
		List<String> command = new ArrayList<>();
		String ready;
		if (this.kind == Kind.POSTGRESQL) {
			command.addAll(asPostgres());
			command.addAll(List.of(postgresBin().resolve("postgres").toString(), "-D", data().toString(), "-p",
					String.valueOf(this.port), "-k", this.directory.toString(), "-c", "listen_addresses=127.0.0.1",
					"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c",
					"max_connections=200"));
			ready = "ready to accept connections";
		}
		else {
			command.addAll(List.of(binary("mariadbd"), "--no-defaults", "--datadir=" + data(), "--port=" + this.port,
					"--bind-address=127.0.0.1", "--socket=" + this.directory.resolve("sock"),
					"--pid-file=" + this.directory.resolve("pid"), "--skip-log-bin",
					"--innodb-flush-log-at-trx-commit=2", "--max-connections=200",
					"--init-file=" + this.directory.resolve("init.sql")));
			if (isRoot()) {
				command.add("--user=root");
			}
			ready = "ready for connections";
		}
		Path log = this.directory.resolve("server.log");
		try {
			long offset = Files.exists(log) ? Files.size(log) : 0;
			this.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
				.start();
			long deadline = System.currentTimeMillis() + START_TIMEOUT_MILLIS;
			while (!logSince(log, offset).contains(ready)) {
				if (!this.process.isAlive() || System.currentTimeMillis() > deadline) {
					this.process.destroyForcibly();
					throw new IllegalStateException(
							this.kind + " did not start on port " + this.port + ":\n" + logSince(log, offset));
				}
				Thread.sleep(20);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while starting " + this.kind, ex);
		}
	}

	/** Kills the server at once (SIGKILL): what was committed is kept. */
	public synchronized void kill() {
		if (this.process != null) {
			this.process.destroyForcibly();
			try {
				this.process.waitFor(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public void close() {
		kill();
		try (Stream<Path> paths = Files.walk(this.directory)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// a temporary directory left behind
		}
	}

	private Path data() {
		return this.directory.resolve("data");
	}

	private static String logSince(Path log, long offset) throws IOException {
		if (!Files.exists(log)) {
			return "";
		}
		byte[] bytes = Files.readAllBytes(log);
		return new String(bytes, (int) Math.min(offset, bytes.length), (int) Math.max(0, bytes.length - offset),
				StandardCharsets.UTF_8);
	}

	private static void run(List<String> command, Path log) throws IOException {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(log.toFile())
				.start();
			if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
				process.destroyForcibly();
				throw new IllegalStateException(String.join(" ", command) + " failed:\n" + Files.readString(log));
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted: " + command, ex);
		}
	}

	/** Runs a command as the postgres user when this JVM runs as root (exec, no fork). */
	private static List<String> asPostgres() {
		return isRoot() ? List.of("setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups") : List.of();
	}

	private static void own(Path directory) throws IOException {
		run(List.of("chown", "-R", "postgres:postgres", directory.toString()), Files.createTempFile("chown", ".log"));
	}

	private static boolean isRoot() {
		return "root".equals(System.getProperty("user.name"));
	}

	private static Path postgresBin() {
		Path initdb = onPath("initdb");
		if (initdb != null) {
			try {
				return initdb.toRealPath().getParent();
			}
			catch (IOException ex) {
				return initdb.getParent();
			}
		}
		Path root = Paths.get("/usr/lib/postgresql");
		if (!Files.isDirectory(root)) {
			return null;
		}
		try (Stream<Path> versions = Files.list(root)) {
			return versions.map((version) -> version.resolve("bin"))
				.filter((bin) -> Files.isExecutable(bin.resolve("initdb")))
				.max(Comparator.comparing((bin) -> bin.getParent().getFileName().toString()))
				.orElse(null);
		}
		catch (IOException ex) {
			return null;
		}
	}

	private static String binary(String name) {
		Path found = onPath(name);
		if (found != null) {
			return found.toString();
		}
		return Paths.get("/usr/sbin", name).toString();
	}

	private static Path onPath(String name) {
		String path = System.getenv("PATH");
		for (String dir : (path != null) ? path.split(":") : new String[0]) {
			Path candidate = Paths.get(dir, name);
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		for (String dir : List.of("/usr/sbin", "/usr/bin", "/usr/local/bin")) {
			Path candidate = Paths.get(dir, name);
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

}
