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

package io.github.delayqueue.core.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueEngineBuilder;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Helpers of the reliability tests: the Redis clock, and child JVMs whose output lines
 * can be awaited with a timeout.
 */
final class ReliabilitySupport {

	private ReliabilitySupport() {
	}

	/**
	 * Reads the Redis clock with {@code TIME} (a plain socket of its own).
	 * @param redis the server
	 * @return the server's time
	 */
	static Instant redisTime(RedisServer redis) {
		List<?> time = (List<?>) redis.execute("TIME");
		return Instant.ofEpochSecond(Long.parseLong((String) time.get(0)), Long.parseLong((String) time.get(1)) * 1000);
	}

	/**
	 * Reads the Redis clock in epoch milliseconds, rounded down as the scripts do.
	 * @param redis the server
	 * @return the server's time in ms
	 */
	static long redisMillis(RedisServer redis) {
		return redisTime(redis).toEpochMilli();
	}

	/**
	 * The engine of a child JVM: on a server of this machine, by port.
	 * @param port the server's port, as the child's argument gives it
	 * @return the engine
	 */
	static DelayQueueEngine childEngine(String port) {
		return childEngine(port, null, 1);
	}

	/**
	 * The engine of a child JVM, declaring a queue's partitions.
	 * @param port the server's port, as the child's argument gives it
	 * @param queue the queue, or {@code null}
	 * @param partitions its partitions
	 * @return the engine
	 */
	static DelayQueueEngine childEngine(String port, String queue, int partitions) {
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration("127.0.0.1", Integer.parseInt(port)));
		factory.afterPropertiesSet();
		factory.start();
		DelayQueueEngineBuilder builder = DelayQueueEngine.builder(factory);
		return ((queue != null) ? builder.partitions(queue, partitions) : builder).build();
	}

	/**
	 * Starts the listeners of a campaign's child JVM, one per group of
	 * {@link CampaignApp#GROUPS} ("ordered" is an ordered listener), each printing a
	 * {@code START <group> <id> <attempt> <ms>} and a {@code DONE <group> <id> <ms>} line
	 * around a handling of up to {@code maxSleepMillis}, for {@link HistoryChecker}. Uses
	 * only what the releases a rolling upgrade runs side by side both have.
	 * @param out where the lines go
	 * @return the containers started
	 */
	static List<DelayQueueListenerContainer> historyListeners(DelayQueueEngine engine, String queue, PrintStream out,
			int maxSleepMillis) {
		List<DelayQueueListenerContainer> containers = new ArrayList<>();
		for (String group : CampaignApp.GROUPS) {
			DelayQueueListenerContainer container = engine
				.listenerContainer(queue, group, String.class, (payload, context) -> {
					out.println("START " + group + " " + context.id() + " " + context.attempt() + " "
							+ System.currentTimeMillis());
					Thread.sleep(ThreadLocalRandom.current().nextInt(maxSleepMillis));
					out.println("DONE " + group + " " + context.id() + " " + System.currentTimeMillis());
				})
				.ordered(group.equals("ordered"))
				.concurrency(4)
				.visibilityTimeout(Duration.ofSeconds(5))
				.build();
			container.start();
			containers.add(container);
		}
		return containers;
	}

	/**
	 * A JVM started from this test's class path running a main class of the test sources;
	 * its stdout and stderr lines are collected by a thread of their own.
	 */
	static final class ChildJvm implements AutoCloseable {

		private final Process process;

		private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

		private final List<String> seen = new ArrayList<>();

		ChildJvm(Class<?> mainClass, String... args) throws IOException {
			this(System.getProperty("java.class.path"), mainClass, args);
		}

		/**
		 * A JVM on another class path (e.g. with the engine of an earlier release).
		 */
		ChildJvm(String classPath, Class<?> mainClass, String... args) throws IOException {
			List<String> command = new ArrayList<>(
					List.of(Paths.get(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
							"-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classPath, mainClass.getName()));
			command.addAll(List.of(args));
			this.process = new ProcessBuilder(command).redirectErrorStream(true).start();
			Thread pump = new Thread(() -> {
				try (BufferedReader reader = new BufferedReader(
						new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
					String line;
					while ((line = reader.readLine()) != null) {
						this.lines.add(line);
					}
				}
				catch (IOException ex) {
					// the process was killed
				}
			}, "child-jvm-output");
			pump.setDaemon(true);
			pump.start();
		}

		/**
		 * Stops the process with SIGSTOP: it keeps its connections but runs nothing (a
		 * long GC pause, a frozen VM).
		 */
		void pause() throws IOException, InterruptedException {
			signal("-STOP");
		}

		/**
		 * Resumes a paused process with SIGCONT.
		 */
		void resume() throws IOException, InterruptedException {
			signal("-CONT");
		}

		private void signal(String signal) throws IOException, InterruptedException {
			Process kill = new ProcessBuilder("kill", signal, Long.toString(this.process.pid())).start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill " + signal + " " + this.process.pid() + " failed");
			}
		}

		/**
		 * Waits for a line starting with a prefix.
		 * @param prefix the prefix
		 * @param timeout how long to wait
		 * @return the line
		 * @throws InterruptedException when interrupted
		 */
		String awaitLine(String prefix, Duration timeout) throws InterruptedException {
			long deadline = System.nanoTime() + timeout.toNanos();
			while (true) {
				long left = deadline - System.nanoTime();
				String line = (left > 0) ? this.lines.poll(left, TimeUnit.NANOSECONDS) : null;
				if (line == null) {
					throw new AssertionError("The child JVM (alive: " + this.process.isAlive() + ") did not print '"
							+ prefix + "' within " + timeout + "; its output:\n" + String.join("\n", this.seen));
				}
				this.seen.add(line);
				if (line.startsWith(prefix)) {
					return line;
				}
			}
		}

		/**
		 * Collects the lines printed within a time.
		 * @param time how long to collect
		 * @return the lines
		 * @throws InterruptedException when interrupted
		 */
		List<String> linesWithin(Duration time) throws InterruptedException {
			List<String> collected = new ArrayList<>();
			long deadline = System.nanoTime() + time.toNanos();
			for (long left = time.toNanos(); left > 0; left = deadline - System.nanoTime()) {
				String line = this.lines.poll(left, TimeUnit.NANOSECONDS);
				if (line != null) {
					this.seen.add(line);
					collected.add(line);
				}
			}
			return collected;
		}

		/**
		 * Writes a line to the process's standard input.
		 * @param line the line
		 * @throws IOException when the process is gone
		 */
		void tell(String line) throws IOException {
			this.process.getOutputStream().write((line + "\n").getBytes(StandardCharsets.UTF_8));
			this.process.getOutputStream().flush();
		}

		/**
		 * Takes the lines printed since the last call (or wait).
		 * @return the lines
		 */
		List<String> drain() {
			List<String> drained = new ArrayList<>();
			this.lines.drainTo(drained);
			this.seen.addAll(drained);
			return drained;
		}

		/**
		 * Kills the process with SIGKILL and waits for it to end.
		 * @return whether it ended
		 * @throws InterruptedException when interrupted
		 */
		boolean kill() throws InterruptedException {
			this.process.destroyForcibly();
			return this.process.waitFor(10, TimeUnit.SECONDS);
		}

		long pid() {
			return this.process.pid();
		}

		@Override
		public void close() throws InterruptedException {
			kill();
		}

	}

}
