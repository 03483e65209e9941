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

package io.github.delayqueue.samples.ordertimeout;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample as {@code spring-boot:process-aot} left it (the build's
 * {@code prepare-package} phase), started in AOT mode ({@code -Dspring.aot.enabled=true})
 * in a JVM of its own, walking the README's story: an unpaid order is cancelled after its
 * timeout, a paid one is kept, the endpoint and the dashboard answer. Runs in the
 * {@code integration-test} phase of {@code ./mvnw verify}.
 */
class OrderTimeoutAotIT {

	private static final JsonMapper json = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newHttpClient();

	private RedisServer redis;

	private Process application;

	private Path output;

	private int port;

	@AfterEach
	void stop() throws Exception {
		if (this.application != null) {
			this.application.destroy();
			if (!this.application.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
				this.application.destroyForcibly();
			}
		}
		if (this.redis != null) {
			this.redis.close();
		}
		if (this.output != null) {
			Files.deleteIfExists(this.output);
		}
	}

	@Test
	void theAotProcessedSampleRunsTheReadmeStory() throws Exception {
		assertThat(Path.of("target/spring-aot/main/sources")).as("spring-boot:process-aot ran").isDirectory();
		this.redis = RedisServer.start();
		this.port = freePort();
		this.output = Files.createTempFile("order-timeout-aot", ".log");
		List<String> command = new ArrayList<>(
				List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Dspring.aot.enabled=true",
						"-cp", applicationClassPath(), OrderTimeoutApplication.class.getName(),
						"--server.port=" + this.port, "--spring.data.redis.host=" + this.redis.host(),
						"--spring.data.redis.port=" + this.redis.port(), "--sample.payment-timeout=2s"));
		this.application = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(this.output.toFile())
			.start();
		await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() -> {
			assertThat(this.application.isAlive()).as("the application exited:\n%s", log()).isTrue();
			return log().contains("Started OrderTimeoutApplication");
		});
		assertThat(log()).as("started from the AOT-generated initializers").contains("AOT-processed");

		JsonNode unpaid = call("POST", "/orders", "{\"item\":\"tea\",\"amount\":2.40}", 201);
		JsonNode paid = call("POST", "/orders", null, 201);
		assertThat(call("POST", "/orders/" + paid.get("id").asString() + "/pay", null, 200).get("status").asString())
			.isEqualTo("PAID");
		await().atMost(Duration.ofSeconds(30))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> "CANCELLED"
				.equals(call("GET", "/orders/" + unpaid.get("id").asString(), null, 200).get("status").asString()));
		assertThat(call("GET", "/orders/" + paid.get("id").asString(), null, 200).get("status").asString())
			.isEqualTo("PAID");
		assertThat(log()).contains("Order " + unpaid.get("id").asString() + " was not paid");

		JsonNode endpoint = call("GET", "/actuator/delayqueue", null, 200);
		assertThat(endpoint.get("queues").has("order-timeout")).isTrue();
		assertThat(call("GET", "/actuator/health", null, 200).get("status").asString()).isEqualTo("UP");
		HttpResponse<String> page = get("/delayqueue/");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.body()).contains("<html");
		assertThat(get("/delayqueue/assets/dashboard.js").statusCode()).isEqualTo(200);
		assertThat(get("/delayqueue/assets/dashboard.css").statusCode()).isEqualTo(200);
		assertThat(log()).doesNotContain("ERROR");
	}

	/** The application's class path: the test's, without the test classes. */
	private static String applicationClassPath() {
		return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
			.filter((entry) -> !entry.endsWith("test-classes"))
			.collect(Collectors.joining(File.pathSeparator));
	}

	private String log() throws IOException {
		return Files.readString(this.output);
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(10))
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	private JsonNode call(String method, String path, String body, int expectedStatus) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(10));
		if (body != null) {
			request.header("Content-Type", "application/json");
		}
		request.method(method,
				(body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody());
		HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("%s %s: %s", method, path, response.body()).isEqualTo(expectedStatus);
		return json.readTree(response.body());
	}

	private static int freePort() throws IOException {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
	}

}
