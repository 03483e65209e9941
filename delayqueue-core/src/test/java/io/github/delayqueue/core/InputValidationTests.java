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

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Invalid input is rejected with a clear {@link IllegalArgumentException} before anything
 * reaches Redis: after each rejection the server holds no key and has run no command but
 * the ones this test itself sends to inspect it.
 */
@RedisTest
class InputValidationTests {

	private static final String QUEUE = "valid-queue";

	private static final DelayMessageHandler<String> IGNORE = (payload, context) -> {
	};

	/** Commands the test sends itself to reset and inspect the server. */
	private static final Set<String> INSPECTION_COMMANDS = Set.of("info", "config|resetstat", "dbsize", "flushall");

	private final RedisServer redis;

	private final RedisConnectionFactory connectionFactory;

	private final DelayQueueEngine engine;

	InputValidationTests(RedisServer redis, RedisConnectionFactory connectionFactory) {
		this.redis = redis;
		this.connectionFactory = connectionFactory;
		this.engine = DelayQueueEngine.builder(connectionFactory).build();
	}

	@BeforeEach
	void emptyServer() {
		this.redis.execute("FLUSHALL");
		this.redis.execute("CONFIG", "RESETSTAT");
	}

	@AfterEach
	void closeEngine() {
		this.engine.close();
	}

	static Stream<Arguments> invalidNames() {
		return Stream.of(arguments(Named.of("braces", "{a}"), "may only contain"),
				arguments(Named.of("hash tag inside", "orders{x}"), "may only contain"),
				arguments(Named.of("space", "order timeout"), "may only contain"),
				arguments(Named.of("wildcard", "orders*"), "may only contain"),
				arguments(Named.of("NUL", "a\u0000b"), "may only contain"),
				arguments(Named.of("newline", "a\nb"), "may only contain"),
				arguments(Named.of("non-ASCII letter", "commandé"), "may only contain"),
				arguments(Named.of("lone surrogate", "q\uD800"), "may only contain"),
				arguments(Named.of("empty", ""), "must not be null or empty"),
				arguments(Named.of("null", null), "must not be null or empty"),
				arguments(Named.of("101 characters", "q".repeat(101)), "at most 100 characters, but is 101"),
				arguments(Named.of("10 KB", "q".repeat(10 * 1024)), "at most 100 characters, but is 10240"));
	}

	@ParameterizedTest
	@MethodSource("invalidNames")
	void rejectsInvalidQueueNamesEverywhere(String name, String problem) {
		List<ThrowingCallable> calls = List.of(() -> this.engine.template().send(name, "p", Duration.ZERO),
				() -> this.engine.template().send(name, "p", Instant.now()),
				() -> DelayMessage.builder("p").queue(name).build(), () -> this.engine.template().cancel(name, "id"),
				() -> this.engine.template().reschedule(name, "id", Duration.ofSeconds(1)),
				() -> this.engine.template().reschedule(name, "id", Instant.now()),
				() -> this.engine.admin().stats(name), () -> this.engine.admin().deadLetters(name, null, 10),
				() -> this.engine.admin().replay(name, "1-0"), () -> this.engine.admin().replayAll(name, null),
				() -> this.engine.admin().deleteDeadLetter(name, "1-0"),
				() -> this.engine.admin().purgeDeadLetters(name), () -> this.engine.register(name),
				() -> this.engine.admin().partitionOwners(name, "g"), () -> this.engine.admin().partitionLayout(name),
				() -> this.engine.admin().changePartitions(name, 2),
				() -> this.engine.admin().finishPartitionChange(name),
				() -> this.engine.listenerContainer(name, "g", String.class, IGNORE));
		for (ThrowingCallable call : calls) {
			assertClearRejection(call, "Queue name", problem, name);
		}
		assertNothingReachedRedis();
	}

	@ParameterizedTest
	@MethodSource("invalidNames")
	void rejectsInvalidGroupNames(String name, String problem) {
		assertClearRejection(() -> this.engine.listenerContainer(QUEUE, name, String.class, IGNORE), "Group name",
				problem, name);
		assertNothingReachedRedis();
	}

	@ParameterizedTest
	@MethodSource("invalidNames")
	void rejectsInvalidConsumerNamesAsConsumerNames(String name, String problem) {
		assertClearRejection(() -> this.engine.listenerContainer(QUEUE, "g", String.class, IGNORE).consumerName(name),
				"Consumer name", problem, name);
		assertNothingReachedRedis();
	}

	static Stream<Arguments> invalidMessageIds() {
		return Stream.of(arguments(Named.of("empty", ""), "must not be null or empty"),
				arguments(Named.of("newline", "order\n1"), "must not contain control characters"),
				arguments(Named.of("NUL", "\u0000"), "must not contain control characters"),
				arguments(Named.of("DEL", "order\u007f"), "must not contain control characters"),
				arguments(Named.of("C1 control", "order\u0085"), "must not contain control characters"),
				arguments(Named.of("lone high surrogate", "a\uD800b"), "lone surrogate at index 1"),
				arguments(Named.of("lone low surrogate", "a\uDC00b"), "lone surrogate at index 1"),
				arguments(Named.of("high surrogate at the end", "order\uD83D"), "lone surrogate at index 5"),
				arguments(Named.of("reversed pair", "\uDE00\uD83D"), "lone surrogate at index 0"),
				arguments(Named.of("257 ASCII bytes", "i".repeat(257)), "at most 256 bytes"),
				arguments(Named.of("258 UTF-8 bytes in 129 characters", "é".repeat(129)), "at most 256 bytes"),
				arguments(Named.of("10 KB", "i".repeat(10 * 1024)), "at most 256 bytes"));
	}

	@ParameterizedTest
	@MethodSource("invalidMessageIds")
	void rejectsInvalidMessageIds(String id, String problem) {
		assertClearRejection(() -> DelayMessage.builder("p").queue(QUEUE).id(id).build(), "Message id", problem, id);
		assertClearRejection(() -> this.engine.template().cancel(QUEUE, id), "Message id", problem, id);
		assertClearRejection(() -> this.engine.template().reschedule(QUEUE, id, Duration.ofSeconds(1)), "Message id",
				problem, id);
		assertClearRejection(() -> this.engine.template().reschedule(QUEUE, id, Instant.now()), "Message id", problem,
				id);
		assertNothingReachedRedis();
	}

	@Test
	void rejectsIdsThatUtf8WouldTurnIntoTheSameBytes() {
		// both would be sent as "a?b": two messages, one id in Redis
		for (String id : List.of("a\uD800b", "a\uDC00b")) {
			assertClearRejection(
					() -> this.engine.template().send(DelayMessage.builder("p").queue(QUEUE).id(id).build()),
					"Message id 'a\\u" + Integer.toHexString(id.charAt(1)) + "b' must be valid UTF-16",
					"lone surrogate at index 1");
		}
		assertNothingReachedRedis();
		String pair = "order-\uD83D\uDE00";
		assertThat(this.engine.template()
			.send(DelayMessage.builder("p").queue(QUEUE).id(pair).delay(Duration.ofHours(1)).build())
			.status()).as("a surrogate pair is a valid id").isEqualTo(SendResult.Status.SCHEDULED);
		assertThat(zscore(pair)).isNotNull();
		assertThat(this.engine.template().cancel(QUEUE, pair)).isTrue();
	}

	@Test
	void rejectsANullMessageIdWhereOneIsRequired() {
		assertClearRejection(() -> this.engine.template().cancel(QUEUE, null), "Message id",
				"must not be null or empty", null);
		assertClearRejection(() -> this.engine.template().reschedule(QUEUE, null, Duration.ZERO), "Message id",
				"must not be null or empty", null);
		assertNothingReachedRedis();
	}

	@Test
	void acceptsTheLongestValidNamesAndIds() {
		String queue = "q".repeat(100);
		String id = "é".repeat(128);
		SendResult result = this.engine.template()
			.send(DelayMessage.builder("p").queue(queue).id(id).delay(Duration.ofHours(1)).build());
		assertThat(result.status()).isEqualTo(SendResult.Status.SCHEDULED);
		assertThat(this.engine.template().cancel(queue, id)).isTrue();
		assertThat(this.engine.listenerContainer(queue, "g".repeat(100), String.class, IGNORE).build().group())
			.hasSize(100);
	}

	@Test
	void rejectsANullPayload() {
		assertClearRejection(() -> DelayMessage.builder(null), "Payload must not be null");
		assertClearRejection(() -> this.engine.template().send(QUEUE, null, Duration.ZERO), "Payload must not be null");
		assertClearRejection(() -> this.engine.template().send(QUEUE, null, Instant.now()), "Payload must not be null");
		assertNothingReachedRedis();
	}

	@Test
	void rejectsAPayloadTheCodecCannotEncode() {
		assertClearRejection(() -> this.engine.template().send(QUEUE, new SelfReferencing(), Duration.ZERO),
				"Cannot encode payload of type " + SelfReferencing.class.getName());
		assertNothingReachedRedis();
	}

	@Test
	void rejectsPayloadsOverTheDefaultLimitOfOneMebibyte() {
		assertClearRejection(() -> this.engine.template().send(QUEUE, new byte[1024 * 1024 + 1], Duration.ZERO),
				"Payload for queue '" + QUEUE + "'", "1048577 bytes", "over the limit of 1048576 bytes");
		assertClearRejection(() -> this.engine.template().send(QUEUE, "x".repeat(2 * 1024 * 1024), Duration.ZERO),
				"2097152 bytes", "over the limit of 1048576 bytes");
		assertNothingReachedRedis();
		assertThat(this.engine.template().send(QUEUE, new byte[1024 * 1024], Duration.ofHours(1)).status())
			.as("a payload of exactly the limit is accepted")
			.isEqualTo(SendResult.Status.SCHEDULED);
	}

	@Test
	void rejectsPayloadsOverAConfiguredLimitBeforeAnyOfABatchIsSent() {
		try (DelayQueueEngine small = DelayQueueEngine.builder(this.connectionFactory).maxPayloadSize(64).build()) {
			assertClearRejection(() -> small.template().send(QUEUE, "x".repeat(65), Duration.ZERO),
					"Payload for queue '" + QUEUE + "' is 65 bytes, over the limit of 64 bytes");
			assertClearRejection(() -> small.template().send(QUEUE, new Order("o-1", "a".repeat(60)), Duration.ZERO),
					"over the limit of 64 bytes");
			List<DelayMessage<?>> batch = List.of(DelayMessage.builder("small").queue(QUEUE).build(),
					DelayMessage.builder("y".repeat(100)).queue("other-queue").build());
			assertClearRejection(() -> small.template().sendAll(batch), "Payload for queue 'other-queue'", "100 bytes");
			assertNothingReachedRedis();
			assertThat(small.template().send(QUEUE, "x".repeat(64), Duration.ofHours(1)).status())
				.as("a payload of exactly the limit is accepted")
				.isEqualTo(SendResult.Status.SCHEDULED);
		}
	}

	@Test
	void rejectsHeadersOverTheLimit() {
		assertClearRejection(
				() -> this.engine.template()
					.send(DelayMessage.builder("p").queue(QUEUE).header("big", "v".repeat(16 * 1024)).build()),
				"Headers for queue '" + QUEUE + "'", "over the limit of 16384 bytes");
		try (DelayQueueEngine small = DelayQueueEngine.builder(this.connectionFactory).maxHeadersSize(32).build()) {
			assertClearRejection(() -> small.template()
				.send(DelayMessage.builder("p")
					.queue(QUEUE)
					.header("tenant", "a".repeat(20))
					.header("x", "yz")
					.build()), "Headers for queue '" + QUEUE + "' are 33 bytes, over the limit of 32 bytes");
			assertNothingReachedRedis();
			assertThat(small.template()
				.send(DelayMessage.builder("p").queue(QUEUE).header("tenant", "a".repeat(24)).build())
				.status()).isEqualTo(SendResult.Status.READY);
		}
	}

	@Test
	void rejectsAttemptLimitsBelowOne() {
		for (int attempts : new int[] { 0, -1, Integer.MIN_VALUE }) {
			assertClearRejection(() -> DelayMessage.builder("p").queue(QUEUE).maxAttempts(attempts),
					"Max attempts must be at least 1, but was " + attempts);
			assertClearRejection(() -> RetryPolicy.fixed(attempts, Duration.ofMillis(100)),
					"Max attempts must be at least 1, but was " + attempts);
			assertClearRejection(() -> RetryPolicy.DEFAULT.withMaxAttempts(attempts),
					"Max attempts must be at least 1, but was " + attempts);
		}
		assertNothingReachedRedis();
	}

	@Test
	void rejectsInvalidRetryBackoffs() {
		assertClearRejection(() -> RetryPolicy.fixed(3, Duration.ofMillis(-1)), "Backoff", "PT-0.001S");
		assertClearRejection(() -> new RetryPolicy(3, Duration.ofSeconds(2), 2.0, Duration.ofSeconds(1), 0, Set.of()),
				"Backoff", "initial (PT2S) <= max (PT1S)");
		assertClearRejection(() -> new RetryPolicy(3, Duration.ofSeconds(1), 0.5, Duration.ofSeconds(1), 0, Set.of()),
				"Backoff multiplier must be at least 1, but was 0.5");
		assertClearRejection(() -> new RetryPolicy(3, Duration.ofSeconds(1), 2, Duration.ofSeconds(1), 1.5, Set.of()),
				"Jitter must be between 0 and 1, but was 1.5");
		assertNothingReachedRedis();
	}

	@Test
	void rejectsRetryPoliciesWithNaNOrInfiniteFactors() {
		for (double multiplier : new double[] { Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY }) {
			assertClearRejection(
					() -> new RetryPolicy(3, Duration.ofSeconds(1), multiplier, Duration.ofSeconds(10), 0, Set.of()),
					"Backoff multiplier must be a finite number, but was " + multiplier);
		}
		for (double jitter : new double[] { Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY }) {
			assertClearRejection(
					() -> new RetryPolicy(3, Duration.ofSeconds(1), 2, Duration.ofSeconds(10), jitter, Set.of()),
					"Jitter must be between 0 and 1, but was " + jitter);
		}
		// a backoff whose millis overflow would fail every retry of the message
		assertClearRejection(
				() -> new RetryPolicy(3, Duration.ofSeconds(1), 2, Duration.ofSeconds(Long.MAX_VALUE), 0, Set.of()),
				"Max backoff must be at most PT87600H (10 years), but was PT2562047788015215H30M7S");
		assertNothingReachedRedis();
	}

	@Test
	void roundsSubMillisecondDeliveryTimesUpToTheNextMillisecond() {
		DelayQueueTemplate template = this.engine.template();
		Instant boundary = Instant.now().plus(Duration.ofHours(1)).truncatedTo(ChronoUnit.MILLIS);
		Instant at = boundary.plusNanos(999_000);
		String roundedUp = String.valueOf(boundary.toEpochMilli() + 1);
		SendResult sent = template.send(QUEUE, "p", at);
		assertThat(zscore(sent.id())).isEqualTo(roundedUp);
		assertThat(sent.dueTime()).isEqualTo(boundary.plusMillis(1));
		template.send(DelayMessage.builder("p").queue(QUEUE).id("built").deliverAt(boundary.plusNanos(1)).build());
		assertThat(zscore("built")).isEqualTo(roundedUp);
		template.send(DelayMessage.builder("p").queue(QUEUE).id("exact").deliverAt(boundary).build());
		assertThat(zscore("exact")).as("a whole millisecond stays as is")
			.isEqualTo(String.valueOf(boundary.toEpochMilli()));
		template.send(DelayMessage.builder("p").queue(QUEUE).id("moved").delay(Duration.ofHours(2)).build());
		assertThat(template.reschedule(QUEUE, "moved", at.plusMillis(5))).isTrue();
		assertThat(zscore("moved")).isEqualTo(String.valueOf(boundary.toEpochMilli() + 6));
	}

	@Test
	void roundsSubMillisecondDelaysUpToTheNextMillisecond() {
		// one script call: the delays count from the same Redis time
		List<SendResult> results = this.engine.template()
			.sendAll(List.of(DelayMessage.builder("p").queue(QUEUE).delay(Duration.ofMillis(1)).build(),
					DelayMessage.builder("p").queue(QUEUE).delay(Duration.ofNanos(1_500_000)).build(),
					DelayMessage.builder("p").queue(QUEUE).delay(Duration.ofMillis(2)).build(),
					DelayMessage.builder("p").queue(QUEUE).delay(Duration.ofNanos(1)).build()));
		Instant oneMilli = results.get(0).dueTime();
		assertThat(results.get(1).dueTime()).isEqualTo(oneMilli.plusMillis(1)).isEqualTo(results.get(2).dueTime());
		assertThat(results.get(3).status()).as("a delay of 1 ns is not due at once")
			.isEqualTo(SendResult.Status.SCHEDULED);
		assertThat(results.get(3).dueTime()).isEqualTo(oneMilli);
	}

	@Test
	void countsDelaysFromTheRedisClockRoundedUp() {
		for (int i = 0; i < 20; i++) {
			Instant before = redisTime();
			SendResult sent = this.engine.template().send(QUEUE, "p", Duration.ofMillis(1));
			assertThat(sent.dueTime()).as("due time of a 1 ms delay sent at %s", before)
				.isAfterOrEqualTo(before.plusMillis(1));
			SendResult rescheduled = this.engine.template().send(QUEUE, "p", Duration.ofHours(1));
			Instant beforeReschedule = redisTime();
			assertThat(this.engine.template().reschedule(QUEUE, rescheduled.id(), Duration.ofMillis(1))).isTrue();
			assertThat(Instant.ofEpochMilli(Long.parseLong(zscore(rescheduled.id()))))
				.as("due time of a reschedule by 1 ms at %s", beforeReschedule)
				.isAfterOrEqualTo(beforeReschedule.plusMillis(1));
		}
	}

	@Test
	void rejectsDeliveryTimesAfterTheYear9999() {
		for (Instant at : List.of(Instant.MAX, Instant.parse("+10000-01-01T00:00:00Z"),
				Instant.parse("9999-12-31T23:59:59.999000001Z"))) {
			assertOutOfRange(at, "Delivery time must be at most 9999-12-31T23:59:59.999Z, but was " + at);
		}
		assertNothingReachedRedis();
	}

	@Test
	void rejectsDeliveryTimesBeforeTheYear0() {
		for (Instant at : List.of(Instant.MIN, Instant.parse("-0001-12-31T23:59:59.999999999Z"))) {
			assertOutOfRange(at, "Delivery time must be at least 0000-01-01T00:00:00Z, but was " + at);
		}
		assertNothingReachedRedis();
	}

	private void assertOutOfRange(Instant at, String message) {
		assertClearRejection(() -> this.engine.template().send(QUEUE, "p", at), message);
		assertClearRejection(() -> DelayMessage.builder("p").queue(QUEUE).deliverAt(at), message);
		assertClearRejection(() -> this.engine.template().reschedule(QUEUE, "id", at), message);
	}

	@Test
	void rejectsDelaysEndingAfterTheYear9999() {
		for (Duration delay : List.of(Duration.ofSeconds(Long.MAX_VALUE), Duration.ofMillis(Long.MAX_VALUE),
				Duration.ofDays(365L * 8000))) {
			String[] message = { "Delay must end by 9999-12-31T23:59:59.999Z", "from now, but was " + delay };
			assertClearRejection(() -> this.engine.template().send(QUEUE, "p", delay), message);
			assertClearRejection(() -> DelayMessage.builder("p").queue(QUEUE).delay(delay), message);
			assertClearRejection(() -> this.engine.template().reschedule(QUEUE, "id", delay), message);
			assertThat(this.engine.template().rescheduleAsync(QUEUE, "id", delay)).failsWithin(Duration.ofSeconds(5))
				.withThrowableOfType(ExecutionException.class)
				.withCauseInstanceOf(IllegalArgumentException.class)
				.withMessageContaining(message[0]);
		}
		assertNothingReachedRedis();
	}

	@Test
	void acceptsDeliveryTimesAtTheLimitsAndAnyNegativeDelay() {
		SendResult last = this.engine.template().send(QUEUE, "p", Instant.parse("9999-12-31T23:59:59.999Z"));
		assertThat(last.status()).isEqualTo(SendResult.Status.SCHEDULED);
		assertThat(zscore(last.id())).isEqualTo("253402300799999");
		assertThat(this.engine.template().send(QUEUE, "p", Instant.parse("0000-01-01T00:00:00Z")).status())
			.isEqualTo(SendResult.Status.READY);
		for (Duration delay : List.of(Duration.ofSeconds(Long.MIN_VALUE), Duration.ofMillis(Long.MIN_VALUE),
				Duration.ofNanos(-1))) {
			assertThat(this.engine.template().send(QUEUE, "p", delay).status()).as("delay %s", delay)
				.isEqualTo(SendResult.Status.READY);
		}
	}

	static Stream<Arguments> invalidContainerSettings() {
		return Stream.of(setting("Visibility timeout", (b) -> b.visibilityTimeout(Duration.ZERO), "PT0S"),
				setting("Visibility timeout", (b) -> b.visibilityTimeout(Duration.ofSeconds(-1)), "PT-1S"),
				setting("Visibility timeout", (b) -> b.visibilityTimeout(null), "null"),
				setting("Lease renewal limit", (b) -> b.leaseRenewalLimit(Duration.ZERO), "PT0S"),
				setting("Lease renewal limit", (b) -> b.leaseRenewalLimit(Duration.ofMillis(-5)), "PT-0.005S"),
				setting("Poll timeout", (b) -> b.pollTimeout(Duration.ZERO), "PT0S"),
				setting("Poll timeout", (b) -> b.pollTimeout(Duration.ofSeconds(-2)), "PT-2S"),
				setting("Shutdown timeout", (b) -> b.shutdownTimeout(Duration.ZERO), "PT0S"),
				setting("Shutdown timeout", (b) -> b.shutdownTimeout(Duration.ofMinutes(-1)), "PT-1M"),
				setting("Trim interval", (b) -> b.trimInterval(Duration.ZERO), "PT0S"),
				setting("Trim interval", (b) -> b.trimInterval(Duration.ofSeconds(-30)), "PT-30S"),
				setting("Dead-letter retention", (b) -> b.deadLetterRetention(Duration.ZERO), "PT0S"),
				setting("Dead-letter retention", (b) -> b.deadLetterRetention(Duration.ofDays(-7)), "PT-168H"),
				setting("Concurrency", (b) -> b.concurrency(0), "0"),
				setting("Concurrency", (b) -> b.concurrency(-4), "-4"), setting("Prefetch", (b) -> b.prefetch(0), "0"),
				setting("Prefetch", (b) -> b.prefetch(-1), "-1"));
	}

	private static Arguments setting(String what, Consumer<DelayQueueListenerContainer.Builder<String>> setter,
			String value) {
		return arguments(Named.of(what + " " + value, setter), what, value);
	}

	@ParameterizedTest
	@MethodSource("invalidContainerSettings")
	void rejectsNonPositiveContainerSettings(Consumer<DelayQueueListenerContainer.Builder<String>> setter, String what,
			String value) {
		DelayQueueListenerContainer.Builder<String> builder = this.engine.listenerContainer(QUEUE, "g", String.class,
				IGNORE);
		assertClearRejection(() -> setter.accept(builder), what + " must be", "but was " + value);
		assertNothingReachedRedis();
	}

	@Test
	void rejectsAMissingPayloadTypeOrHandler() {
		assertClearRejection(() -> this.engine.listenerContainer(QUEUE, "g", null, IGNORE),
				"Payload type and handler must not be null");
		assertClearRejection(() -> this.engine.listenerContainer(QUEUE, "g", String.class, null),
				"Payload type and handler must not be null");
		assertNothingReachedRedis();
	}

	static Stream<Arguments> invalidEngineSettings() {
		return Stream.of(engineSetting("Max payload size", (b) -> b.maxPayloadSize(0), "0"),
				engineSetting("Max payload size", (b) -> b.maxPayloadSize(-1), "-1"),
				engineSetting("Max headers size", (b) -> b.maxHeadersSize(0), "0"),
				engineSetting("Send batch size", (b) -> b.sendBatchSize(0), "0"),
				engineSetting("Promote batch size", (b) -> b.promoteBatchSize(-5), "-5"),
				engineSetting("Scheduler max idle", (b) -> b.schedulerMaxIdle(Duration.ZERO), "PT0S"),
				engineSetting("Scheduler max idle", (b) -> b.schedulerMaxIdle(Duration.ofSeconds(-1)), "PT-1S"),
				engineSetting("Scheduler max idle", (b) -> b.schedulerMaxIdle(null), "null"));
	}

	private static Arguments engineSetting(String what, Consumer<DelayQueueEngineBuilder> setter, String value) {
		return arguments(Named.of(what + " " + value, setter), what, value);
	}

	@ParameterizedTest
	@MethodSource("invalidEngineSettings")
	void rejectsNonPositiveEngineSettings(Consumer<DelayQueueEngineBuilder> setter, String what, String value) {
		DelayQueueEngineBuilder builder = DelayQueueEngine.builder(this.connectionFactory);
		assertClearRejection(() -> setter.accept(builder), what + " must be positive, but was " + value);
		assertNothingReachedRedis();
	}

	static Stream<Arguments> invalidKeyPrefixes() {
		return Stream.of(arguments(Named.of("braces", "{dq}")), arguments(Named.of("space", "d q")),
				arguments(Named.of("wildcard", "dq*")), arguments(Named.of("newline", "dq\n")),
				arguments(Named.of("empty", "")), arguments(Named.of("null", (Object) null)),
				arguments(Named.of("65 characters", "p".repeat(65))));
	}

	@ParameterizedTest
	@MethodSource("invalidKeyPrefixes")
	void rejectsInvalidKeyPrefixes(String prefix) {
		DelayQueueEngineBuilder builder = DelayQueueEngine.builder(this.connectionFactory);
		assertClearRejection(() -> builder.keyPrefix(prefix), "Key prefix",
				"must be 1 to 64 letters, digits, '.', '_', ':' or '-' (no braces or spaces)");
		assertNothingReachedRedis();
	}

	static Stream<Arguments> invalidEntryIds() {
		return Stream.of(arguments(Named.of("null", null), "must not be null"),
				arguments(Named.of("empty", ""), "must be a stream id '<ms>-<seq>'"),
				arguments(Named.of("word", "abc"), "must be a stream id"),
				arguments(Named.of("no sequence", "1700000000000"), "must be a stream id"),
				arguments(Named.of("empty sequence", "1-"), "must be a stream id"),
				arguments(Named.of("negative", "-1"), "must be a stream id"),
				arguments(Named.of("three parts", "1-0-0"), "must be a stream id"),
				arguments(Named.of("decimal", "1.5-0"), "must be a stream id"),
				arguments(Named.of("space", " 1-0"), "must be a stream id"),
				arguments(Named.of("newline", "1-0\n"), "must be a stream id"),
				arguments(Named.of("exclusive range prefix", "(1-0"), "must be a stream id"),
				arguments(Named.of("range specials", "+"), "must be a stream id"),
				arguments(Named.of("wildcard sequence", "1-*"), "must be a stream id"),
				arguments(Named.of("2^64", "18446744073709551616-0"), "must be a stream id"),
				arguments(Named.of("non-ASCII digits", "\u0661-0"), "must be a stream id"));
	}

	@ParameterizedTest
	@MethodSource("invalidEntryIds")
	void rejectsMalformedDeadLetterEntryIds(String entryId, String problem) {
		assertClearRejection(() -> this.engine.admin().replay(QUEUE, entryId), "Dead-letter entry id", problem,
				entryId);
		assertClearRejection(() -> this.engine.admin().deleteDeadLetter(QUEUE, entryId), "Dead-letter entry id",
				problem, entryId);
		if (entryId != null) {
			assertClearRejection(() -> this.engine.admin().deadLetters(QUEUE, entryId, 10), "Dead-letter entry id",
					problem, entryId);
		}
		assertNothingReachedRedis();
	}

	@Test
	void acceptsTheLargestDeadLetterEntryId() {
		String largest = "18446744073709551615-18446744073709551615";
		assertThat(this.engine.admin().replay(QUEUE, largest)).isFalse();
		assertThat(this.engine.admin().deleteDeadLetter(QUEUE, largest)).isFalse();
		assertThat(this.engine.admin().deadLetters(QUEUE, largest, 10)).isEmpty();
		assertThat(this.engine.admin().deadLetters(QUEUE, "0-0", 10)).isEmpty();
	}

	@Test
	void purgeCountsExactlyTheDeadLettersItDeletes() throws InterruptedException {
		byte[] dead = QueueKeys.bytes(this.engine.keys(QUEUE).dead());
		Map<byte[], byte[]> fields = Map.of(QueueKeys.bytes("g"), QueueKeys.bytes("g1"));
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (int i = 0; i < 3; i++) {
				connection.streamCommands().xAdd(dead, fields);
			}
		}
		assertThat(this.engine.admin().purgeDeadLetters(QUEUE)).isEqualTo(3);
		assertThat(this.engine.admin().purgeDeadLetters(QUEUE)).isZero();
		// dead letters keep arriving while purging: each one is counted by the purge that
		// deleted it, or is still there
		AtomicBoolean stop = new AtomicBoolean();
		AtomicLong added = new AtomicLong();
		Thread adder = new Thread(() -> {
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				while (!stop.get()) {
					connection.streamCommands().xAdd(dead, fields);
					added.incrementAndGet();
				}
			}
		}, "dead-letter-adder");
		adder.start();
		long purged = 0;
		try {
			for (int i = 0; i < 300; i++) {
				purged += this.engine.admin().purgeDeadLetters(QUEUE);
			}
		}
		finally {
			stop.set(true);
			adder.join(10_000);
		}
		purged += this.engine.admin().purgeDeadLetters(QUEUE);
		assertThat(added.get()).as("dead letters added while purging").isPositive();
		assertThat(purged).as("dead letters counted by the purges").isEqualTo(added.get());
		assertThat(this.redis.execute("EXISTS", this.engine.keys(QUEUE).dead())).isEqualTo(0L);
	}

	@Test
	void rejectsAnEmptyDeadLetterPage() {
		assertClearRejection(() -> this.engine.admin().deadLetters(QUEUE, null, 0),
				"Page size must be at least 1, but was 0");
		assertNothingReachedRedis();
	}

	@Test
	void theInspectionNoticesWhenSomethingReachesRedis() {
		this.engine.template().send(QUEUE, "p", Duration.ofHours(1));
		assertThat(this.redis.execute("DBSIZE")).isNotEqualTo(0L);
		assertThat(commandsRun()).contains("evalsha");
	}

	private static void assertClearRejection(ThrowingCallable call, String... fragments) {
		assertThatIllegalArgumentException().isThrownBy(call)
			.satisfies((ex) -> assertThat(ex.getMessage()).contains(fragments).hasSizeLessThan(300));
	}

	private static void assertClearRejection(ThrowingCallable call, String subject, String problem, String value) {
		assertThatIllegalArgumentException().isThrownBy(call).satisfies((ex) -> {
			assertThat(ex.getMessage()).startsWith(subject).contains(problem).hasSizeLessThan(300);
			// control characters are shown escaped, never raw (logs stay one line)
			assertThat(ex.getMessage().chars().filter(Character::isISOControl)).isEmpty();
			if (value != null && !value.isEmpty() && value.length() <= 40
					&& value.chars().noneMatch((c) -> Character.isISOControl(c) || Character.isSurrogate((char) c))) {
				assertThat(ex.getMessage()).as("names the offending value").contains(value);
			}
		});
	}

	/**
	 * The due time (epoch ms) of a scheduled message, in the schedule or the far tier, or
	 * {@code null}.
	 */
	private String zscore(String id) {
		return this.engine.admin()
			.scheduledMessage(QUEUE, id)
			.map((message) -> String.valueOf(message.dueTime().toEpochMilli()))
			.orElse(null);
	}

	private Instant redisTime() {
		List<?> time = (List<?>) this.redis.execute("TIME");
		return Instant.ofEpochSecond(Long.parseLong((String) time.get(0)), Long.parseLong((String) time.get(1)) * 1000);
	}

	@Test
	void rejectsALoneSurrogateInAHeaderNameOrValueNamingIt() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayMessage.builder("p").queue(QUEUE).header("tenant", "a\uD800b"))
			.withMessage(
					"Value of header 'tenant' 'a\\ud800b' must be valid UTF-16: it has a lone surrogate at index 1,"
							+ " which UTF-8 cannot encode (it would become '?')");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayMessage.builder("p").queue(QUEUE).header("t\uDC00", "x"))
			.withMessageStartingWith("Header name 't\\udc00' must be valid UTF-16: it has a lone surrogate at index 1");
		assertNothingReachedRedis();
	}

	private void assertNothingReachedRedis() {
		assertThat(this.redis.execute("DBSIZE")).as("keys in Redis").isEqualTo(0L);
		assertThat(commandsRun()).as("commands Redis ran besides the test's own").isEmpty();
	}

	private Set<String> commandsRun() {
		Set<String> commands = new TreeSet<>();
		for (String line : ((String) this.redis.execute("INFO", "commandstats")).split("\r\n")) {
			if (line.startsWith("cmdstat_")) {
				String command = line.substring("cmdstat_".length(), line.indexOf(':'));
				// before Redis 7.0 subcommands count under their command: the one CONFIG
				// call is the test's own CONFIG RESETSTAT
				if (!(command.equals("config") && line.contains(":calls=1,"))) {
					commands.add(command);
				}
			}
		}
		commands.removeAll(INSPECTION_COMMANDS);
		return commands;
	}

	record Order(String id, String note) {
	}

	static final class SelfReferencing {

		public SelfReferencing getSelf() {
			return this;
		}

	}

}
