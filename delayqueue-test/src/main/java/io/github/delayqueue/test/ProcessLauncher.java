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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Starts redis-server as a child process of this JVM, with a {@code redis.conf} written
 * into its data directory and its log in {@code redis.log} beside it.
 */
final class ProcessLauncher implements RedisInstance.Launcher {

	private static final Map<Path, Integer> versions = new ConcurrentHashMap<>();

	private static final Pattern VERSION = Pattern.compile("v=(\\d+)\\.");

	private final Path binary;

	private final List<String> extraArguments;

	ProcessLauncher(Path binary) {
		this(binary, List.of());
	}

	ProcessLauncher(Path binary, List<String> extraArguments) {
		this.binary = binary;
		this.extraArguments = List.copyOf(extraArguments);
	}

	@Override
	public String describe() {
		return this.binary.toString();
	}

	@Override
	public int majorVersion() {
		return versions.computeIfAbsent(this.binary, ProcessLauncher::readMajorVersion);
	}

	private static int readMajorVersion(Path binary) {
		try {
			Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			process.waitFor(10, TimeUnit.SECONDS);
			Matcher matcher = VERSION.matcher(output);
			return matcher.find() ? Integer.parseInt(matcher.group(1)) : 0;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot run " + binary + " --version", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return 0;
		}
	}

	@Override
	public RedisInstance launch(List<List<String>> config, int port, Path directory, Duration startupTimeout) {
		Path logFile = directory.resolve("redis.log");
		List<String> lines = new ArrayList<>();
		lines.add("port " + port);
		lines.add("bind 127.0.0.1");
		lines.add("dir " + quote(directory.toAbsolutePath().toString()));
		lines.add("logfile " + quote(logFile.toAbsolutePath().toString()));
		lines.add("daemonize no");
		for (List<String> line : config) {
			lines.add(String.join(" ", line.stream().map(ProcessLauncher::quote).toList()));
		}
		try {
			Path conf = directory.resolve("redis.conf");
			Files.write(conf, lines, StandardCharsets.UTF_8);
			long logOffset = Files.exists(logFile) ? Files.size(logFile) : 0;
			List<String> command = new ArrayList<>(List.of(this.binary.toString(), conf.toString()));
			command.addAll(this.extraArguments);
			Process process = new ProcessBuilder(command).directory(directory.toFile())
				.redirectErrorStream(true)
				.redirectOutput(directory.resolve("redis.out").toFile())
				.start();
			LocalInstance instance = new LocalInstance(process, directory);
			ServerProbe.awaitReady(port, startupTimeout, process::isAlive,
					() -> newLog(logFile, logOffset) + instance.output());
			return instance;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot start " + this.binary + " in " + directory, ex);
		}
	}

	private static String newLog(Path logFile, long offset) {
		try {
			if (!Files.exists(logFile)) {
				return "";
			}
			byte[] bytes = Files.readAllBytes(logFile);
			return new String(bytes, (int) Math.min(offset, bytes.length),
					(int) (bytes.length - Math.min(offset, bytes.length)), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			return "(cannot read " + logFile + ": " + ex + ")";
		}
	}

	private static String quote(String value) {
		if (!value.isEmpty() && value.chars().noneMatch((c) -> c <= ' ' || c == '"' || c == '\'' || c == '\\')) {
			return value;
		}
		return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
	}

	private static final class LocalInstance implements RedisInstance {

		private final Process process;

		private final Path directory;

		LocalInstance(Process process, Path directory) {
			this.process = process;
			this.directory = directory;
		}

		@Override
		public boolean isAlive() {
			return this.process.isAlive();
		}

		@Override
		public void terminate(Duration timeout) {
			this.process.destroy();
			if (!await(this.process, timeout)) {
				kill();
			}
		}

		@Override
		public void kill() {
			this.process.destroyForcibly();
			await(this.process, Duration.ofSeconds(30));
		}

		@Override
		public void pause() {
			signal("STOP");
		}

		@Override
		public void resume() {
			signal("CONT");
		}

		private void signal(String name) {
			try {
				Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(this.process.pid())).inheritIO()
					.start();
				if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
					throw new IllegalStateException("kill -" + name + " " + this.process.pid() + " failed");
				}
			}
			catch (IOException ex) {
				throw new IllegalStateException("Cannot send SIG" + name + " to redis-server " + this.process.pid(),
						ex);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while sending SIG" + name, ex);
			}
		}

		@Override
		public String log() {
			return newLog(this.directory.resolve("redis.log"), 0) + output();
		}

		String output() {
			return newLog(this.directory.resolve("redis.out"), 0);
		}

		private static boolean await(Process process, Duration timeout) {
			try {
				return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return !process.isAlive();
			}
		}

	}

}
