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

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

import io.github.delayqueue.core.internal.redis.ProtocolScripts;
import io.github.delayqueue.core.internal.redis.Scripts;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The producer protocol's scripts are one set of files: the build assembles them, the
 * engine runs them, and the clients of other languages carry byte-equal copies.
 */
class ProtocolScriptsTests {

	private static final Path PYTHON_COPIES = PythonClient.SOURCES
		.resolve(Path.of("src", "delayqueue", "scripts", "v" + ProtocolScripts.VERSION));

	private static final Path NODE_COPIES = NodeClient.SOURCES
		.resolve(Path.of("scripts", "v" + ProtocolScripts.VERSION));

	@Test
	void theEngineRunsTheAssembledScripts() throws IOException {
		Properties manifest = manifest();
		assertThat(manifest.getProperty("protocol")).isEqualTo("1");
		assertThat(Scripts.SEND.getSha1()).isEqualTo(manifest.getProperty("send.sha1"));
		assertThat(Scripts.CANCEL.getSha1()).isEqualTo(manifest.getProperty("cancel.sha1"));
		assertThat(Scripts.RESCHEDULE.getSha1()).isEqualTo(manifest.getProperty("reschedule.sha1"));
		assertThat(Scripts.SEND.getScriptAsString())
			.startsWith("-- delayqueue producer protocol v1: send.lua, generated from scripts/prelude.lua")
			// the names of the wire format are filled in: nothing is left to assemble
			.doesNotContainPattern("\\{\\{[A-Z_]+\\}\\}");
	}

	@Test
	void thePythonClientCarriesTheBuildsScriptsByteForByte() throws IOException {
		assertCopies(PYTHON_COPIES, "clients/python");
	}

	@Test
	void theNodeClientCarriesTheBuildsScriptsByteForByte() throws IOException {
		assertCopies(NODE_COPIES, "clients/node");
	}

	private static void assertCopies(Path copies, String client) throws IOException {
		for (String operation : ProtocolScripts.OPERATIONS) {
			assertThat(Files.readString(copies.resolve(operation + ".lua"), StandardCharsets.UTF_8))
				.as("%s's %s.lua differs from the build's: run clients/copy-scripts.sh", client, operation)
				.isEqualTo(resource(operation + ".lua"));
		}
		assertThat(Files.readString(copies.resolve("manifest.properties"), StandardCharsets.UTF_8))
			.as("%s's manifest differs from the build's: run clients/copy-scripts.sh", client)
			.isEqualTo(resource("manifest.properties"));
		try (var files = Files.list(copies)) {
			assertThat(files.map((file) -> file.getFileName().toString()).sorted().toList())
				.isEqualTo(List.of("cancel.lua", "manifest.properties", "reschedule.lua", "send.lua"));
		}
	}

	private static Properties manifest() throws IOException {
		Properties manifest = new Properties();
		manifest.load(new java.io.StringReader(resource("manifest.properties")));
		return manifest;
	}

	private static String resource(String name) throws IOException {
		try (InputStream in = ProtocolScriptsTests.class.getClassLoader()
			.getResourceAsStream(ProtocolScripts.DIRECTORY + "/" + name)) {
			assertThat(in).as(name + " on the class path").isNotNull();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

}
