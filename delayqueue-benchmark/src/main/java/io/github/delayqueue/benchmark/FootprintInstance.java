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

package io.github.delayqueue.benchmark;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * A {@link FootprintChild} in a JVM of its own, started with this JVM's class path, and
 * the line protocol the {@code footprint} scenario speaks with it: a command on its
 * standard input, a {@value FootprintChild#PREFIX} line of JSON on its standard output.
 * Its other output (the log, on standard error) is passed through.
 */
final class FootprintInstance {

	private final Process process;

	private final Writer input;

	private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();

	private FootprintInstance(Process process) {
		this.process = process;
		this.input = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
		Thread reader = new Thread(this::readReplies, "footprint-instance-" + process.pid());
		reader.setDaemon(true);
		reader.start();
	}

	/**
	 * Starts an instance.
	 * @param childArguments the arguments of {@link FootprintChild#main}
	 * @return the instance, starting (await its {@code READY} with {@link #await})
	 * @throws IOException if the JVM cannot be started
	 */
	static FootprintInstance start(List<String> childArguments) throws IOException {
		String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
		String classPath = System.getProperty("java.class.path");
		List<String> command = new ArrayList<>(List.of(java));
		String options = System.getProperty("bench.child-jvm-options", "");
		if (!options.isBlank()) {
			command.addAll(List.of(options.trim().split("\\s+")));
		}
		if (isRunnableJar(classPath)) {
			// the runnable jar: its own launcher finds the nested jars
			command.addAll(List.of("-jar", classPath));
		}
		else {
			command.addAll(List.of("-cp", classPath, Benchmark.class.getName()));
		}
		command.add(Benchmark.CHILD);
		command.addAll(childArguments);
		ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
		return new FootprintInstance(builder.start());
	}

	/**
	 * Whether the class path is this module's runnable jar, whose classes only its own
	 * launcher finds (a test's class path may be one jar too, naming the others in its
	 * manifest).
	 */
	private static boolean isRunnableJar(String classPath) throws IOException {
		if (classPath.contains(File.pathSeparator) || !classPath.endsWith(".jar")) {
			return false;
		}
		try (JarFile jar = new JarFile(classPath)) {
			Manifest manifest = jar.getManifest();
			return manifest != null && manifest.getMainAttributes().getValue("Start-Class") != null;
		}
	}

	private void readReplies() {
		try (BufferedReader reader = new BufferedReader(
				new InputStreamReader(this.process.getInputStream(), StandardCharsets.UTF_8))) {
			String line;
			while ((line = reader.readLine()) != null) {
				if (line.startsWith(FootprintChild.PREFIX)) {
					this.replies.add(line.substring(FootprintChild.PREFIX.length()));
				}
				else {
					System.err.println("[instance " + this.process.pid() + "] " + line);
				}
			}
		}
		catch (IOException ex) {
			// the process ended: await reports it
		}
	}

	/**
	 * Sends a command and awaits its reply.
	 * @param command the command ({@code SAMPLE}, {@code GC}, {@code COUNTS},
	 * {@code LATENESS}, {@code STOP})
	 * @return the reply's figures
	 */
	Map<String, Object> ask(String command) throws IOException, InterruptedException {
		this.input.write(command + "\n");
		this.input.flush();
		return await(command, 120);
	}

	/**
	 * Awaits a reply.
	 * @param what the reply awaited
	 * @param seconds how long to wait at most
	 * @return its figures
	 */
	@SuppressWarnings("unchecked")
	Map<String, Object> await(String what, int seconds) throws InterruptedException {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
		while (System.nanoTime() < deadline) {
			String reply = this.replies.poll(200, TimeUnit.MILLISECONDS);
			if (reply != null) {
				Map<String, Object> figures = Benchmark.JSON.readValue(reply, Map.class);
				if (what.equals(figures.get("reply")) || "STOPPING".equals(figures.get("reply"))) {
					return figures;
				}
				throw new IllegalStateException("Instance " + this.process.pid() + " answered " + reply);
			}
			if (!this.process.isAlive()) {
				throw new IllegalStateException(
						"Instance " + this.process.pid() + " exited with " + this.process.exitValue());
			}
		}
		throw new IllegalStateException("Instance " + this.process.pid() + " did not answer " + what);
	}

	/** Asks the instance to stop, and ends its process if it has not within 20 s. */
	void close() throws InterruptedException {
		try {
			if (this.process.isAlive()) {
				ask("STOP");
			}
		}
		catch (IOException | RuntimeException ex) {
			// ended below
		}
		if (!this.process.waitFor(20, TimeUnit.SECONDS)) {
			this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
		}
	}

}
