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

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.reliability.ReliabilitySupport.ChildJvm;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deployment rolling from the last release before the shared runtime (issue 59) to this
 * one: instances of both consume the same queue side by side, under a steady load, while
 * the old ones stop one by one. The old engine is built from git ({@link #OLD_RELEASE})
 * into {@code target/rolling-upgrade} (once per checkout), and each instance runs
 * {@link RollingUpgradeApp} in a JVM of its own, on the old engine's jar or on this
 * build's classes. Nothing may be lost, early, or handled twice in a group (every stop is
 * graceful: no lease expires), in the shared group and in the ordered one.
 * <p>
 * Skipped, saying so, where the checkout has no git history of that commit (a shallow
 * clone, a source archive).
 */
@Tag("faults")
class RollingUpgradeTests {

	/** The last main before the shared runtime of issue 59 (87cc297, 2026-12-02). */
	static final String OLD_RELEASE = "87cc297";

	private static final String QUEUE = "rolling";

	private static final int PARTITIONS = 4;

	/** Messages a second the producer sends while the deployment rolls. */
	private static final int RATE = 100;

	@Test
	void oldAndNewInstancesShareTheQueuesWhileTheOldOnesStopOneByOne() throws Exception {
		Path root = repositoryRoot();
		Assumptions.assumeTrue(root != null, "not in a git checkout: the old release cannot be built");
		Assumptions.assumeTrue(run(root, List.of("git", "cat-file", "-e", OLD_RELEASE + "^{commit}")) == 0,
				"the checkout has no commit " + OLD_RELEASE + " (a shallow clone?): the old release cannot be built");
		String oldClassPath = oldClassPath(root, oldJar(root));
		Map<String, HistoryChecker> histories = new HashMap<>();
		CampaignApp.GROUPS.forEach((group) -> histories.put(group, new HistoryChecker()));
		Map<String, Long> sent = new ConcurrentHashMap<>();
		List<ChildJvm> children = new ArrayList<>();
		Map<Integer, String> releases = new LinkedHashMap<>();
		try (RedisServer redis = RedisServer.start()) {
			String port = String.valueOf(redis.port());
			try (DelayQueueEngine producer = DelayQueueEngine.builder(RedisServerExtension.connectionFactory(redis))
				.partitions(QUEUE, PARTITIONS)
				.build()) {
				Collector collector = new Collector(children, histories);
				ChildJvm oldA = start(children, releases, "old", oldClassPath, port, collector);
				ChildJvm oldB = start(children, releases, "old", oldClassPath, port, collector);
				AtomicBoolean sending = new AtomicBoolean(true);
				AtomicReference<Throwable> sendFailure = new AtomicReference<>();
				Thread sender = new Thread(() -> {
					try {
						produce(producer, sent, sending);
					}
					catch (Throwable ex) {
						sendFailure.set(ex);
					}
				}, "rolling-producer");
				sender.start();
				try {
					sleep(3000, collector);
					start(children, releases, "new", System.getProperty("java.class.path"), port, collector);
					sleep(3000, collector);
					stop(oldA, collector);
					start(children, releases, "new", System.getProperty("java.class.path"), port, collector);
					sleep(3000, collector);
					stop(oldB, collector);
					sleep(3000, collector);
				}
				finally {
					// not interrupted: a send interrupted may still reach Redis
					sending.set(false);
					sender.join(10_000);
				}
				assertThat(sendFailure.get()).as("a send failed").isNull();
				long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
				while (!histories.values().stream().allMatch((history) -> history.allFinished(sent.keySet(), 1))
						&& System.nanoTime() < deadline) {
					sleep(200, collector);
				}
				// what comes late would be a duplicate
				sleep(1000, collector);
			}
			finally {
				for (ChildJvm child : children) {
					child.kill();
				}
			}
		}
		System.out.println("rolling upgrade: " + sent.size() + " messages sent, instances " + releases);
		assertThat(sent).hasSizeGreaterThan(1000);
		for (String group : CampaignApp.GROUPS) {
			HistoryChecker history = histories.get(group);
			Map<String, Long> byRelease = history.events()
				.stream()
				.collect(Collectors.groupingBy((event) -> releases.get(event.consumer()), Collectors.counting()));
			System.out.println("group " + group + ": handled by release " + byRelease);
			List<String> violations = history.violations(sent.keySet(), List.of(), 1, 0, false);
			assertThat(violations).as("group " + group).isEmpty();
			// both releases took part
			assertThat(byRelease).containsKeys("old", "new");
			// nothing earlier than its due time by the sender's clock before the send
			history.events()
				.forEach((event) -> assertThat(event.receivedMillis()).as(event.id())
					.isGreaterThanOrEqualTo(sent.get(event.id())));
		}
	}

	/** Sends at {@link #RATE} a second, each due 0 to 3 s ahead, while told to. */
	private static void produce(DelayQueueEngine engine, Map<String, Long> sent, AtomicBoolean sending)
			throws InterruptedException {
		long next = System.nanoTime();
		for (int i = 0; sending.get(); i++) {
			long delay = ThreadLocalRandom.current().nextLong(0, 3000);
			String id = "m-" + i;
			long due = System.currentTimeMillis() + delay;
			sent.put(id, due);
			engine.template()
				.send(DelayMessage.builder("p" + i)
					.queue(QUEUE)
					.id(id)
					.key("k" + (i % 20))
					.delay(Duration.ofMillis(delay))
					.build());
			next += TimeUnit.SECONDS.toNanos(1) / RATE;
			long wait = next - System.nanoTime();
			if (wait > 0) {
				TimeUnit.NANOSECONDS.sleep(wait);
			}
		}
	}

	private static ChildJvm start(List<ChildJvm> children, Map<Integer, String> releases, String release,
			String classPath, String port, Collector collector) throws Exception {
		int index = children.size();
		ChildJvm child = new ChildJvm(classPath, RollingUpgradeApp.class, port, QUEUE, String.valueOf(PARTITIONS),
				release + "-" + index);
		releases.put(index, release);
		children.add(child);
		String ready = collector.awaitLine(index, "READY", Duration.ofSeconds(60));
		// the instance runs the release it stands for
		String location = ready.substring(ready.lastIndexOf(' ') + 1);
		if (release.equals("old")) {
			assertThat(location).endsWith(OLD_RELEASE + "/delayqueue-core/target/delayqueue-core-0.1.0-SNAPSHOT.jar");
		}
		else {
			assertThat(location).endsWith("delayqueue-core/target/classes/");
		}
		return child;
	}

	private static void stop(ChildJvm child, Collector collector) throws Exception {
		child.tell("STOP");
		collector.awaitLine(collector.indexOf(child), "STOPPED", Duration.ofSeconds(60));
	}

	private static void sleep(long millis, Collector collector) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
		do {
			collector.collect();
			Thread.sleep(50);
		}
		while (System.nanoTime() < deadline);
		collector.collect();
	}

	/** Reads every child's lines into the groups' histories. */
	private static final class Collector {

		private final List<ChildJvm> children;

		private final Map<String, HistoryChecker> histories;

		private final Map<Integer, List<String>> others = new HashMap<>();

		Collector(List<ChildJvm> children, Map<String, HistoryChecker> histories) {
			this.children = children;
			this.histories = histories;
		}

		int indexOf(ChildJvm child) {
			return this.children.indexOf(child);
		}

		void collect() {
			for (int i = 0; i < this.children.size(); i++) {
				for (String line : this.children.get(i).drain()) {
					String[] words = line.split(" ");
					if (words[0].equals("START") && words.length == 5) {
						long at = Long.parseLong(words[4]);
						// its due time is checked against the sender's record, by the
						// test
						this.histories.get(words[1])
							.record(new HistoryChecker.Event(words[2], Integer.parseInt(words[3]), i, at, at, true));
					}
					else if (!words[0].equals("DONE")) {
						this.others.computeIfAbsent(i, (key) -> new ArrayList<>()).add(line);
					}
				}
			}
		}

		String awaitLine(int child, String prefix, Duration timeout) throws InterruptedException {
			long deadline = System.nanoTime() + timeout.toNanos();
			while (System.nanoTime() < deadline) {
				collect();
				for (String line : this.others.getOrDefault(child, List.of())) {
					if (line.startsWith(prefix)) {
						return line;
					}
				}
				Thread.sleep(50);
			}
			throw new AssertionError("Instance " + child + " did not print " + prefix + " within " + timeout
					+ "; its output:\n" + String.join("\n", this.others.getOrDefault(child, List.of())));
		}

	}

	/** The checkout's root: the directory with the Maven wrapper and git's metadata. */
	private static Path repositoryRoot() {
		for (Path dir = Paths.get("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
			if (Files.exists(dir.resolve("mvnw")) && Files.exists(dir.resolve(".git"))) {
				return dir;
			}
		}
		return null;
	}

	/**
	 * Builds the old release's engine jar from git, once per checkout: its sources as git
	 * holds them, packaged with the Maven wrapper, without tests, offline (its
	 * dependencies are this build's).
	 */
	private static Path oldJar(Path root) throws Exception {
		Path dir = root.resolve("delayqueue-core/target/rolling-upgrade/" + OLD_RELEASE);
		Path jar = dir.resolve("delayqueue-core/target/delayqueue-core-0.1.0-SNAPSHOT.jar");
		if (Files.exists(jar)) {
			return jar;
		}
		Files.createDirectories(dir);
		Path log = dir.getParent().resolve(OLD_RELEASE + "-build.log");
		assertThat(run(root,
				List.of("sh", "-c", "git archive --format=tar " + OLD_RELEASE + " | tar -x -C '" + dir + "'"), log))
			.as("git archive of " + OLD_RELEASE)
			.isZero();
		assertThat(run(dir,
				List.of("sh", "./mvnw", "-q", "-o", "-B", "-pl", "delayqueue-core", "-am", "package", "-DskipTests",
						"-Dspring-javaformat.skip=true")))
			.as("the build of " + OLD_RELEASE + " (its output is in " + log + ")")
			.isZero();
		assertThat(jar).exists();
		return jar;
	}

	/**
	 * This test's class path with the old engine's jar in place of this build's classes.
	 */
	private static String oldClassPath(Path root, Path oldJar) {
		String current = root.resolve("delayqueue-core/target/classes").toString();
		List<String> entries = new ArrayList<>(
				Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator)));
		assertThat(entries).as("the test's class path").contains(current);
		entries.replaceAll((entry) -> entry.equals(current) ? oldJar.toString() : entry);
		return String.join(File.pathSeparator, entries);
	}

	private static int run(Path dir, List<String> command) throws IOException, InterruptedException {
		return run(dir, command, null);
	}

	/**
	 * @param log where its output goes, or {@code null} for nowhere
	 */
	private static int run(Path dir, List<String> command, Path log) throws IOException, InterruptedException {
		ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
		builder.redirectOutput(
				(log != null) ? ProcessBuilder.Redirect.appendTo(log.toFile()) : ProcessBuilder.Redirect.DISCARD);
		Process process = builder.start();
		if (!process.waitFor(10, TimeUnit.MINUTES)) {
			process.destroyForcibly();
			return -1;
		}
		return process.exitValue();
	}

}
