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

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Node client of {@code clients/node}, its dependency (ioredis) installed with
 * {@code npm ci} from its lock file when missing, run in a subprocess.
 */
final class NodeClient {

	/** The client's sources, from the module directory the tests run in. */
	static final Path SOURCES = Path.of("..", "clients", "node").toAbsolutePath().normalize();

	private static volatile boolean installed;

	private NodeClient() {
	}

	static synchronized void install() throws Exception {
		if (installed) {
			return;
		}
		Subprocess.run(List.of("node", "--version"), null,
				"Node.js is missing: install nodejs (apt-get install nodejs npm)");
		// the build runs test classes in parallel JVMs: one npm ci at a time
		Path lockFile = Path.of("target", "npm-ci.lock").toAbsolutePath();
		Files.createDirectories(lockFile.getParent());
		try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
				FileLock lock = channel.lock()) {
			if (!Files.isDirectory(SOURCES.resolve("node_modules").resolve("ioredis"))) {
				Subprocess.run(List.of("npm", "ci", "--no-audit", "--no-fund", "--prefix", SOURCES.toString()), null,
						"npm ci in clients/node failed (it needs the npm registry once)");
			}
		}
		installed = true;
	}

	/**
	 * Starts the conformance driver to talk to it.
	 * @param arguments its arguments
	 * @return its process
	 */
	static Process startConformance(List<String> arguments) throws Exception {
		install();
		List<String> command = driver(arguments);
		return Subprocess.start(command, null);
	}

	/**
	 * Runs the conformance driver, {@code clients/node/test/conformance.js}.
	 * @param arguments its arguments
	 * @return the JSON document it printed
	 */
	static JsonNode conformance(List<String> arguments) throws Exception {
		install();
		List<String> command = driver(arguments);
		return JsonMapper.builder()
			.build()
			.readTree(Subprocess.run(command, null, "The Node conformance driver failed"));
	}

	private static List<String> driver(List<String> arguments) {
		List<String> command = new ArrayList<>(
				List.of("node", SOURCES.resolve("test").resolve("conformance.js").toString()));
		command.addAll(arguments);
		return command;
	}

}
