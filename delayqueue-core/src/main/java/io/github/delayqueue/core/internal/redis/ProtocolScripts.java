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

package io.github.delayqueue.core.internal.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The producer protocol's scripts ({@code docs/protocol.md}), assembled at build time:
 * each is the prelude, its names filled in, followed by the operation's script. The build
 * writes them to {@value #DIRECTORY} (run as {@code main} in {@code process-classes}),
 * where the engine loads them ({@link Scripts#SEND}, {@link Scripts#CANCEL},
 * {@link Scripts#RESCHEDULE}) and other languages' clients copy them from, so the two
 * cannot drift.
 */
public final class ProtocolScripts {

	/** The producer protocol version these scripts speak. */
	public static final int VERSION = 1;

	/** Where the assembled scripts are, on the class path. */
	public static final String DIRECTORY = "META-INF/delayqueue/protocol/v" + VERSION;

	/** The operations of the protocol, by script name. */
	public static final List<String> OPERATIONS = List.of("send", "cancel", "reschedule");

	private ProtocolScripts() {
	}

	/**
	 * Writes the assembled scripts and their manifest into a directory.
	 * @param args the class-path root to write under (the build's output directory)
	 * @throws IOException when a file cannot be written
	 */
	public static void main(String[] args) throws IOException {
		if (args.length != 1) {
			throw new IllegalArgumentException("Usage: ProtocolScripts <output directory>");
		}
		Path directory = Path.of(args[0]).resolve(DIRECTORY);
		Files.createDirectories(directory);
		StringBuilder manifest = new StringBuilder();
		manifest.append("protocol=").append(VERSION).append('\n');
		for (String operation : OPERATIONS) {
			String source = assemble(operation);
			Files.writeString(directory.resolve(operation + ".lua"), source, StandardCharsets.UTF_8);
			manifest.append(operation).append(".sha1=").append(sha1(source)).append('\n');
		}
		Files.writeString(directory.resolve("manifest.properties"), manifest.toString(), StandardCharsets.UTF_8);
	}

	/**
	 * Assembles an operation's script: a header naming the protocol version, the prelude,
	 * the script.
	 * @param operation the script's name
	 * @return its source
	 */
	static String assemble(String operation) {
		return "-- delayqueue producer protocol v" + VERSION + ": " + operation
				+ ".lua, generated from scripts/prelude.lua and scripts/" + operation + ".lua; do not edit"
				+ " (docs/protocol.md)\n" + WireFormat.prelude()
				+ read("META-INF/delayqueue/scripts/" + operation + ".lua");
	}

	/**
	 * Reads an assembled script from the class path.
	 * @param operation the script's name
	 * @return its source
	 */
	static String load(String operation) {
		return read(DIRECTORY + "/" + operation + ".lua");
	}

	private static String read(String path) {
		try (InputStream in = ProtocolScripts.class.getClassLoader().getResourceAsStream(path)) {
			if (in == null) {
				throw new IllegalStateException("Missing script " + path
						+ ((path.startsWith(DIRECTORY)) ? " (the build writes it in process-classes)" : ""));
			}
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot read script " + path, ex);
		}
	}

	/**
	 * The SHA-1 Redis names a script by ({@code EVALSHA}).
	 * @param source the script
	 * @return its SHA-1, lower-case hex
	 */
	public static String sha1(String source) {
		try {
			return HexFormat.of()
				.formatHex(MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
		}
		catch (NoSuchAlgorithmException ex) {
			throw new IllegalStateException(ex);
		}
	}

}
