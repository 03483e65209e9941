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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.delayqueue.boot.test.DelayQueueTestSupport;
import io.github.delayqueue.boot.test.EmbeddedRedis;
import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.ScheduleInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's story over HTTP, on a real Redis of its own: two orders are created, one
 * is paid in time, the other is cancelled by its timeout; the actuator shows it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = "management.endpoints.web.exposure.include=*")
@EmbeddedRedis
@ExtendWith(OutputCaptureExtension.class)
class OrderTimeoutApplicationTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private final HttpClient http = HttpClient.newHttpClient();

	@Value("${local.server.port}")
	private int port;

	@Autowired
	private DelayQueueTestSupport delayQueues;

	@Autowired
	private DelayQueueAdmin admin;

	@Autowired
	private DelayQueueEngine engine;

	@Test
	void cancelsTheUnpaidOrderAndKeepsThePaidOne(CapturedOutput output) throws Exception {
		JsonNode unpaid = call("POST", "/orders", "{\"item\":\"tea\",\"amount\":2.40}", 201);
		JsonNode paid = call("POST", "/orders", null, 201);
		assertThat(unpaid.get("status").asString()).isEqualTo("UNPAID");
		// the timeouts were written with the orders, to the outbox: the relay moves them
		// to Redis after the commit
		await().atMost(Duration.ofSeconds(10)).until(() -> this.engine.outbox().backlog().rows() == 0);
		assertThat(call("POST", "/orders/" + paid.get("id").asString() + "/pay", null, 200).get("status").asString())
			.isEqualTo("PAID");

		// the payment timeout (30 s) is not waited for: the unpaid order's message is
		// made
		// due now, and goes through Redis and the listener as it would in 30 s
		assertThat(this.delayQueues.scheduledIds("order-timeout")).hasSize(1);
		assertThat(this.delayQueues.fastForward("order-timeout")).isEqualTo(1);
		this.delayQueues.awaitHandled("order-timeout");
		assertThat(call("GET", "/orders/" + unpaid.get("id").asString(), null, 200).get("status").asString())
			.isEqualTo("CANCELLED");
		// one trace from the request that created the order to the listener that
		// cancelled
		// it: the trace context travelled in the message's headers
		String created = traceIdOfLine(output, "Order " + unpaid.get("id").asString() + " created");
		String cancelled = traceIdOfLine(output, "Order " + unpaid.get("id").asString() + " was not paid");
		assertThat(cancelled).isEqualTo(created);
		assertThat(call("GET", "/orders/" + paid.get("id").asString(), null, 200).get("status").asString())
			.isEqualTo("PAID");
		// paying too late is refused
		assertThat(call("POST", "/orders/" + unpaid.get("id").asString() + "/pay", null, 409).get("status").asString())
			.isEqualTo("CANCELLED");
		call("GET", "/orders/nope", null, 404);

		// two timeouts sent, the paid one's cancelled, one delivered and acknowledged
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(
					() -> assertThat(measurement("delayqueue.messages.acked", "queue:order-timeout")).isEqualTo(1.0));
		assertThat(measurement("delayqueue.messages.sent", "queue:order-timeout")).isEqualTo(2.0);
		assertThat(measurement("delayqueue.lateness", "queue:order-timeout")).isEqualTo(1.0);
		HttpResponse<String> prometheus = this.http.send(
				HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + "/actuator/prometheus")).build(),
				HttpResponse.BodyHandlers.ofString());
		assertThat(prometheus.statusCode()).isEqualTo(200);
		assertThat(prometheus.body()).contains("delayqueue_messages_acked_total{")
			.contains("delayqueue_lateness_seconds_count{")
			.contains("delayqueue_messages_scheduled{");
		// every metric the Grafana dashboard queries is in the scrape
		JsonNode dashboard = json.readTree(Files.readString(Path.of("../../docs/grafana/delayqueue-dashboard.json")));
		Set<String> queried = new TreeSet<>();
		for (JsonNode panel : dashboard.get("panels")) {
			for (JsonNode target : panel.get("targets")) {
				Matcher metric = Pattern.compile("delayqueue_[a-z_]+").matcher(target.get("expr").asString());
				while (metric.find()) {
					queried.add(metric.group());
				}
			}
		}
		assertThat(queried).hasSizeGreaterThan(10);
		for (String metric : queried) {
			assertThat(prometheus.body()).as("the scrape has %s", metric).containsPattern("(?m)^" + metric + "\\{");
		}
		JsonNode queues = call("GET", "/actuator/delayqueue", null, 200);
		JsonNode stats = queues.get("queues").get("order-timeout");
		assertThat(stats.get("scheduled").asLong()).isZero();
		assertThat(stats.get("dead").asLong()).isZero();
		assertThat(queues.get("listeners").get(0).get("running").asBoolean()).isTrue();
		JsonNode health = call("GET", "/actuator/health", null, 200);
		assertThat(health.get("status").asString()).isEqualTo("UP");
		assertThat(health.get("components").get("delayqueue").get("status").asString()).isEqualTo("UP");
		JsonNode delayqueue = call("GET", "/actuator/health/delayqueue", null, 200);
		assertThat(delayqueue.get("status").asString()).isEqualTo("UP");
	}

	@Test
	void theUnpaidOrdersReportIsARecurringScheduleInRedis(CapturedOutput output) {
		ScheduleInfo report = this.admin.schedules()
			.find(UnpaidOrdersReport.QUEUE, "unpaid-orders")
			.orElseThrow(() -> new AssertionError("the schedule of @Recurring is registered at start-up"));
		assertThat(report.interval()).isEqualTo(Duration.ofMinutes(1));
		assertThat(report.nextTick()).isNotNull();
		// not waiting a minute: one message of it, now
		String id = this.admin.schedules().trigger(UnpaidOrdersReport.QUEUE, "unpaid-orders").orElseThrow();
		await().atMost(Duration.ofSeconds(10)).until(() -> output.getOut().contains("orders unpaid at "));
		assertThat(output.getOut()).contains("(" + id + ")");
	}

	@Test
	void theEndpointsWriteOperationsNeedTheOpsAdminRole() throws Exception {
		String replay = "{\"action\":\"replay\"}";
		call("POST", "/actuator/delayqueue/order-timeout", replay, 401);
		call("POST", "/actuator/delayqueue/order-timeout", replay, 401, "ops:wrong");
		call("POST", "/actuator/delayqueue/order-timeout", replay, 403, "viewer:viewer-demo");
		call("DELETE", "/actuator/delayqueue/order-timeout", null, 403, "viewer:viewer-demo");
		assertThat(
				call("POST", "/actuator/delayqueue/order-timeout", replay, 200, "ops:ops-demo").get("replayed").asInt())
			.isZero();
		assertThat(
				call("DELETE", "/actuator/delayqueue/order-timeout", null, 200, "ops:ops-demo").get("purged").asLong())
			.isZero();
		// reads and the orders API stay open
		call("GET", "/actuator/delayqueue", null, 200);
		call("POST", "/orders", null, 201);
	}

	@Test
	void anInvalidOrderIsAnswered400NamingTheFieldsAndNothingIsCreated() throws Exception {
		int scheduled = this.delayQueues.scheduledIds("order-timeout").size();
		JsonNode empty = call("POST", "/orders", "{}", 400);
		assertThat(empty.get("error").asString()).contains("item must not be blank")
			.contains("amount must not be null");
		assertThat(empty.get("fields").properties()).extracting(Map.Entry::getKey)
			.containsExactlyInAnyOrder("item", "amount");
		assertThat(call("POST", "/orders", "{\"item\":\"tea\",\"amount\":-1}", 400).get("fields").has("amount"))
			.isTrue();
		assertThat(call("POST", "/orders", "{\"item\":\"" + "x".repeat(101) + "\",\"amount\":1}", 400).get("fields")
			.has("item")).isTrue();
		assertThat(call("POST", "/orders", "{\"item\":\"tea\",\"amount\":\"lots\"}", 400).get("error").asString())
			.startsWith("Unreadable order");
		assertThat(this.delayQueues.scheduledIds("order-timeout")).hasSize(scheduled);
		// a valid one still goes through
		call("POST", "/orders", "{\"item\":\"tea\",\"amount\":2.40}", 201);
	}

	@Test
	void theEndpointAnswersWhatItCannotServeWith400Or404AndTheReason() throws Exception {
		String ops = "ops:ops-demo";
		String queue = "/actuator/delayqueue/order-timeout";
		assertThat(call("POST", queue, "{\"action\":\"dance\"}", 400, ops).get("error").asString())
			.contains("Unknown action 'dance'");
		assertThat(call("POST", queue, "{\"action\":\"cancel\"}", 400, ops).get("error").asString())
			.contains("needs a messageId");
		assertThat(call("POST", queue, "{\"action\":\"replay\",\"entryId\":\"not-an-id\"}", 400, ops).get("error")
			.asString()).isNotEmpty();
		assertThat(call("DELETE", queue + "/1-0", null, 404, ops).get("error").asString())
			.contains("No dead letter '1-0' in queue 'order-timeout'");
		assertThat(call("POST", queue, "{\"action\":\"replay\",\"entryId\":\"1-0\"}", 404, ops).get("error").asString())
			.contains("No dead letter '1-0'");
		assertThat(call("GET", "/actuator/delayqueue/no-such-queue", null, 404).get("error").asString())
			.contains("Unknown queue 'no-such-queue'");
		call("DELETE", "/actuator/delayqueue/no-such-queue", null, 404, ops);
		assertThat(call("POST", queue, "{\"action\":\"finish-partition-change\"}", 409, ops).get("error").asString())
			.contains("has no change of its partition count in progress");
		// what can be served still is
		call("GET", queue, null, 200);
	}

	private static String traceIdOfLine(CapturedOutput output, String text) {
		String line = output.toString()
			.lines()
			.filter((candidate) -> candidate.contains(text))
			.findFirst()
			.orElseThrow(() -> new AssertionError("No log line with '" + text + "'"));
		Matcher traceId = Pattern.compile("\\b([0-9a-f]{32})\\b").matcher(line);
		assertThat(traceId.find()).as("a trace id in: %s", line).isTrue();
		return traceId.group(1);
	}

	private double measurement(String meter, String tag) throws Exception {
		JsonNode body = call("GET", "/actuator/metrics/" + meter + "?tag=" + tag, null, 200);
		// counters report COUNT; timers report COUNT first as well
		return body.get("measurements").get(0).get("value").asDouble();
	}

	private JsonNode call(String method, String path, String body, int expectedStatus) throws Exception {
		return call(method, path, body, expectedStatus, null);
	}

	private JsonNode call(String method, String path, String body, int expectedStatus, String user) throws Exception {
		HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
			.timeout(Duration.ofSeconds(10));
		if (user != null) {
			request.header("Authorization", "Basic " + java.util.Base64.getEncoder()
				.encodeToString(user.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
		}
		if (body != null) {
			request.header("Content-Type", "application/json");
		}
		request.method(method,
				(body != null) ? HttpRequest.BodyPublishers.ofString(body) : HttpRequest.BodyPublishers.noBody());
		HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
		assertThat(response.statusCode()).as("%s %s: %s", method, path, response.body()).isEqualTo(expectedStatus);
		boolean isJson = response.headers().firstValue("Content-Type").orElse("").contains("json");
		return (response.body().isEmpty() || !isJson) ? json.createObjectNode() : json.readTree(response.body());
	}

}
