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

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking RESP2 client, one command per connection. The launchers use it for
 * readiness checks and administration ({@code CLUSTER}, {@code SHUTDOWN}, {@code DEBUG})
 * without pulling a Redis driver into their own start-up path. Tests should use a real
 * driver (Lettuce through Spring Data Redis) instead.
 */
public final class RespClient {

	private RespClient() {
	}

	/**
	 * Sends one command and returns its reply: {@code String} for simple strings and bulk
	 * strings, {@code Long} for integers, {@code List<Object>} for arrays, {@code null}
	 * for nil.
	 * @param host the host
	 * @param port the port
	 * @param password the password to {@code AUTH} with first, or {@code null}
	 * @param timeout connect and read timeout
	 * @param command the command and its arguments
	 * @return the reply
	 * @throws IOException when the server cannot be reached or the connection breaks
	 * @throws RedisErrorReply when the server answers with an error
	 */
	public static Object call(String host, int port, String password, Duration timeout, String... command)
			throws IOException {
		try (Socket socket = new Socket()) {
			socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
			socket.setSoTimeout((int) timeout.toMillis());
			OutputStream out = socket.getOutputStream();
			InputStream in = new BufferedInputStream(socket.getInputStream());
			if (password != null) {
				write(out, "AUTH", password);
				read(in);
			}
			write(out, command);
			return read(in);
		}
	}

	private static void write(OutputStream out, String... command) throws IOException {
		ByteArrayOutputStream buffer = new ByteArrayOutputStream();
		buffer.writeBytes(("*" + command.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
		for (String argument : command) {
			byte[] bytes = argument.getBytes(StandardCharsets.UTF_8);
			buffer.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
			buffer.writeBytes(bytes);
			buffer.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
		}
		out.write(buffer.toByteArray());
		out.flush();
	}

	private static Object read(InputStream in) throws IOException {
		int type = in.read();
		if (type < 0) {
			throw new EOFException("Redis closed the connection");
		}
		String line = readLine(in);
		switch (type) {
			case '+':
				return line;
			case '-':
				throw new RedisErrorReply(line);
			case ':':
				return Long.parseLong(line);
			case '$': {
				int length = Integer.parseInt(line);
				if (length < 0) {
					return null;
				}
				byte[] bytes = in.readNBytes(length + 2);
				if (bytes.length != length + 2) {
					throw new EOFException("Redis closed the connection inside a bulk reply");
				}
				return new String(bytes, 0, length, StandardCharsets.UTF_8);
			}
			case '*': {
				int count = Integer.parseInt(line);
				if (count < 0) {
					return null;
				}
				List<Object> items = new ArrayList<>(count);
				for (int i = 0; i < count; i++) {
					try {
						items.add(read(in));
					}
					catch (RedisErrorReply ex) {
						items.add(ex);
					}
				}
				return items;
			}
			default:
				throw new IOException("Unexpected RESP type byte '" + (char) type + "'");
		}
	}

	private static String readLine(InputStream in) throws IOException {
		ByteArrayOutputStream line = new ByteArrayOutputStream();
		int previous = -1;
		while (true) {
			int next = in.read();
			if (next < 0) {
				throw new EOFException("Redis closed the connection inside a reply");
			}
			if (previous == '\r' && next == '\n') {
				byte[] bytes = line.toByteArray();
				return new String(bytes, 0, bytes.length - 1, StandardCharsets.UTF_8);
			}
			line.write(next);
			previous = next;
		}
	}

	/**
	 * An error reply from Redis ({@code -ERR ...}).
	 */
	public static final class RedisErrorReply extends IOException {

		private static final long serialVersionUID = 1L;

		RedisErrorReply(String message) {
			super(message);
		}

	}

}
