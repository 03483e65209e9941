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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;

import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

/**
 * Builds a {@link RedisServer}. Options not set keep Redis's defaults, except that RDB
 * snapshots are off.
 */
public final class RedisServerBuilder {

	final List<List<String>> config = new ArrayList<>();

	String password;

	int port;

	Path binary;

	Boolean container;

	Duration startupTimeout = Duration.ofSeconds(30);

	boolean killedOnJvmExit = true;

	boolean sentinel;

	RedisServerBuilder() {
		config("save", "");
		config("appendonly", "no");
	}

	/**
	 * Makes this a Redis Sentinel (the binary run with {@code --sentinel}) that monitors
	 * a master, with short timeouts for tests: the master is considered down after 1 s,
	 * and a failover may be retried after 5 s.
	 * @param masterName the name clients ask the Sentinels for
	 * @param master the master to monitor
	 * @param quorum how many Sentinels must agree that the master is down
	 * @return this builder
	 */
	public RedisServerBuilder sentinel(String masterName, RedisServer master, int quorum) {
		this.sentinel = true;
		this.config.removeIf((line) -> line.get(0).equals("save") || line.get(0).equals("appendonly"));
		config("sentinel", "monitor", masterName, master.host(), String.valueOf(master.port()), String.valueOf(quorum));
		config("sentinel", "down-after-milliseconds", masterName, "1000");
		config("sentinel", "failover-timeout", masterName, "5000");
		config("sentinel", "parallel-syncs", masterName, "1");
		return this;
	}

	/**
	 * Sets whether the JVM's shutdown hook kills the server if it still runs (default
	 * {@code true}). Turn it off when the application closes the server itself after its
	 * own shutdown (the hook would kill it while the application still uses it).
	 * @param killed whether the shutdown hook kills the server
	 * @return this builder
	 */
	public RedisServerBuilder killedOnJvmExit(boolean killed) {
		this.killedOnJvmExit = killed;
		return this;
	}

	/**
	 * Turns on the append-only file with the given fsync policy.
	 * @param fsync the fsync policy
	 * @return this builder
	 */
	public RedisServerBuilder appendOnly(RedisServer.AppendFsync fsync) {
		config("appendonly", "yes");
		return config("appendfsync", fsync.name().toLowerCase(java.util.Locale.ROOT));
	}

	/**
	 * Sets {@code maxmemory}, e.g. {@code "20mb"}.
	 * @param maxMemory the limit
	 * @return this builder
	 */
	public RedisServerBuilder maxMemory(String maxMemory) {
		return config("maxmemory", maxMemory);
	}

	/**
	 * Sets {@code maxmemory-policy}, e.g. {@code "noeviction"}.
	 * @param policy the policy
	 * @return this builder
	 */
	public RedisServerBuilder maxMemoryPolicy(String policy) {
		return config("maxmemory-policy", policy);
	}

	/**
	 * Allows {@code DEBUG} from local connections ({@code enable-debug-command local};
	 * servers before 7.0 allow it always and do not know the option).
	 * @return this builder
	 */
	public RedisServerBuilder enableDebugCommand() {
		return config("enable-debug-command", "local");
	}

	/**
	 * Requires a password for the default user ({@code requirepass}).
	 * @param password the password
	 * @return this builder
	 */
	public RedisServerBuilder password(String password) {
		this.password = password;
		return config("requirepass", password);
	}

	/**
	 * Adds an ACL user, e.g. {@code aclUser("app", "secret", "~dq:*", "+@all")}.
	 * @param name the user name
	 * @param password the user's password
	 * @param rules ACL rules (key patterns, channels, commands)
	 * @return this builder
	 */
	public RedisServerBuilder aclUser(String name, String password, String... rules) {
		List<String> line = new ArrayList<>(List.of("user", name, "on", ">" + password));
		line.addAll(List.of(rules));
		this.config.add(line);
		return this;
	}

	/**
	 * Adds any configuration directive, replacing an earlier one of the same name.
	 * @param name the directive
	 * @param values its values
	 * @return this builder
	 */
	public RedisServerBuilder config(String name, String... values) {
		// "user" and "sentinel" lines are repeatable; any other directive replaces
		// itself
		this.config.removeIf((line) -> line.get(0).equals(name) && !name.equals("user") && !name.equals("sentinel"));
		List<String> line = new ArrayList<>();
		line.add(name);
		line.addAll(List.of(values));
		this.config.add(line);
		return this;
	}

	/**
	 * Listens on this port instead of a free one.
	 * @param port the port
	 * @return this builder
	 */
	public RedisServerBuilder port(int port) {
		this.port = port;
		return this;
	}

	/**
	 * Uses this redis-server binary instead of looking one up (see {@link RedisBinary}).
	 * @param binary the executable
	 * @return this builder
	 */
	public RedisServerBuilder binary(Path binary) {
		this.binary = binary;
		return this;
	}

	/**
	 * Runs the server in a Docker container through Testcontainers, even where a binary
	 * exists.
	 * @return this builder
	 */
	public RedisServerBuilder inContainer() {
		this.container = true;
		return this;
	}

	/**
	 * How long to wait for the server to answer after starting it (default 30s).
	 * @param timeout the timeout
	 * @return this builder
	 */
	public RedisServerBuilder startupTimeout(Duration timeout) {
		this.startupTimeout = timeout;
		return this;
	}

	/**
	 * Starts the server.
	 * @return the running server
	 */
	public RedisServer start() {
		RedisServer server = new RedisServer(this);
		try {
			return server.startAgain();
		}
		catch (RuntimeException ex) {
			server.deleteDirectory();
			throw ex;
		}
	}

	List<List<String>> configFor(int majorVersion) {
		if (majorVersion >= 7 || majorVersion == 0) {
			return List.copyOf(this.config);
		}
		// 6.x fails on options it does not know; DEBUG is always enabled there
		return this.config.stream().filter((line) -> !line.get(0).startsWith("enable-")).toList();
	}

	RedisInstance.Launcher launcher() {
		if (this.sentinel) {
			Path binary = (this.binary != null) ? this.binary : RedisBinary.find();
			if (binary == null) {
				throw new IllegalStateException("A Sentinel needs a redis-server binary (it runs it with --sentinel)");
			}
			return new ProcessLauncher(binary, List.of("--sentinel"));
		}
		if (this.binary != null) {
			return new ProcessLauncher(this.binary);
		}
		if (!Boolean.TRUE.equals(this.container)) {
			Path found = RedisBinary.find();
			if (found != null) {
				return new ProcessLauncher(found);
			}
		}
		if (testcontainersPresent() && ContainerLauncher.isAvailable()) {
			return new ContainerLauncher();
		}
		throw new IllegalStateException("No Redis server available for tests: install redis-server "
				+ "(Debian/Ubuntu: 'apt-get install redis-server', macOS: 'brew install redis'), point the "
				+ RedisBinary.PROPERTY + " system property at a redis-server binary, keep "
				+ "com.github.codemonstur:embedded-redis on the test class path (Linux and macOS binaries), or run "
				+ "Docker with org.testcontainers:testcontainers on the test class path.");
	}

	private static boolean testcontainersPresent() {
		try {
			Class.forName("org.testcontainers.DockerClientFactory", false, RedisServerBuilder.class.getClassLoader());
			return true;
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return false;
		}
	}

}
