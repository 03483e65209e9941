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

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import io.github.delayqueue.boot.test.EmbeddedRedis;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The delayqueue endpoint's write operations follow Spring Boot's endpoint access
 * control: with {@code management.endpoint.delayqueue.access=read-only} they do not
 * exist, even for the operator, while reads still answer.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "management.endpoint.delayqueue.access=read-only")
@EmbeddedRedis
class ReadOnlyEndpointTests {

	private final HttpClient http = HttpClient.newHttpClient();

	@Value("${local.server.port}")
	private int port;

	@Test
	void writeOperationsDoNotExistWhileReadsAnswer() throws Exception {
		assertThat(status("POST", "/actuator/delayqueue/order-timeout", "{\"action\":\"replay\"}")).isIn(404, 405);
		assertThat(status("DELETE", "/actuator/delayqueue/order-timeout", null)).isIn(404, 405);
		assertThat(status("GET", "/actuator/delayqueue", null)).isEqualTo(200);
	}

	private int status(String method, String path, String body) throws Exception {
		HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(10))
			.header("Content-Type", "application/json")
			.header("Authorization",
					"Basic " + Base64.getEncoder().encodeToString("ops:ops-demo".getBytes(StandardCharsets.UTF_8)))
			.method(method,
					(body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody())
			.build();
		return this.http.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
	}

}
