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
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The process control of a {@link RedisServer}: launches its redis-server on its port and
 * data directory, again after a stop or kill, and stops, kills, pauses and resumes it.
 * Processes still running when the JVM exits are killed by a shutdown hook.
 */
final class RedisProcess {

	private static final Set<RedisProcess> running = ConcurrentHashMap.newKeySet();

	static {
		Runtime.getRuntime()
			.addShutdownHook(
					new Thread(() -> running.forEach(RedisProcess::killQuietly), "delayqueue-test-redis-shutdown"));
	}

	private final List<List<String>> config;

	private final boolean killedOnJvmExit;

	private final RedisInstance.Launcher launcher;

	private final Duration startupTimeout;

	private final boolean fixedPort;

	private final Path directory;

	private final Object lock = new Object();

	private int port;

	private RedisInstance instance;

	private boolean paused;

	RedisProcess(RedisServerBuilder builder) {
		this.killedOnJvmExit = builder.killedOnJvmExit;
		this.launcher = builder.launcher();
		this.config = builder.configFor(this.launcher.majorVersion());
		this.startupTimeout = builder.startupTimeout;
		this.fixedPort = builder.port > 0;
		this.port = builder.port;
		try {
			this.directory = Files.createTempDirectory("delayqueue-redis-");
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot create a data directory for redis-server", ex);
		}
	}

	void startAgain() {
		synchronized (this.lock) {
			if (this.instance != null && this.instance.isAlive()) {
				return;
			}
			launch();
		}
	}

	private void launch() {
		int attempts = 0;
		while (true) {
			if (this.port == 0) {
				this.port = ServerProbe.freePort();
			}
			try {
				this.instance = this.launcher.launch(this.config, this.port, this.directory, this.startupTimeout);
				this.paused = false;
				if (this.killedOnJvmExit) {
					running.add(this);
				}
				return;
			}
			catch (RedisInstance.PortInUseException ex) {
				if (this.fixedPort || this.instance != null || ++attempts >= 5) {
					throw new IllegalStateException("Cannot start redis-server: port " + this.port + " is in use", ex);
				}
				this.port = 0;
			}
		}
	}

	void stop() {
		synchronized (this.lock) {
			if (this.instance != null) {
				resumeIfPaused();
				this.instance.terminate(Duration.ofSeconds(30));
				running.remove(this);
			}
		}
	}

	void kill() {
		synchronized (this.lock) {
			if (this.instance != null) {
				this.instance.kill();
				this.paused = false;
				running.remove(this);
			}
		}
	}

	void restart() {
		synchronized (this.lock) {
			stop();
			launch();
		}
	}

	void pause() {
		synchronized (this.lock) {
			requireRunning().pause();
			this.paused = true;
		}
	}

	void resume() {
		synchronized (this.lock) {
			requireRunning().resume();
			this.paused = false;
		}
	}

	private void resumeIfPaused() {
		if (this.paused) {
			this.instance.resume();
			this.paused = false;
		}
	}

	private RedisInstance requireRunning() {
		if (this.instance == null || !this.instance.isAlive()) {
			throw new IllegalStateException("redis-server on port " + this.port + " is not running");
		}
		return this.instance;
	}

	/** Stops the process and deletes the data directory. */
	void close() {
		synchronized (this.lock) {
			stop();
			deleteDirectory();
		}
	}

	private void killQuietly() {
		try {
			kill();
			deleteDirectory();
		}
		catch (RuntimeException ex) {
			// the JVM is exiting
		}
	}

	void deleteDirectory() {
		try (Stream<Path> paths = Files.walk(this.directory)) {
			paths.sorted(Comparator.reverseOrder()).forEach((path) -> path.toFile().delete());
		}
		catch (IOException ex) {
			// best effort: it is a temp directory
		}
	}

	int port() {
		return this.port;
	}

	Path directory() {
		return this.directory;
	}

	boolean isRunning() {
		synchronized (this.lock) {
			return this.instance != null && this.instance.isAlive();
		}
	}

	String log() {
		synchronized (this.lock) {
			return (this.instance != null) ? this.instance.log() : "";
		}
	}

	/** What starts the process: a binary path or a Docker image. */
	String launcherDescription() {
		return this.launcher.describe();
	}

}
