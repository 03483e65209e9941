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

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Finds a {@code redis-server} executable, in this order:
 * <ol>
 * <li>the path in the {@code delayqueue.test.redis-server} system property or the
 * {@code DELAYQUEUE_REDIS_SERVER} environment variable, or a name there: {@code embedded}
 * for the binary of the embedded-redis artifact (Redis 6.2), {@code valkey} for
 * {@code valkey-server} on the {@code PATH} (Valkey), whatever else the machine has. A
 * named server that is not there fails the test: its run proves a row of the
 * compatibility table, so it must not pass on another server, nor be skipped;</li>
 * <li>{@code redis-server} on the {@code PATH};</li>
 * <li>the binary shipped in {@code com.github.codemonstur:embedded-redis} (Redis 6.2,
 * Linux and macOS), extracted once into the temp directory.</li>
 * </ol>
 * Where none is found, {@link RedisServer} uses Testcontainers when Docker runs.
 */
public final class RedisBinary {

	/** System property naming the redis-server executable to use. */
	public static final String PROPERTY = "delayqueue.test.redis-server";

	/** Environment variable naming the redis-server executable to use. */
	public static final String ENVIRONMENT = "DELAYQUEUE_REDIS_SERVER";

	/** The {@link #PROPERTY} value that chooses Valkey's {@code valkey-server}. */
	public static final String VALKEY = "valkey";

	private RedisBinary() {
	}

	/**
	 * Returns the executable to use, or {@code null} when none is available on this
	 * machine.
	 * @return the redis-server executable or {@code null}
	 */
	public static Path find() {
		String configured = System.getProperty(PROPERTY, System.getenv(ENVIRONMENT));
		if ("embedded".equals(configured)) {
			Path embedded = embedded();
			if (embedded == null) {
				throw new IllegalStateException(PROPERTY + "=embedded, but the embedded-redis artifact ships no "
						+ "redis-server for " + System.getProperty("os.name") + " " + System.getProperty("os.arch"));
			}
			return embedded;
		}
		if (VALKEY.equals(configured)) {
			Path valkey = onPath("valkey-server");
			if (valkey == null) {
				throw new IllegalStateException(PROPERTY + "=valkey, but there is no valkey-server on the PATH "
						+ "(Debian 12: 'apt-get install -t bookworm-backports valkey-server', as .ci/run does; "
						+ "macOS: 'brew install valkey')");
			}
			return valkey;
		}
		if (configured != null && !configured.isBlank()) {
			Path path = Paths.get(configured);
			if (!Files.isExecutable(path)) {
				throw new IllegalStateException(
						"redis-server configured by " + PROPERTY + " / " + ENVIRONMENT + " is not executable: " + path);
			}
			return path;
		}
		Path onPath = onPath();
		return (onPath != null) ? onPath : embedded();
	}

	/**
	 * Returns {@code redis-server} from the {@code PATH}, or {@code null}.
	 * @return the executable or {@code null}
	 */
	public static Path onPath() {
		return onPath("redis-server");
	}

	/**
	 * Returns the executable of this name from the {@code PATH}, or {@code null}. The
	 * path is not resolved: Debian's {@code valkey-server} is a link that the binary
	 * reads its mode from.
	 * @param name the executable's name, e.g. {@code valkey-server}
	 * @return the executable or {@code null}
	 */
	static Path onPath(String name) {
		String path = System.getenv("PATH");
		if (path == null) {
			return null;
		}
		for (String directory : path.split(File.pathSeparator)) {
			if (directory.isEmpty()) {
				continue;
			}
			Path candidate = Paths.get(directory, name);
			if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		return null;
	}

	/**
	 * Returns the binary shipped in the embedded-redis artifact for this operating system
	 * and architecture, extracted to the temp directory, or {@code null} when the
	 * artifact is not on the class path or ships no binary for this platform.
	 * @return the executable or {@code null}
	 */
	public static Path embedded() {
		String resource = embeddedResourceName();
		if (resource == null) {
			return null;
		}
		Path target = Paths.get(System.getProperty("java.io.tmpdir"), "delayqueue-" + resource);
		if (Files.isExecutable(target)) {
			return target;
		}
		try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
			if (in == null) {
				return null;
			}
			Path partial = Files.createTempFile(target.getParent(), "delayqueue-redis", ".part");
			Files.copy(in, partial, StandardCopyOption.REPLACE_EXISTING);
			if (!partial.toFile().setExecutable(true)) {
				throw new IOException("cannot make " + partial + " executable");
			}
			Files.move(partial, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
			return target;
		}
		catch (IOException ex) {
			throw new IllegalStateException("Could not extract the embedded redis-server " + resource, ex);
		}
	}

	static String embeddedResourceName() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
		boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
		if (os.contains("linux")) {
			return x64 ? "redis-server-6.2.6-v5-linux-amd64" : (arm64 ? "redis-server-6.2.7-linux-arm64" : null);
		}
		if (os.contains("mac")) {
			return x64 ? "redis-server-6.2.6-v5-darwin-amd64" : (arm64 ? "redis-server-6.2.6-v5-darwin-arm64" : null);
		}
		return null;
	}

}
