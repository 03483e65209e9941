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

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Free ports and readiness checks shared by the launchers.
 */
final class ServerProbe {

	static final String HOST = "127.0.0.1";

	private ServerProbe() {
	}

	/**
	 * A port that was free on 127.0.0.1 a moment ago. A launcher that finds it taken by
	 * the time it binds reports {@link RedisInstance.PortInUseException} and is retried.
	 * @return the port
	 */
	static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
			socket.setReuseAddress(true);
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("No free port on " + HOST, ex);
		}
	}

	/**
	 * Waits until a server on the port answers {@code PING} (an authentication error
	 * counts as an answer; {@code LOADING} does not).
	 * @param port the port
	 * @param timeout how long to wait
	 * @param alive whether the server process still runs
	 * @param log the server's log, for the error message
	 */
	static void awaitReady(int port, Duration timeout, BooleanSupplier alive, Supplier<String> log) {
		long deadline = System.nanoTime() + timeout.toNanos();
		while (true) {
			try {
				RespClient.call(HOST, port, null, Duration.ofMillis(500), "PING");
				return;
			}
			catch (RespClient.RedisErrorReply ex) {
				if (!ex.getMessage().startsWith("LOADING")) {
					return;
				}
			}
			catch (IOException ex) {
				// not listening yet
			}
			if (!alive.getAsBoolean()) {
				String text = log.get();
				if (text.contains("Address already in use")) {
					throw new RedisInstance.PortInUseException("Port " + port + " was taken");
				}
				throw new IllegalStateException("redis-server exited during start-up. Its log:\n" + text);
			}
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("redis-server did not answer on port " + port + " within " + timeout
						+ ". Its log:\n" + log.get());
			}
			try {
				Thread.sleep(10);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted while waiting for redis-server", ex);
			}
		}
	}

}
