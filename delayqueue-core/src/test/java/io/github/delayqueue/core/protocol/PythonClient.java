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

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Python client of {@code clients/python}, installed with pip into the build's target
 * directory (once per JVM), run in a subprocess by Debian's Python 3 with its
 * {@code python3-redis}.
 */
final class PythonClient {

	/** The client's sources, from the module directory the tests run in. */
	static final Path SOURCES = Path.of("..", "clients", "python").toAbsolutePath().normalize();

	/** One per test JVM: the build runs test classes in parallel JVMs. */
	private static final Path INSTALLED = Path.of("target", "python-client-" + ProcessHandle.current().pid())
		.toAbsolutePath();

	private static volatile boolean installed;

	private PythonClient() {
	}

	/** Debian's interpreter (its packages have redis-py), else the one on the path. */
	static String python() {
		return new File("/usr/bin/python3").canExecute() ? "/usr/bin/python3" : "python3";
	}

	/**
	 * Installs the client (pip, no dependencies, no network), and checks redis-py is
	 * there.
	 */
	static synchronized void install() throws Exception {
		if (installed) {
			return;
		}
		Subprocess.run(List.of(python(), "-c", "import redis"), null,
				"redis-py is missing: install Debian's python3-redis (apt-get install python3-redis)");
		deleteRecursively(INSTALLED);
		Subprocess.run(
				List.of(python(), "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
						"--target", INSTALLED.toString(), SOURCES.toString()),
				null, "pip cannot install clients/python");
		installed = true;
	}

	/**
	 * Runs the conformance driver, {@code clients/python/tests/conformance.py}.
	 * @param arguments its arguments
	 * @return the JSON document it printed
	 */
	static JsonNode conformance(List<String> arguments) throws Exception {
		install();
		List<String> command = driver(arguments);
		String out = Subprocess.run(command, Map.of("PYTHONPATH", INSTALLED.toString()),
				"The Python conformance driver failed");
		JsonNode document = JsonMapper.builder().build().readTree(out);
		// the installed package ran, not the sources
		if (!document.get("client").asString().startsWith(INSTALLED.toString())) {
			throw new IllegalStateException("The driver did not use the installed client: " + document.get("client"));
		}
		return document;
	}

	/**
	 * Starts the conformance driver to talk to it.
	 * @param arguments its arguments
	 * @return its process
	 */
	static Process startConformance(List<String> arguments) throws Exception {
		install();
		List<String> command = driver(arguments);
		return Subprocess.start(command, Map.of("PYTHONPATH", INSTALLED.toString()));
	}

	private static void deleteRecursively(Path path) throws IOException {
		if (!Files.exists(path)) {
			return;
		}
		try (var walk = Files.walk(path)) {
			for (Path each : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
				Files.delete(each);
			}
		}
	}

	private static List<String> driver(List<String> arguments) {
		List<String> command = new ArrayList<>(
				List.of(python(), SOURCES.resolve("tests").resolve("conformance.py").toString()));
		command.addAll(arguments);
		return command;
	}

}
