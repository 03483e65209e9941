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

package io.github.delayqueue.dashboard.app;

import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.boot.test.EmbeddedRedis;
import io.github.delayqueue.core.DelayQueueEngine;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's defaults against real Redis: read-only (every write 405, even with a
 * valid CSRF token), the queues limited by {@code delayqueue.dashboard.queues} (others
 * 404 and not listed), the page served with its Content Security Policy, and bad input
 * answered 400 with the reason.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "delayqueue.dashboard.queues=shown-*")
@EmbeddedRedis
class ReadOnlyDashboardTests {

	private final HttpClient http = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();

	@Value("${local.server.port}")
	private int port;

	@Autowired
	private DelayQueueEngine engine;

	@Autowired
	private RedisConnectionFactory connectionFactory;

	@Test
	void writesAnswer405WhileReadsAreLimitedToTheShownQueues() throws Exception {
		this.engine.template().send("shown-orders", "a", Duration.ofHours(1));
		this.engine.template().send("hidden-payroll", "b", Duration.ofHours(1));
		HttpResponse<String> queues = get("/delayqueue/api/queues");
		assertThat(queues.statusCode()).isEqualTo(200);
		assertThat(queues.body()).contains("\"shown-orders\"").doesNotContain("hidden-payroll");
		assertThat(get("/delayqueue/api/queues/hidden-payroll").statusCode()).isEqualTo(404);
		assertThat(get("/delayqueue/api/queues/hidden-payroll/scheduled").statusCode()).isEqualTo(404);
		assertThat(get("/delayqueue/api/queues/shown-orders/scheduled").body()).contains("\"payload\":\"a\"");

		String session = get("/delayqueue/api/session").body();
		assertThat(session).contains("\"readOnly\":true", "\"canWrite\":false");
		Matcher token = Pattern.compile("\"csrfToken\":\"([^\"]+)\"").matcher(session);
		assertThat(token.find()).isTrue();
		HttpResponse<String> write = post("/delayqueue/api/queues/shown-orders/pause", token.group(1));
		assertThat(write.statusCode()).isEqualTo(405);
		assertThat(write.body()).contains("read-only");
		assertThat(this.engine.admin().controls("shown-orders").paused()).isFalse();
		assertThat(post("/delayqueue/api/queues/shown-orders/schedules/any/trigger", token.group(1)).statusCode())
			.isEqualTo(405);
		assertThat(post("/delayqueue/api/queues/hidden-payroll/dead-letters/purge", token.group(1)).statusCode())
			.isEqualTo(404);
		// the writes over many: refused alike, and nothing cancelled
		String id = this.engine.admin().scheduled("shown-orders", null, 1).get(0).id();
		assertThat(post("/delayqueue/api/queues/shown-orders/messages/selected/cancel?ids=" + id, token.group(1))
			.statusCode()).isEqualTo(405);
		assertThat(post("/delayqueue/api/queues/shown-orders/dead-letters/by-error/delete?errorClass=x", token.group(1))
			.statusCode()).isEqualTo(405);
		assertThat(this.engine.admin().scheduledMessage("shown-orders", id)).isPresent();
		// and the reads over many: limited to the shown queues
		assertThat(get("/delayqueue/api/queues/hidden-payroll/dead-letters/errors").statusCode()).isEqualTo(404);
		assertThat(get("/delayqueue/api/queues/hidden-payroll/scheduled/position?at=0").statusCode()).isEqualTo(404);
		assertThat(get("/delayqueue/api/queues/shown-orders/scheduled/position?at=0").body()).contains("\"before\":0",
				"\"total\":1");
	}

	@Test
	void thePageComesWithItsPolicyAndBadInputIsAnswered400() throws Exception {
		this.engine.template().send("shown-bad-input", "a", Duration.ofHours(1));
		HttpResponse<String> page = get("/delayqueue/");
		assertThat(page.statusCode()).isEqualTo(200);
		assertThat(page.headers().firstValue("Content-Security-Policy").orElse("")).contains("script-src 'self'");
		assertThat(get("/delayqueue/assets/dashboard.js").statusCode()).isEqualTo(200);
		assertThat(get("/delayqueue/assets/..%2Fstatic%2Findex.html").statusCode()).isIn(400, 404);
		HttpResponse<String> badPage = get("/delayqueue/api/queues/shown-bad-input/scheduled?count=5000");
		assertThat(badPage.statusCode()).isEqualTo(400);
		assertThat(badPage.body()).contains("Page size must be from 1 to 1000");
		assertThat(get("/delayqueue/api/queues/shown-bad-input/history?span=year").body())
			.contains("Span must be 'hour', 'day' or 'week'");
		assertThat(get("/delayqueue/api/queues/shown-bad-input/in-flight?order=age").body())
			.contains("Order must be 'idle' or 'deliveries'");
		assertThat(get("/delayqueue/api/queues/shown-bad-input/history?span=day").body()).contains("\"span\":\"DAY\"")
			.contains("\"filtered\":0");
	}

	/**
	 * What one refresh of the live view costs Redis: the overview reads every visible
	 * queue once, a queue's page its detail and the first page of its tab. Measured as
	 * the growth of {@code total_commands_processed} (commands inside scripts included),
	 * the least of three tries, less the {@code INFO} that reads it.
	 */
	@Test
	void oneLiveRefreshCostsABoundedNumberOfRedisCommands() throws Exception {
		for (int i = 0; i < 100; i++) {
			this.engine.template().send("shown-live", "m" + i, Duration.ofHours(1));
		}
		long overview = Long.MAX_VALUE;
		long queuePage = Long.MAX_VALUE;
		for (int i = 0; i < 3; i++) {
			long before = commandsProcessed();
			assertThat(get("/delayqueue/api/queues").statusCode()).isEqualTo(200);
			overview = Math.min(overview, commandsProcessed() - before - 1);
			before = commandsProcessed();
			assertThat(get("/delayqueue/api/queues/shown-live").statusCode()).isEqualTo(200);
			assertThat(get("/delayqueue/api/queues/shown-live/scheduled?count=50").statusCode()).isEqualTo(200);
			queuePage = Math.min(queuePage, commandsProcessed() - before - 1);
		}
		int visible = this.engine.admin()
			.queues()
			.stream()
			.filter((queue) -> queue.startsWith("shown-"))
			.toList()
			.size();
		System.out.println("One live refresh: overview " + overview + " Redis commands for " + visible
				+ " visible queue(s); a queue's page " + queuePage + " (its detail and 50 scheduled messages)");
		assertThat(queuePage).isPositive().isLessThanOrEqualTo(60);
		assertThat(overview).isPositive().isLessThanOrEqualTo(40L * visible);
	}

	private long commandsProcessed() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			return Long.parseLong(connection.serverCommands().info("stats").getProperty("total_commands_processed"));
		}
	}

	private HttpResponse<String> get(String path) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path)).build(),
				HttpResponse.BodyHandlers.ofString());
	}

	private HttpResponse<String> post(String path, String csrfToken) throws Exception {
		return this.http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.header("X-DelayQueue-Dashboard", "1")
			.header("X-CSRF-TOKEN", csrfToken)
			.POST(HttpRequest.BodyPublishers.noBody())
			.build(), HttpResponse.BodyHandlers.ofString());
	}

	@SpringBootApplication
	static class DashboardApplication {

		@Bean
		SecurityFilterChain openReads(HttpSecurity http) throws Exception {
			http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll());
			return http.build();
		}

	}

}
