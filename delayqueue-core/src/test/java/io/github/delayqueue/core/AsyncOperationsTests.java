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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.within;

/**
 * The async producing operations complete with the same results as the blocking ones, on
 * the configured executor, and fail the future (never the caller) the same way.
 */
@RedisTest
class AsyncOperationsTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(5);

	private final RedisServer redis;

	private final ExecutorService pool = Executors.newFixedThreadPool(2);

	private final AtomicInteger asyncTasks = new AtomicInteger();

	private final DelayQueueEngine engine;

	private String queue;

	AsyncOperationsTests(RedisServer redis, RedisConnectionFactory connectionFactory) {
		this.redis = redis;
		this.engine = DelayQueueEngine.builder(connectionFactory).asyncExecutor((task) -> {
			this.asyncTasks.incrementAndGet();
			this.pool.execute(task);
		}).build();
	}

	@BeforeEach
	void queueName(TestInfo info) {
		this.queue = info.getTestMethod().orElseThrow().getName();
	}

	@AfterEach
	void close() {
		this.engine.close();
		this.pool.shutdownNow();
	}

	private static <T> T result(CompletableFuture<T> future) throws Exception {
		return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
	}

	@Test
	void sendAsyncCompletesLikeSend() throws Exception {
		DelayQueueTemplate template = this.engine.template();
		DelayMessage<String> message = DelayMessage.builder("p")
			.queue(this.queue)
			.id("order-1")
			.delay(Duration.ofHours(1))
			.build();
		Instant before = redisNow();
		SendResult scheduled = result(template.sendAsync(message));
		assertThat(scheduled.queue()).isEqualTo(this.queue);
		assertThat(scheduled.id()).isEqualTo("order-1");
		assertThat(scheduled.status()).isEqualTo(SendResult.Status.SCHEDULED);
		// a delay counts from the Redis clock rounded up to the ms
		assertThat(scheduled.dueTime()).isBetween(before.plus(Duration.ofHours(1)),
				redisNow().plus(Duration.ofHours(1)).plusMillis(1));

		SendResult syncDuplicate = template.send(message);
		SendResult asyncDuplicate = result(template.sendAsync(message));
		assertThat(syncDuplicate.status()).isEqualTo(SendResult.Status.DUPLICATE);
		assertThat(syncDuplicate.dueTime()).isEqualTo(scheduled.dueTime());
		assertThat(asyncDuplicate).isEqualTo(syncDuplicate);

		SendResult replaced = result(template.sendAsync(DelayMessage.builder("q")
			.queue(this.queue)
			.id("order-1")
			.delay(Duration.ofHours(2))
			.replaceExisting()
			.build()));
		assertThat(replaced.status()).isEqualTo(SendResult.Status.REPLACED);
		assertThat(Duration.between(scheduled.dueTime(), replaced.dueTime()).toMillis())
			.isCloseTo(Duration.ofHours(1).toMillis(), within(5000L));

		SendResult asyncReady = result(template.sendAsync(DelayMessage.builder("now").queue(this.queue).build()));
		SendResult syncReady = template.send(DelayMessage.builder("now").queue(this.queue).build());
		assertThat(List.of(asyncReady, syncReady)).allSatisfy((ready) -> {
			assertThat(ready.status()).isEqualTo(SendResult.Status.READY);
			assertThat(ready.id()).matches("[A-Za-z0-9_-]{16}");
		});
		assertThat(asyncReady.id()).isNotEqualTo(syncReady.id());
		assertThat(this.engine.admin().stats(this.queue).scheduled()).isEqualTo(1);
		assertThat(xlen(this.queue)).isEqualTo(2);
		assertThat(this.asyncTasks).as("calls run on the configured executor").hasValue(4);
	}

	@Test
	void sendAllAsyncCompletesLikeSendAll() throws Exception {
		List<SendResult> sync = this.engine.template().sendAll(batch(this.queue + "-sync"));
		List<DelayMessage<?>> asyncBatch = new ArrayList<>(batch(this.queue + "-async"));
		CompletableFuture<List<SendResult>> future = this.engine.template().sendAllAsync(asyncBatch);
		asyncBatch.clear(); // the caller may reuse its list at once
		List<SendResult> async = result(future);
		assertThat(async).extracting(SendResult::status)
			.containsExactlyElementsOf(sync.stream().map(SendResult::status).toList())
			.containsExactly(SendResult.Status.READY, SendResult.Status.SCHEDULED, SendResult.Status.SCHEDULED,
					SendResult.Status.DUPLICATE);
		assertThat(async).extracting(SendResult::id).containsExactly("x", "y", "z", "y");
		assertThat(async).extracting(SendResult::queue).containsOnly(this.queue + "-async");
		assertThat(async.get(3).dueTime()).isEqualTo(async.get(1).dueTime());
		for (String queue : List.of(this.queue + "-sync", this.queue + "-async")) {
			assertThat(this.engine.admin().stats(queue).scheduled()).isEqualTo(2);
			assertThat(xlen(queue)).isEqualTo(1);
		}
		assertThat(result(this.engine.template().sendAllAsync(List.of()))).isEmpty();
	}

	private static List<DelayMessage<?>> batch(String queue) {
		return List.of(DelayMessage.builder("x").queue(queue).id("x").build(),
				DelayMessage.builder("y").queue(queue).id("y").delay(Duration.ofHours(1)).build(),
				DelayMessage.builder("z").queue(queue).id("z").delay(Duration.ofHours(1)).build(),
				DelayMessage.builder("y2").queue(queue).id("y").delay(Duration.ofHours(3)).build());
	}

	@Test
	void cancelAsyncAndRescheduleAsyncCompleteLikeTheirSyncForms() throws Exception {
		DelayQueueTemplate template = this.engine.template();
		for (String id : List.of("c1", "c2", "r1", "r2", "r3")) {
			template.send(DelayMessage.builder(id).queue(this.queue).id(id).delay(Duration.ofHours(1)).build());
		}
		assertThat(result(template.cancelAsync(this.queue, "c1"))).isTrue();
		assertThat(template.cancel(this.queue, "c2")).isTrue();
		assertThat(result(template.cancelAsync(this.queue, "c1"))).isFalse();
		assertThat(template.cancel(this.queue, "c1")).isFalse();
		assertThat(result(template.cancelAsync(this.queue, "unknown"))).isFalse();

		Instant before = redisNow();
		assertThat(result(template.rescheduleAsync(this.queue, "r1", Duration.ofHours(2)))).isTrue();
		assertThat(template.reschedule(this.queue, "r2", Duration.ofHours(2))).isTrue();
		for (String id : List.of("r1", "r2")) {
			assertThat(dueTime(id)).isBetween(before.plus(Duration.ofHours(2)),
					redisNow().plus(Duration.ofHours(2)).plusMillis(1));
		}
		assertThat(result(template.rescheduleAsync(this.queue, "unknown", Duration.ofHours(2)))).isFalse();
		assertThat(template.reschedule(this.queue, "unknown", Duration.ofHours(2))).isFalse();

		assertThat(result(template.rescheduleAsync(this.queue, "r3", Duration.ZERO))).as("made due at once").isTrue();
		assertThat(this.engine.admin().stats(this.queue).scheduled()).isEqualTo(2);
		assertThat(xlen(this.queue)).isEqualTo(1);
		assertThat(result(template.cancelAsync(this.queue, "r3"))).as("no longer scheduled").isFalse();
	}

	@Test
	void asyncOperationsFailTheFutureLikeTheSyncOnesThrow() {
		DelayQueueTemplate template = this.engine.template();
		CompletableFuture<Boolean> badQueue = template.cancelAsync("{bad}", "x");
		CompletableFuture<Boolean> badId = template.rescheduleAsync(this.queue, "", Duration.ofSeconds(1));
		for (CompletableFuture<Boolean> future : List.of(badQueue, badId)) {
			assertThat(future).failsWithin(TIMEOUT)
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(IllegalArgumentException.class);
		}
		assertThatIllegalArgumentException().isThrownBy(() -> template.cancel("{bad}", "x"))
			.withMessage(causeMessage(badQueue));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> template.reschedule(this.queue, "", Duration.ofSeconds(1)))
			.withMessage(causeMessage(badId));
	}

	private static String causeMessage(CompletableFuture<?> future) {
		try {
			future.get();
			throw new AssertionError("Expected a failed future");
		}
		catch (ExecutionException ex) {
			return ex.getCause().getMessage();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new AssertionError(ex);
		}
	}

	private long xlen(String queue) {
		return (Long) this.redis.execute("XLEN", this.engine.keys(queue).stream());
	}

	/** The due time of a scheduled message, in the schedule or the far tier. */
	private Instant dueTime(String id) {
		return this.engine.admin().scheduledMessage(this.queue, id).orElseThrow().dueTime();
	}

	private Instant redisNow() {
		List<?> time = (List<?>) this.redis.execute("TIME");
		return Instant.ofEpochSecond(Long.parseLong((String) time.get(0)), Long.parseLong((String) time.get(1)) * 1000)
			.truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
	}

}
