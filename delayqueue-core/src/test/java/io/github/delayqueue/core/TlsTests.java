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

package io.github.delayqueue.core;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.test.RedisServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SslOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The engine over TLS, with certificates from a test CA made here with {@code openssl}:
 * works when the client trusts the server's CA; fails closed, with the reason, when it
 * does not.
 */
@Tag("faults")
class TlsTests {

	@TempDir
	static Path certificates;

	private static RedisServer redis;

	private static int tlsPort;

	@BeforeAll
	static void start() throws Exception {
		Assumptions.assumeTrue(openssl("version"), "openssl is not installed (.ci/run installs it)");
		openssl("req", "-x509", "-new", "-nodes", "-newkey", "rsa:2048", "-days", "2", "-subj",
				"/CN=delayqueue test CA", "-keyout", "ca.key", "-out", "ca.crt");
		openssl("req", "-x509", "-new", "-nodes", "-newkey", "rsa:2048", "-days", "2", "-subj", "/CN=another CA",
				"-keyout", "other-ca.key", "-out", "other-ca.crt");
		openssl("req", "-new", "-nodes", "-newkey", "rsa:2048", "-subj", "/CN=localhost", "-keyout", "server.key",
				"-out", "server.csr");
		Files.writeString(certificates.resolve("san.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n");
		openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-days",
				"2", "-extfile", "san.ext", "-out", "server.crt");
		try (ServerSocket socket = new ServerSocket(0)) {
			tlsPort = socket.getLocalPort();
		}
		redis = RedisServer.builder()
			.config("tls-port", String.valueOf(tlsPort))
			.config("tls-cert-file", certificates.resolve("server.crt").toString())
			.config("tls-key-file", certificates.resolve("server.key").toString())
			.config("tls-ca-cert-file", certificates.resolve("ca.crt").toString())
			.config("tls-auth-clients", "no")
			.start();
	}

	@AfterAll
	static void stop() {
		if (redis != null) {
			redis.close();
		}
	}

	private static boolean openssl(String... args) throws IOException, InterruptedException {
		List<String> command = new java.util.ArrayList<>(List.of("openssl"));
		command.addAll(List.of(args));
		Process process;
		try {
			process = new ProcessBuilder(command).directory(certificates.toFile()).redirectErrorStream(true).start();
		}
		catch (IOException ex) {
			return false;
		}
		String output = new String(process.getInputStream().readAllBytes());
		if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
			throw new IllegalStateException("openssl " + String.join(" ", args) + " failed: " + output);
		}
		return true;
	}

	private static LettuceConnectionFactory connect(Path trustedCa) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration("127.0.0.1", tlsPort);
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.useSsl()
			.and()
			.clientOptions(ClientOptions.builder()
				.sslOptions(SslOptions.builder().trustManager(trustedCa.toFile()).build())
				.build())
			.commandTimeout(Duration.ofSeconds(5))
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration, client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	@Test
	void worksOverTlsWithATrustedCertificate() {
		LettuceConnectionFactory factory = connect(certificates.resolve("ca.crt"));
		try (DelayQueueEngine engine = DelayQueueEngine.builder(factory).build()) {
			java.util.concurrent.BlockingQueue<String> received = new java.util.concurrent.LinkedBlockingQueue<>();
			var container = engine
				.listenerContainer("tls", "g", String.class, (payload, context) -> received.add(payload))
				.build();
			container.start();
			try {
				engine.template().send("tls", "over tls", Duration.ofMillis(200));
				assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("over tls");
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				container.stop();
			}
		}
		finally {
			factory.destroy();
		}
	}

	@Test
	void failsClosedWithTheReasonWhenTheCertificateIsNotTrusted() {
		LettuceConnectionFactory factory = connect(certificates.resolve("other-ca.crt"));
		try (DelayQueueEngine engine = DelayQueueEngine.builder(factory).build()) {
			assertThatExceptionOfType(DelayQueueException.class)
				.isThrownBy(() -> engine.template().send("untrusted", "x", Duration.ZERO))
				.withMessageStartingWith("Cannot send to queue(s) untrusted: ")
				.withMessageContaining("certification path");
		}
		finally {
			factory.destroy();
		}
		assertThat(redis.execute("EXISTS", "dq:{untrusted}:stream")).as("nothing reached Redis").isEqualTo(0L);
	}

}
