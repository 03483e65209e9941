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
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Assumptions;

import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

/**
 * A real {@code redis-server} for tests, on a free port of 127.0.0.1, in a temp directory
 * of its own. Never the shared server on 6379.
 * <p>
 * The server is a child process of the test JVM (see {@link RedisBinary} for where the
 * binary comes from), or a Docker container through Testcontainers where no binary exists
 * and Docker runs. It can be stopped, killed with SIGKILL, restarted on the same port
 * with the same data directory, and paused with SIGSTOP to simulate a hung server.
 * Servers still running when the JVM exits are killed by a shutdown hook.
 *
 * <pre class="code">
 * try (RedisServer redis = RedisServer.builder().appendOnly(AppendFsync.ALWAYS).start()) {
 *     // point a client at redis.port(), then redis.kill(); redis.restart(); ...
 * }
 * </pre>
 */
public final class RedisServer implements AutoCloseable {

	private final RedisProcess process;

	private final String password;

	RedisServer(RedisServerBuilder builder) {
		this.process = new RedisProcess(builder);
		this.password = builder.password;
	}

	/**
	 * Starts building a server.
	 * @return a builder
	 */
	public static RedisServerBuilder builder() {
		return new RedisServerBuilder();
	}

	/**
	 * Starts a server with the default configuration (no persistence).
	 * @return the running server
	 */
	public static RedisServer start() {
		return builder().start();
	}

	/**
	 * Starts the server again after {@link #stop()} or {@link #kill()}, on the same port
	 * with the same data directory. Does nothing when it runs.
	 * @return this server
	 */
	public RedisServer startAgain() {
		this.process.startAgain();
		return this;
	}

	/**
	 * Stops the server gracefully (SIGTERM: with AOF on, it flushes first); the data
	 * directory is kept for {@link #restart()} or {@link #startAgain()}.
	 */
	public void stop() {
		this.process.stop();
	}

	/**
	 * Kills the server with SIGKILL, as a crash would: whatever was not yet written to
	 * disk by the configured fsync policy is lost. The data directory is kept.
	 */
	public void kill() {
		this.process.kill();
	}

	/**
	 * Stops the server if it runs (gracefully) and starts it again on the same port with
	 * the same data directory. Call {@link #kill()} first for a crash-restart.
	 * @return this server
	 */
	public RedisServer restart() {
		this.process.restart();
		return this;
	}

	/**
	 * Freezes the server with SIGSTOP: connections stay open but nothing is answered, as
	 * with a hung server or a long GC-like stall.
	 */
	public void pause() {
		this.process.pause();
	}

	/**
	 * Continues a paused server with SIGCONT.
	 */
	public void resume() {
		this.process.resume();
	}

	/**
	 * Stops the server and deletes its data directory.
	 */
	@Override
	public void close() {
		this.process.close();
	}

	void deleteDirectory() {
		this.process.deleteDirectory();
	}

	/**
	 * Returns the host to connect to.
	 * @return always {@code 127.0.0.1}
	 */
	public String host() {
		return ServerProbe.HOST;
	}

	/**
	 * Returns the port the server listens on.
	 * @return the port
	 */
	public int port() {
		return this.process.port();
	}

	/**
	 * Returns a {@code redis://} URI for the server (with the password when one is set).
	 * @return the URI
	 */
	public String uri() {
		return "redis://" + ((this.password != null) ? ":" + this.password + "@" : "") + host() + ":" + port();
	}

	/**
	 * Returns the password of the default user, or {@code null}.
	 * @return the password
	 */
	public String password() {
		return this.password;
	}

	/**
	 * Returns the data directory (AOF, RDB, {@code redis.conf}, {@code redis.log}).
	 * @return the directory
	 */
	public Path directory() {
		return this.process.directory();
	}

	/**
	 * Returns whether the server process runs (it may be paused).
	 * @return whether it runs
	 */
	public boolean isRunning() {
		return this.process.isRunning();
	}

	/**
	 * Returns everything the server logged, across restarts.
	 * @return the log
	 */
	public String log() {
		return this.process.log();
	}

	/**
	 * Returns what started the server: a binary path or a Docker image.
	 * @return a description
	 */
	public String describe() {
		return this.process.launcherDescription() + " on " + host() + ":" + port();
	}

	/**
	 * Runs one command on the server with a plain RESP connection, for test set-up and
	 * inspection ({@code INFO}, {@code CONFIG SET}, {@code DEBUG}).
	 * @param command the command and its arguments
	 * @return the reply ({@code String}, {@code Long}, {@code List} or {@code null})
	 */
	public Object execute(String... command) {
		try {
			return RespClient.call(host(), port(), this.password, Duration.ofSeconds(10), command);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Command " + command[0] + " failed on " + describe(), ex);
		}
	}

	/**
	 * Returns one field of {@code INFO}, e.g. {@code used_memory}.
	 * @param field the field name
	 * @return its value, or {@code null} when absent
	 */
	public String info(String field) {
		String info = (String) execute("INFO", "all");
		for (String line : info.split("\r\n")) {
			if (line.startsWith(field + ":")) {
				return line.substring(field.length() + 1);
			}
		}
		return null;
	}

	/**
	 * Returns the server's version, {@code redis_version} of {@code INFO server}, e.g.
	 * {@code "7.0.15"}.
	 * @return the version
	 */
	public String version() {
		String info = (String) execute("INFO", "server");
		for (String line : info.split("\r\n")) {
			if (line.startsWith("redis_version:")) {
				return line.substring("redis_version:".length()).trim();
			}
		}
		throw new IllegalStateException("INFO server of " + describe() + " has no redis_version");
	}

	/**
	 * Returns whether the server's version is at least {@code minimum}.
	 * @param minimum a version such as {@code "7.0"} or {@code "7.2.4"}; missing parts
	 * count as 0
	 * @return whether the server is that version or newer
	 */
	public boolean versionAtLeast(String minimum) {
		return compareVersions(version(), minimum) >= 0;
	}

	/**
	 * Skips the calling test, as a failed JUnit Jupiter assumption, unless the server is
	 * at least version {@code minimum}: for tests of behaviour that older servers do not
	 * have. Checks made before the call still run (and fail) on an older server.
	 * <pre class="code">
	 * redis.requireVersion("7.0", "XINFO STREAM entries-added");
	 * </pre>
	 * @param minimum the oldest version that has the feature, e.g. {@code "7.0"}
	 * @param feature what the test needs, for the reason given in the report
	 * @throws org.opentest4j.TestAbortedException when the server is older
	 */
	public void requireVersion(String minimum, String feature) {
		String version = version();
		Assumptions.assumeTrue(compareVersions(version, minimum) >= 0, () -> "Needs Redis " + minimum + "+ for "
				+ feature + "; the server is Redis " + version + " (" + this.process.launcherDescription() + ")");
	}

	/**
	 * Compares two versions part by part, numerically ({@code "6.2.11" < "7.0"}).
	 * @param left a version
	 * @param right another version
	 * @return negative, zero or positive as {@code left} is older, equal or newer
	 */
	static int compareVersions(String left, String right) {
		String[] a = left.trim().split("\\.");
		String[] b = right.trim().split("\\.");
		for (int i = 0; i < Math.max(a.length, b.length); i++) {
			int difference = Long.compare(versionPart(a, i), versionPart(b, i));
			if (difference != 0) {
				return difference;
			}
		}
		return 0;
	}

	private static long versionPart(String[] parts, int index) {
		if (index >= parts.length) {
			return 0;
		}
		// leading digits only: "0-rc1" is 0
		String part = parts[index];
		int end = 0;
		while (end < part.length() && Character.isDigit(part.charAt(end))) {
			end++;
		}
		if (end == 0) {
			throw new IllegalArgumentException("Not a Redis version: '" + String.join(".", parts) + "'");
		}
		return Long.parseLong(part.substring(0, end));
	}

	/**
	 * Returns a Spring Data Redis configuration pointing at this server.
	 * @return the configuration
	 */
	public RedisStandaloneConfiguration standaloneConfiguration() {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(host(), port());
		if (this.password != null) {
			configuration.setPassword(RedisPassword.of(this.password));
		}
		return configuration;
	}

	@Override
	public String toString() {
		return "RedisServer[" + describe() + "]";
	}

	/**
	 * {@code appendfsync} policies.
	 */
	public enum AppendFsync {

		/** fsync after every write: a kill loses nothing acknowledged. */
		ALWAYS,
		/** fsync once a second: a kill loses up to about a second of writes. */
		EVERYSEC,
		/** leave it to the OS. */
		NO

	}

}
