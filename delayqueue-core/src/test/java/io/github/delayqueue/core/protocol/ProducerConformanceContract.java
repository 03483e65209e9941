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

package io.github.delayqueue.core.protocol;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueEngineBuilder;
import io.github.delayqueue.core.ScheduledMessage;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.core.annotation.EnableDelayListeners;
import io.github.delayqueue.core.internal.redis.Envelope;
import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The conformance suite of producer protocol v1 ({@code docs/protocol.md}): each client
 * of another language ({@code clients/python}, installed with pip; {@code clients/node})
 * runs in a subprocess and sends messages of every kind; the Java side reads the
 * scheduled ones back from Redis and a {@code @DelayListener} receives the others, each
 * exactly as sent.
 */
abstract class ProducerConformanceContract {

	private final RedisConnectionFactory connectionFactory;

	private AnnotationConfigApplicationContext context;

	ProducerConformanceContract(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/** The driver's arguments that reach this Redis: {@code --port N [--cluster]}. */
	abstract List<String> redis();

	/** The partition count the Java engines declare for the queue. */
	abstract int partitions();

	/**
	 * The Redis servers that hold the queue (all of them are paused for a hung Redis).
	 */
	abstract List<RedisServer> servers();

	@AfterEach
	void close() {
		if (this.context != null) {
			this.context.close();
		}
	}

	private DelayQueueEngine start(String queue) {
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("test", Map.of("conformance.queue", queue)));
		context.registerBean(DelayQueueEngine.class, () -> {
			DelayQueueEngineBuilder builder = DelayQueueEngine.builder(this.connectionFactory);
			if (partitions() > 1) {
				builder.partitions(queue, partitions());
			}
			return builder.build();
		});
		context.register(Enabled.class, Receiver.class);
		this.context = context;
		context.refresh();
		return context.getBean(DelayQueueEngine.class);
	}

	private JsonNode run(Driver driver, String phase, String queue) throws Exception {
		List<String> arguments = new ArrayList<>(redis());
		arguments.addAll(List.of("--phase", phase, queue));
		return (driver == Driver.PYTHON) ? PythonClient.conformance(arguments) : NodeClient.conformance(arguments);
	}

	/** The clients, each with its conformance driver. */
	enum Driver {

		PYTHON, NODE;

		String queue(String name) {
			return name + "-" + name().toLowerCase(java.util.Locale.ROOT);
		}

	}

	@ParameterizedTest
	@EnumSource(Driver.class)
	void everyKindOfMessageIsScheduledExactlyAsTheJavaTemplateWouldWriteIt(Driver driver) throws Exception {
		String queue = driver.queue("conformance-scheduled");
		DelayQueueEngine engine = start(queue);
		JsonNode out = run(driver, "schedule", queue);
		assertThat(out.get("partitions").asInt()).isEqualTo(partitions());
		List<String> ids = new ArrayList<>();
		for (JsonNode sent : out.get("scheduled")) {
			String id = sent.get("id").asString();
			ids.add(id);
			ScheduledMessage scheduled = engine.admin().scheduledMessage(queue, id).orElseThrow();
			byte[] payload = HexFormat.of().parseHex(sent.get("payload").asString());
			Map<String, String> headers = headers(sent);
			String key = sent.get("key").isNull() ? null : sent.get("key").asString();
			Instant due = Instant.ofEpochMilli(sent.get("due").asLong());
			assertThat(scheduled.payload()).as(id).isEqualTo(payload);
			assertThat(scheduled.headers()).as(id).containsExactlyEntriesOf(headers);
			assertThat(scheduled.key()).as(id).isEqualTo(key);
			assertThat(scheduled.priority()).as(id).isEqualTo(sent.get("priority").asInt());
			assertThat(scheduled.maxAttempts()).as(id).isEqualTo(sent.get("max_attempts").asInt());
			assertThat(scheduled.dueTime()).as(id).isEqualTo(due);
			long expire = sent.get("expire_ms").asLong();
			assertThat(scheduled.expiresAt()).as(id).isEqualTo((expire > 0) ? due.plusMillis(expire) : null);
			// the partition Java's partitioner picks for its key (or id)
			if (partitions() > 1) {
				assertThat(scheduled.partition()).as(id)
					.isEqualTo(io.github.delayqueue.core.Partitioner.CRC32.partition((key != null) ? key : id,
							partitions()));
			}
			// byte for byte the envelope the Java template writes
			assertThat(HexFormat.of().parseHex(sent.get("envelope").asString())).as(id)
				.isEqualTo(new Envelope(headers, sent.get("max_attempts").asInt(), expire, key, payload,
						sent.get("priority").asInt())
					.encode());
		}
		assertThat(ids).contains("plain", "binary", "empty", "headers", "keyed", "priority", "expiring", "attempts",
				"everything", "\u00fcnicode-id", "at-time", "replaced-at");
		JsonNode statuses = out.get("statuses");
		assertThat(statuses.get("first").asString()).isEqualTo("SCHEDULED");
		assertThat(statuses.get("duplicate").asString()).isEqualTo("DUPLICATE");
		assertThat(statuses.get("duplicate_due").asLong()).isEqualTo(statuses.get("first_due").asLong());
		assertThat(statuses.get("replacement").asString()).isEqualTo("REPLACED");
		assertThat(out.get("bulk").get("scheduled").asInt()).isEqualTo(1200);
		assertThat(engine.admin().scheduledMessage(queue, "bulk-1199").orElseThrow().payload())
			.isEqualTo("bulk-1199".getBytes());
		// 12 + 1,200 scheduled: nothing more, nothing from the refused calls
		assertThat(engine.admin().stats(queue).scheduled()).isEqualTo(ids.size() + 1200);
		assertThat(engine.admin().scheduledMessage(queue, "never-written")).isEmpty();
		JsonNode errors = out.get("errors");
		Map<String, String> expected = new LinkedHashMap<>();
		boolean python = driver == Driver.PYTHON;
		expected.put("queue", "Queue name 'bad queue!' must contain only");
		expected.put("id", "Message id must not be " + (python ? "None" : "null") + " or empty");
		expected.put("reserved_id", "reserved for the messages of recurring schedules");
		// C1 controls too, as the Java template refuses them (Character.isISOControl)
		expected.put("c1_id", "Message id 'a\\u0085b' must not contain control characters");
		expected.put("priority", "Priority must be from 0 to 9, but was 10");
		expected.put("expire", "Expire-after must be from 1 ms to 3650 days");
		expected.put("attempts", "Max attempts must be from 1 to 2147483647, but was 0");
		expected.put("both_times", "Give a delay or a time (at), not both");
		expected.put("naive_time",
				python ? "has no time zone" : "must be a Date or epoch milliseconds, but was string");
		expected.put("far_time", "Delivery time must be at most 9999-12-31T23:59:59.999Z");
		expected.put("payload", "over the limit of 1048576 bytes");
		expected.put("header", "Header 'n' must have a str");
		expected.put("replace_without_id", "replace needs an id");
		expected.put("bulk_one_bad", "Priority must be from 0 to 9, but was -1");
		expected.put("payload_type", python ? "Payload must be bytes or str" : "Payload must be a Buffer");
		expected.put("delay_type", python ? "A delay must be a timedelta, but was int" : "A delay must be a number");
		expected.put("attempts_range", "Max attempts must be from 1 to 2147483647, but was 2147483648");
		expected.put("priority_type", python ? "Priority must be an int from 0 to 9, but was bool (True)"
				: "Priority must be an integer from 0 to 9, but was boolean (true)");
		expected.put("headers_type",
				python ? "Headers must be a dict of str to str" : "Headers must be a plain object");
		expected.forEach((name, message) -> assertThat(errors.get(name).asString()).as(name).contains(message));
		assertThat(errors.properties()).hasSize(expected.size());
	}

	@ParameterizedTest
	@EnumSource(Driver.class)
	void aDelayListenerReceivesEachMessageAsSentAtItsDueTimeAndNeverEarly(Driver driver) throws Exception {
		String queue = driver.queue("conformance-delivered");
		start(queue);
		Receiver receiver = this.context.getBean(Receiver.class);
		JsonNode out = run(driver, "deliver", queue);
		assertThat(out.get("cancel").get(0).asBoolean()).isTrue();
		assertThat(out.get("cancel").get(1).asBoolean()).isFalse();
		assertThat(out.get("reschedule").get(0).asBoolean()).isTrue();
		assertThat(out.get("reschedule").get(1).asBoolean()).isFalse();
		Map<String, JsonNode> expected = new LinkedHashMap<>();
		out.get("expected").forEach((sent) -> expected.put(sent.get("id").asString(), sent));
		assertThat(expected).hasSize(72);
		await().atMost(Duration.ofSeconds(30)).until(() -> receiver.received.keySet().containsAll(expected.keySet()));
		// what must not come has had its time
		Thread.sleep(2000);
		for (String absent : List.of("cancelled")) {
			assertThat(receiver.received).doesNotContainKey(absent);
		}
		assertThat(receiver.received.keySet()).containsExactlyInAnyOrderElementsOf(expected.keySet());
		expected.forEach((id, sent) -> {
			List<Received> deliveries = receiver.received.get(id);
			assertThat(deliveries).as(id).hasSize(1);
			Received received = deliveries.get(0);
			assertThat(received.payload()).as(id).isEqualTo(HexFormat.of().parseHex(sent.get("payload").asString()));
			assertThat(received.context().headers()).as(id).containsExactlyEntriesOf(headers(sent));
			Instant due = Instant.ofEpochMilli(sent.get("due").asLong());
			assertThat(received.context().dueTime()).as(id).isEqualTo(due);
			assertThat(received.at()).as(id + " never early").isAfterOrEqualTo(due);
		});
		// each key's messages in their order
		for (String key : List.of("alpha", "beta", "gamma")) {
			List<String> order = receiver.order.stream().filter((id) -> id.startsWith(key + "-")).toList();
			assertThat(order).as(key)
				.containsExactly(
						java.util.stream.IntStream.range(0, 10).mapToObj((i) -> key + "-" + i).toArray(String[]::new));
		}
	}

	@ParameterizedTest
	@EnumSource(Driver.class)
	void aQueueOfAnotherProtocolVersionIsRefusedByTheClientAndByTheEngine(Driver driver) throws Exception {
		String queue = driver.queue("conformance-v2");
		StringRedisTemplate redis = new StringRedisTemplate(this.connectionFactory);
		redis.opsForHash().put("dq:{" + queue + "}:meta", "protocol", "2");
		JsonNode out = run(driver, "version", queue);
		String refused = "Queue '" + queue + "' speaks producer protocol 2; this client speaks 1: upgrade the client "
				+ "(docs/protocol.md)";
		assertThat(out.get("refused").asString()).isEqualTo(refused);
		// cancel and reschedule read the queue's layout first, and are refused the same
		// way
		assertThat(out.get("cancel_refused").asString()).isEqualTo(refused);
		assertThat(out.get("reschedule_refused").asString()).isEqualTo(refused);
		DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory).build();
		try {
			assertThatThrownBy(() -> engine.template().send(queue, "x", Duration.ZERO)).hasStackTraceContaining(
					"DQPROTOCOL queue dq:{" + queue + "}:meta speaks producer protocol 2, and this engine speaks 1");
			assertThatThrownBy(() -> engine.admin().stats(queue)).hasStackTraceContaining("DQPROTOCOL");
			assertThat(redis.hasKey("dq:{" + queue + "}:stream")).isFalse();
			assertThat(redis.hasKey("dq:{" + queue + "}:delayed")).isFalse();
		}
		finally {
			engine.close();
		}
	}

	@ParameterizedTest
	@EnumSource(Driver.class)
	void aClientWhoseLayoutWentStaleSendsToTheNewPartitionsOnceTheOldAreRetired(Driver driver) throws Exception {
		String queue = driver.queue("conformance-retired");
		DelayQueueEngine before = DelayQueueEngine.builder(this.connectionFactory).partitions(queue, 3).build();
		DelayQueueEngine after = null;
		try {
			// declares 3 partitions in Redis
			assertThat(before.template().cancel(queue, "nothing")).isFalse();
			List<String> arguments = new ArrayList<>(redis());
			arguments.addAll(List.of("--phase", "retired", queue));
			Process process = (driver == Driver.PYTHON) ? PythonClient.startConformance(arguments)
					: NodeClient.startConformance(arguments);
			java.io.BufferedReader out = new java.io.BufferedReader(
					new java.io.InputStreamReader(process.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
			assertThat(out.readLine()).isEqualTo("ready");
			// the client read 3; the count goes to 2 and the old partitions 1 and 2
			// retire
			before.admin().changePartitions(queue, 2);
			assertThat(before.admin().finishPartitionChange(queue).partitions()).isEqualTo(2);
			process.getOutputStream().write("go\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
			process.getOutputStream().close();
			String report = out.lines().collect(java.util.stream.Collectors.joining("\n"));
			assertThat(process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
			assertThat(process.exitValue()).as("the driver's exit (its errors are in the test output)").isZero();
			JsonNode document = tools.jackson.databind.json.JsonMapper.builder().build().readTree(report);
			assertThat(document.get("partitions").asInt()).isEqualTo(3);
			assertThat(document.get("partitions_after").asInt()).isEqualTo(2);
			assertThat(document.get("sent")).hasSize(30);
			document.get("sent").forEach((sent) -> assertThat(sent.get("status").asString()).isEqualTo("SCHEDULED"));
			after = DelayQueueEngine.builder(this.connectionFactory).partitions(queue, 2).build();
			for (int i = 0; i < 30; i++) {
				ScheduledMessage scheduled = after.admin().scheduledMessage(queue, "after-" + i).orElseThrow();
				// by the stale layout, partition 0 (the same in both layouts: taken, as
				// from a
				// Java engine declaring the old count); partitions 1 and 2 were retired:
				// the
				// client read the count again and sent those by the new one
				int stale = io.github.delayqueue.core.Partitioner.CRC32.partition("key-" + i, 3);
				assertThat(scheduled.partition()).as("after-" + i)
					.isEqualTo((stale == 0) ? 0 : io.github.delayqueue.core.Partitioner.CRC32.partition("key-" + i, 2));
				assertThat(scheduled.payload())
					.isEqualTo(("after-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8));
			}
			assertThat(after.admin().stats(queue).scheduled()).isEqualTo(30);
		}
		finally {
			before.close();
			if (after != null) {
				after.close();
			}
		}
	}

	@ParameterizedTest
	@EnumSource(Driver.class)
	void aLoneSurrogateInAnyStringIsRefusedNamingTheInputBeforeAnythingIsWritten(Driver driver) throws Exception {
		String queue = driver.queue("conformance-surrogates");
		DelayQueueEngine engine = start(queue);
		Receiver receiver = this.context.getBean(Receiver.class);
		JsonNode out = run(driver, "surrogates", queue);
		boolean python = driver == Driver.PYTHON;
		String lone = python ? " must be valid text: it has a lone surrogate"
				: " must be valid UTF-16: it has a lone surrogate";
		Map<String, String> expected = new LinkedHashMap<>();
		expected.put("id", "Message id 'a\\ud800b'" + lone + " (U+D800) at index 1, which UTF-8 cannot encode");
		// two ids that UTF-8 would make one (c, U+FFFD, x)
		expected.put("id_high", "Message id 'c\\ud800x'" + lone + " (U+D800) at index 1");
		expected.put("id_low", "Message id 'c\\udc00x'" + lone + " (U+DC00) at index 1");
		expected.put("key", "Message key 'k\\udfff'" + lone + " (U+DFFF) at index 1");
		expected.put("header_value", "Header 'tenant' value '\\udc00'" + lone + " (U+DC00) at index 0");
		expected.put("header_name", "Header name 'a\\ud800'" + lone + " (U+D800) at index 1");
		expected.put("payload", (python ? "Payload (a str)" : "Payload (a string)") + lone + " (U+D83D) at index 5");
		expected.put("bulk", "Message id '\\udc00'" + lone + " (U+DC00) at index 0");
		expected.put("cancel_id", "Message id 'c\\ud800x'" + lone + " (U+D800) at index 1");
		expected.put("cancel_key", "Message key '\\ud800'" + lone + " (U+D800) at index 0");
		expected.put("reschedule_id", "Message id 'c\\udc00x'" + lone + " (U+DC00) at index 1");
		expected.put("reschedule_key", "Message key 'k\\udc00'" + lone + " (U+DC00) at index 1");
		expected.put("queue", "Queue name 'q\\ud800' must contain only letters, digits");
		expected.put("fair_share", "Queue name 'q\\udc00' must contain only letters, digits");
		assertRefusedAndNothingWritten(engine, receiver, queue, out, expected);
	}

	@ParameterizedTest
	@EnumSource(Driver.class)
	void aValueOfTheWrongTypeIsRefusedNamingTheTypeExpectedAndTheTypeGiven(Driver driver) throws Exception {
		String queue = driver.queue("conformance-types");
		DelayQueueEngine engine = start(queue);
		Receiver receiver = this.context.getBean(Receiver.class);
		JsonNode out = run(driver, "types", queue);
		Map<String, String> expected = new LinkedHashMap<>();
		if (driver == Driver.PYTHON) {
			expected.put("id", "Message id must be a str, but was int (123)");
			expected.put("key", "Message key must be a str, but was bytes (b'k')");
			expected.put("queue", "Queue name must be a str, but was int (5)");
			expected.put("cancel_id", "Message id must be a str, but was int (123)");
			expected.put("cancel_key", "Message key must be a str, but was int (5)");
			expected.put("reschedule_key", "Message key must be a str, but was int (5)");
			expected.put("replace", "replace must be True or False, but was str ('false')");
			expected.put("priority", "Priority must be an int from 0 to 9, but was str ('5')");
			expected.put("max_attempts", "Max attempts must be an int from 1 to 2147483647, but was str ('3')");
			expected.put("fair_share", "fair_share must be a collection of queue names, but was str ('orders')");
			expected.put("header_value", "Header 'n' must have a str value, but was bytes (b'1')");
			expected.put("header_name", "Header name must be a str, but was int (1)");
		}
		else {
			expected.put("id", "Message id must be a string, but was number (123)");
			expected.put("key", "Message key must be a string, but was a Buffer");
			expected.put("queue", "Queue name must be a string, but was number (5)");
			expected.put("cancel_id", "Message id must be a string, but was number (123)");
			expected.put("cancel_key", "Message key must be a string, but was number (5)");
			expected.put("reschedule_key", "Message key must be a string, but was number (5)");
			expected.put("replace", "replace must be true or false, but was string ('false')");
			expected.put("priority", "Priority must be an integer from 0 to 9, but was string ('5')");
			expected.put("max_attempts", "Max attempts must be an integer from 1 to 2147483647, but was string ('3')");
			expected.put("fair_share",
					"fairShare must be an array (or another iterable) of queue names, but was string ('orders')");
			expected.put("header_value", "Header 'n' must have a string value, but was a Buffer");
			expected.put("unknown_option", "Send options: unknown option 'delay' (known: queue, payload, delayMs, at");
		}
		assertRefusedAndNothingWritten(engine, receiver, queue, out, expected);
	}

	private static void assertRefusedAndNothingWritten(DelayQueueEngine engine, Receiver receiver, String queue,
			JsonNode out, Map<String, String> expected) throws InterruptedException {
		JsonNode errors = out.get("errors");
		expected.forEach(
				(name, message) -> assertThat(errors.get(name).isNull() ? null : errors.get(name).asString()).as(name)
					.contains(message));
		assertThat(errors.properties()).hasSize(expected.size());
		// the one good message after them, and nothing else: none scheduled, none due at
		// once
		assertThat(out.get("control").asString()).isEqualTo("SCHEDULED");
		assertThat(engine.admin().scheduledMessage(queue, "control")).isPresent();
		assertThat(engine.admin().stats(queue).scheduled()).isEqualTo(1);
		Thread.sleep(1000);
		assertThat(receiver.received).isEmpty();
	}

	@ParameterizedTest
	@EnumSource(Driver.class)
	void aSendToAHungRedisFailsWithinItsTimeoutSayingItMayHaveBeenAppliedAndItsRetrySendsItOnce(Driver driver)
			throws Exception {
		sendToAHungRedis(driver, "conformance-hung", 400);
	}

	/**
	 * Pauses every Redis server (SIGSTOP) while the client sends one message, continues
	 * them, and has the client send it again with the same id.
	 * @param driver the client
	 * @param name the queue's name
	 * @param timeoutMs the producer's operation timeout, null for its default (2 s)
	 */
	void sendToAHungRedis(Driver driver, String name, Integer timeoutMs) throws Exception {
		String queue = driver.queue(name);
		start(queue);
		Receiver receiver = this.context.getBean(Receiver.class);
		List<String> arguments = new ArrayList<>(redis());
		if (timeoutMs != null) {
			arguments.addAll(List.of("--timeout-ms", timeoutMs.toString()));
		}
		arguments.addAll(List.of("--phase", "timeout", queue));
		Process process = (driver == Driver.PYTHON) ? PythonClient.startConformance(arguments)
				: NodeClient.startConformance(arguments);
		java.io.BufferedReader out = new java.io.BufferedReader(
				new java.io.InputStreamReader(process.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
		java.io.OutputStream in = process.getOutputStream();
		String waited;
		try {
			assertThat(out.readLine()).isEqualTo("ready");
			List<RedisServer> hung = servers();
			hung.forEach(RedisServer::pause);
			try {
				in.write("go\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
				in.flush();
				// a client without a bound would wait as long as Redis is hung: 5 s more
				// at most here
				java.util.concurrent.CompletableFuture<String> line = java.util.concurrent.CompletableFuture
					.supplyAsync(() -> {
						try {
							return out.readLine();
						}
						catch (java.io.IOException ex) {
							throw new java.io.UncheckedIOException(ex);
						}
					});
				try {
					waited = line.get(((timeoutMs != null) ? timeoutMs : 2000) + 5000,
							java.util.concurrent.TimeUnit.MILLISECONDS);
				}
				catch (java.util.concurrent.TimeoutException ex) {
					waited = "the send still waited for the hung Redis after 5 s past its timeout";
				}
			}
			finally {
				hung.forEach(RedisServer::resume);
			}
			assertThat(waited).isEqualTo("waited");
			in.write("resumed\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
		}
		finally {
			in.close();
			if (!process.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
				process.destroyForcibly();
			}
		}
		String report = out.lines().collect(java.util.stream.Collectors.joining("\n"));
		assertThat(process.exitValue()).as("the driver's exit (its errors are in the test output)").isZero();
		JsonNode document = tools.jackson.databind.json.JsonMapper.builder().build().readTree(report);
		long timeout = (timeoutMs != null) ? timeoutMs : 2000;
		assertThat(document.get("timeout_ms").asLong()).isEqualTo(timeout);
		assertThat(document.has("first")).as("the send to a hung Redis returned: " + document.get("first")).isFalse();
		JsonNode error = document.get("error");
		assertThat(error.get("type").asString()).isEqualTo("OperationTimeoutError");
		assertThat(error.get("message").asString()).contains("Cannot send to queue '" + queue + "'",
				"did not answer within " + timeout + " ms", "may have been applied", "'timed-out'",
				"retry with the same message id");
		assertThat(error.get("ids").get(0).asString()).isEqualTo("timed-out");
		double waitedMs = document.get("waited_ms").asDouble();
		System.out.printf("%s, timeout %d ms: the send to a hung Redis failed after %.1f ms; its retry: %s%n", driver,
				timeout, waitedMs, document.get("retry").asString());
		assertThat(waitedMs).isBetween(timeout - 5.0, timeout + 1000.0);
		// applied while Redis was hung (DUPLICATE), or not (SCHEDULED): either way one
		// message
		assertThat(document.get("retry").asString()).isIn("DUPLICATE", "SCHEDULED");
		await().atMost(Duration.ofSeconds(30)).until(() -> receiver.received.containsKey("timed-out"));
		Thread.sleep(1000);
		assertThat(receiver.received).containsOnlyKeys("timed-out");
		assertThat(receiver.received.get("timed-out")).hasSize(1);
		assertThat(receiver.received.get("timed-out").get(0).payload()).isEqualTo("once".getBytes());
	}

	private static Map<String, String> headers(JsonNode sent) {
		Map<String, String> headers = new LinkedHashMap<>();
		sent.get("headers").properties().forEach((entry) -> headers.put(entry.getKey(), entry.getValue().asString()));
		return headers;
	}

	record Received(byte[] payload, DelayMessageContext context, Instant at) {
	}

	@EnableDelayListeners
	static class Enabled {

	}

	static class Receiver {

		final Map<String, List<Received>> received = new ConcurrentHashMap<>();

		final List<String> order = new CopyOnWriteArrayList<>();

		@DelayListener(queue = "${conformance.queue}", ordered = "true", concurrency = "4")
		void onMessage(byte[] payload, DelayMessageContext context) {
			Instant at = Instant.now();
			this.order.add(context.id());
			this.received.computeIfAbsent(context.id(), (id) -> new CopyOnWriteArrayList<>())
				.add(new Received(payload, context, at));
		}

	}

}
