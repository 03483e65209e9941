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
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on loopback that stands between a client and a Redis server and injects
 * network faults on demand:
 * <ul>
 * <li>{@link #pass()}: forwards bytes both ways (the default);</li>
 * <li>{@link #blackhole()}: keeps connections open and holds every byte until the mode
 * changes, like a network partition while TCP retransmits (clients see time-outs, not
 * errors, and get the late replies once it heals);</li>
 * <li>{@link #drop()}: resets every open connection and every new one, like a restarted
 * peer or a middlebox dropping state;</li>
 * <li>{@link #latency(Duration)}: forwards each chunk after a delay, like a slow
 * network.</li>
 * </ul>
 * Modes change at once, for open and new connections alike.
 */
public final class TcpFaultProxy implements AutoCloseable {

	private enum Mode {

		PASS, BLACKHOLE, DROP

	}

	private final ServerSocket server;

	private volatile InetSocketAddress target;

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private volatile Mode mode = Mode.PASS;

	private volatile long latencyMillis;

	private volatile boolean closed;

	private TcpFaultProxy(InetSocketAddress target) throws IOException {
		this.target = target;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "tcp-fault-proxy-" + this.server.getLocalPort());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Starts a proxy on a free loopback port in front of a server.
	 * @param host the server's host
	 * @param port the server's port
	 * @return the running proxy
	 */
	public static TcpFaultProxy start(String host, int port) {
		try {
			return new TcpFaultProxy(new InetSocketAddress(host, port));
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot start a TCP proxy in front of " + host + ":" + port, ex);
		}
	}

	/**
	 * Returns the host clients connect to.
	 * @return {@code 127.0.0.1}
	 */
	public String host() {
		return "127.0.0.1";
	}

	/**
	 * Returns the port clients connect to.
	 * @return the port
	 */
	public int port() {
		return this.server.getLocalPort();
	}

	/** Forwards bytes both ways, without delay. */
	public void pass() {
		this.latencyMillis = 0;
		this.mode = Mode.PASS;
	}

	/** Keeps connections open and holds every byte until the mode changes. */
	public void blackhole() {
		this.mode = Mode.BLACKHOLE;
	}

	/** Resets every open connection and every new one until the mode changes. */
	public void drop() {
		this.mode = Mode.DROP;
		this.sockets.forEach(TcpFaultProxy::reset);
	}

	/**
	 * Forwards each chunk after a delay.
	 * @param delay the delay
	 */
	public void latency(Duration delay) {
		this.latencyMillis = delay.toMillis();
		this.mode = Mode.PASS;
	}

	/**
	 * Sends new connections to another server from now on, as a managed service's
	 * endpoint does after a failover; open connections stay where they are
	 * ({@link #drop()} them to make clients reconnect).
	 * @param host the server's host
	 * @param port the server's port
	 */
	public void retarget(String host, int port) {
		this.target = new InetSocketAddress(host, port);
	}

	/**
	 * Returns how many sockets (client and server sides) are open.
	 * @return the count
	 */
	public int openSockets() {
		return this.sockets.size();
	}

	@Override
	public void close() {
		this.closed = true;
		try {
			this.server.close();
		}
		catch (IOException ex) {
			// closing anyway
		}
		this.sockets.forEach(TcpFaultProxy::reset);
	}

	private void accept() {
		while (!this.closed) {
			try {
				Socket client = this.server.accept();
				if (this.mode == Mode.DROP) {
					reset(client);
					continue;
				}
				Socket upstream = new Socket();
				upstream.connect(this.target, 2000);
				this.sockets.add(client);
				this.sockets.add(upstream);
				pump(client, upstream, "up");
				pump(upstream, client, "down");
			}
			catch (IOException ex) {
				if (this.closed) {
					return;
				}
			}
		}
	}

	private void pump(Socket from, Socket to, String direction) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					// a partition holds bytes, it does not lose them: TCP retransmits
					// until
					// it heals (dropping bytes inside a live connection would
					// desynchronize
					// any client, which no real network does)
					while (this.mode == Mode.BLACKHOLE && !this.closed) {
						Thread.sleep(10);
					}
					long delay = this.latencyMillis;
					if (delay > 0) {
						Thread.sleep(delay);
					}
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException ex) {
				// a reset or a close on either side ends the connection
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				forget(from);
				forget(to);
			}
		}, "tcp-fault-proxy-" + direction);
		thread.setDaemon(true);
		thread.start();
	}

	private void forget(Socket socket) {
		this.sockets.remove(socket);
		reset(socket);
	}

	private static void reset(Socket socket) {
		try {
			socket.setSoLinger(true, 0);
		}
		catch (SocketException ex) {
			// already closed
		}
		try {
			socket.close();
		}
		catch (IOException ex) {
			// already closed
		}
	}

}
