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

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One running redis-server, however it was started (a local process or a container).
 * {@link RedisProcess} drives it for a {@link RedisServer}; a restart launches a new
 * instance on the same port and data directory.
 */
interface RedisInstance {

	boolean isAlive();

	/** SIGTERM, then SIGKILL when it has not exited within the timeout. */
	void terminate(Duration timeout);

	/** SIGKILL, and wait until it is gone. */
	void kill();

	/** SIGSTOP. */
	void pause();

	/** SIGCONT. */
	void resume();

	/** Everything the server logged so far. */
	String log();

	/**
	 * Starts redis-server instances.
	 */
	interface Launcher {

		/**
		 * Launches redis-server and returns once it answers.
		 * @param config the configuration lines (name followed by values), without
		 * {@code port}, {@code dir} and {@code bind}, which the launcher sets
		 * @param port the port on 127.0.0.1 to listen on
		 * @param directory the data directory, kept across restarts
		 * @param startupTimeout how long to wait for the server to answer
		 * @return the running instance
		 * @throws PortInUseException when the port was taken meanwhile
		 */
		RedisInstance launch(List<List<String>> config, int port, Path directory, Duration startupTimeout);

		/** A name for messages, e.g. the binary's path. */
		String describe();

		/** The major version of the server this launcher starts, or 0 when unknown. */
		int majorVersion();

	}

	/**
	 * The port chosen for a server was taken before it could bind it.
	 */
	class PortInUseException extends RuntimeException {

		private static final long serialVersionUID = 1L;

		PortInUseException(String message) {
			super(message);
		}

	}

}
