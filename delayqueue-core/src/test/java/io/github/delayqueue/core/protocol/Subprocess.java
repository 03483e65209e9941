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

package io.github.delayqueue.core.protocol;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a client's command and returns what it printed, or fails with its errors. */
final class Subprocess {

	private Subprocess() {
	}

	/**
	 * Starts a client's command to talk to it: its standard error goes to the test's.
	 */
	static Process start(List<String> command, Map<String, String> environment) throws java.io.IOException {
		return builder(command, environment).redirectError(ProcessBuilder.Redirect.INHERIT).start();
	}

	private static ProcessBuilder builder(List<String> command, Map<String, String> environment) {
		ProcessBuilder builder = new ProcessBuilder(command);
		builder.environment().remove("PYTHONPATH");
		builder.environment().put("PYTHONNOUSERSITE", "1");
		if (environment != null) {
			builder.environment().putAll(environment);
		}
		return builder;
	}

	static String run(List<String> command, Map<String, String> environment, String failure) throws Exception {
		ProcessBuilder builder = builder(command, environment);
		Path err = Files.createTempFile("producer-client", ".err");
		builder.redirectError(err.toFile());
		Process process;
		try {
			process = builder.start();
		}
		catch (java.io.IOException ex) {
			throw new IllegalStateException(failure + ": " + ex.getMessage(), ex);
		}
		byte[] out = process.getInputStream().readAllBytes();
		if (!process.waitFor(120, TimeUnit.SECONDS)) {
			process.destroyForcibly();
			throw new IllegalStateException(failure + ": no answer in 120 s: " + command);
		}
		String errors = Files.readString(err, StandardCharsets.UTF_8);
		Files.deleteIfExists(err);
		if (process.exitValue() != 0) {
			throw new IllegalStateException(
					failure + " (exit " + process.exitValue() + "): " + command + "\n" + errors);
		}
		return new String(out, StandardCharsets.UTF_8);
	}

}
