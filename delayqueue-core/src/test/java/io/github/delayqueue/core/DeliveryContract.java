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
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Sending and delivering against a real Redis: timing, dedup, cancel, reschedule,
 * retries, dead letters and replay. Written once, run on a single server
 * ({@link DeliveryTests}) and on a cluster ({@link ClusterDeliveryTests}).
 */
abstract class DeliveryContract {

	private final Function<String, RedisServer> serverFor;

	private final RedisConnectionFactory connectionFactory;

	private final DelayQueueEngine engine;

	private final List<DelayQueueListenerContainer> containers = new java.util.ArrayList<>();

	private String queue;

	/**
	 * @param connectionFactory the factory of the Redis under test
	 * @param serverFor the server that holds a key
	 */
	DeliveryContract(RedisConnectionFactory connectionFactory, Function<String, RedisServer> serverFor) {
		this.serverFor = serverFor;
		this.connectionFactory = connectionFactory;
		this.engine = DelayQueueEngine.builder(connectionFactory).build();
	}

	@BeforeEach
	void queueName(TestInfo info) {
		this.queue = info.getTestMethod().orElseThrow().getName();
	}

	@AfterEach
	void stopContainers() {
		this.containers.forEach(DelayQueueListenerContainer::stop);
		this.engine.close();
	}

	private BlockingQueue<Received> listen(String group, RetryPolicy policy, Failing failing) {
		BlockingQueue<Received> received = new LinkedBlockingQueue<>();
		DelayQueueListenerContainer container = this.engine
			.listenerContainer(this.queue, group, String.class, (payload, context) -> {
				received.add(new Received(payload, context.id(), context.attempt(), context.dueTime(), redisNow(),
						context.headers()));
				failing.check(payload, context);
			})
			.retryPolicy(policy)
			.visibilityTimeout(Duration.ofSeconds(5))
			.build();
		container.start();
		this.containers.add(container);
		return received;
	}

	private Instant redisNow() {
		List<?> time = (List<?>) this.serverFor.apply(this.engine.keys(this.queue).stream()).execute("TIME");
		return Instant.ofEpochSecond(Long.parseLong((String) time.get(0)), Long.parseLong((String) time.get(1)) * 1000);
	}

	@Test
	void deliversAfterTheDelayAndNotBefore() throws Exception {
		BlockingQueue<Received> received = listen("g", RetryPolicy.DEFAULT, Failing.NEVER);
		SendResult result = this.engine.template().send(this.queue, "hello", Duration.ofMillis(700));
		assertThat(result.status()).isEqualTo(SendResult.Status.SCHEDULED);
		Received message = received.poll(10, TimeUnit.SECONDS);
		assertThat(message).isNotNull();
		assertThat(message.payload).isEqualTo("hello");
		assertThat(message.id).isEqualTo(result.id());
		assertThat(message.attempt).isEqualTo(1);
		assertThat(message.receivedAt).isAfterOrEqualTo(result.dueTime());
		assertThat(message.due).isEqualTo(result.dueTime());
	}

	@Test
	void deliversAtOnceWhenTheDelayIsNotPositive() throws Exception {
		BlockingQueue<Received> received = listen("g", RetryPolicy.DEFAULT, Failing.NEVER);
		assertThat(this.engine.template().send(this.queue, "now", Duration.ZERO).status())
			.isEqualTo(SendResult.Status.READY);
		assertThat(this.engine.template().send(this.queue, "past", Instant.now().minusSeconds(60)).status())
			.isEqualTo(SendResult.Status.READY);
		assertThat(received.poll(5, TimeUnit.SECONDS).payload).isIn("now", "past");
		assertThat(received.poll(5, TimeUnit.SECONDS).payload).isIn("now", "past");
	}

	@Test
	void everyGroupReceivesEachMessageOnce() throws Exception {
		BlockingQueue<Received> first = listen("first", RetryPolicy.DEFAULT, Failing.NEVER);
		BlockingQueue<Received> second = listen("second", RetryPolicy.DEFAULT, Failing.NEVER);
		this.engine.template().send(this.queue, "both", Duration.ofMillis(200));
		assertThat(first.poll(5, TimeUnit.SECONDS).payload).isEqualTo("both");
		assertThat(second.poll(5, TimeUnit.SECONDS).payload).isEqualTo("both");
		assertThat(first.poll(500, TimeUnit.MILLISECONDS)).isNull();
		assertThat(second.poll(10, TimeUnit.MILLISECONDS)).isNull();
	}

	@Test
	void carriesIdHeadersAndSkipsADuplicateId() throws Exception {
		DelayMessage<String> message = DelayMessage.builder("payload")
			.queue(this.queue)
			.id("order-1")
			.delay(Duration.ofMillis(300))
			.header("tenant", "acme")
			.build();
		SendResult first = this.engine.template().send(message);
		SendResult second = this.engine.template().send(message);
		assertThat(first.status()).isEqualTo(SendResult.Status.SCHEDULED);
		assertThat(second.status()).isEqualTo(SendResult.Status.DUPLICATE);
		assertThat(second.dueTime()).isEqualTo(first.dueTime());
		BlockingQueue<Received> received = listen("g", RetryPolicy.DEFAULT, Failing.NEVER);
		Received delivered = received.poll(5, TimeUnit.SECONDS);
		assertThat(delivered.id).isEqualTo("order-1");
		assertThat(delivered.headers).containsEntry("tenant", "acme");
		assertThat(received.poll(700, TimeUnit.MILLISECONDS)).isNull();
	}

	@Test
	void replacesAScheduledMessageWhenAsked() throws Exception {
		this.engine.template()
			.send(DelayMessage.builder("old").queue(this.queue).id("debounced").delay(Duration.ofHours(1)).build());
		SendResult replaced = this.engine.template()
			.send(DelayMessage.builder("new")
				.queue(this.queue)
				.id("debounced")
				.delay(Duration.ofMillis(200))
				.replaceExisting()
				.build());
		assertThat(replaced.status()).isEqualTo(SendResult.Status.REPLACED);
		BlockingQueue<Received> received = listen("g", RetryPolicy.DEFAULT, Failing.NEVER);
		assertThat(received.poll(5, TimeUnit.SECONDS).payload).isEqualTo("new");
		assertThat(this.engine.admin().stats(this.queue).scheduled()).isZero();
	}

	@Test
	void sendsAndPromotesBatchesLargerThanOneBulkCommandWithRepeatedIds() throws Exception {
		// the scripts write and remove members in slices of 1000 arguments; a repeated
		// id inside one call sees the earlier one
		try (DelayQueueEngine bulk = DelayQueueEngine.builder(this.connectionFactory)
			.sendBatchSize(3000)
			.promoteBatchSize(3000)
			.build()) {
			Instant due = Instant.now().plusMillis(1500);
			List<DelayMessage<String>> messages = new java.util.ArrayList<>();
			for (int i = 0; i < 2500; i++) {
				messages.add(DelayMessage.builder("m" + i).queue(this.queue).id("id-" + i).deliverAt(due).build());
			}
			messages.add(DelayMessage.builder("kept?").queue(this.queue).id("id-7").deliverAt(due).build());
			messages.add(DelayMessage.builder("replaced")
				.queue(this.queue)
				.id("id-1500")
				.deliverAt(due)
				.replaceExisting()
				.build());
			List<SendResult> results = bulk.template().sendAll(messages);
			assertThat(results.subList(0, 2500)).extracting(SendResult::status)
				.containsOnly(SendResult.Status.SCHEDULED);
			assertThat(results.get(2500).status()).isEqualTo(SendResult.Status.DUPLICATE);
			assertThat(results.get(2501).status()).isEqualTo(SendResult.Status.REPLACED);
			assertThat(bulk.admin().stats(this.queue).scheduled()).isEqualTo(2500);
			Map<String, String> received = new java.util.concurrent.ConcurrentHashMap<>();
			AtomicInteger deliveries = new AtomicInteger();
			DelayQueueListenerContainer container = bulk
				.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
					received.put(context.id(), payload);
					deliveries.incrementAndGet();
				})
				.concurrency(16)
				.build();
			container.start();
			this.containers.add(container);
			await().atMost(Duration.ofSeconds(30)).until(() -> received.size() == 2500);
			Thread.sleep(300);
			assertThat(deliveries).hasValue(2500);
			assertThat(received).containsEntry("id-7", "m7").containsEntry("id-1500", "replaced");
			assertThat(bulk.admin().stats(this.queue).scheduled()).isZero();
		}
	}

	@Test
	void reportsEachMessageOfASendOfManyScriptCallsInOrder() {
		// sendBatchSize 7: 15 script calls, sent together on a single server
		try (DelayQueueEngine small = DelayQueueEngine.builder(this.connectionFactory).sendBatchSize(7).build()) {
			List<DelayMessage<String>> messages = new java.util.ArrayList<>();
			for (int i = 0; i < 100; i++) {
				messages.add(DelayMessage.builder("m" + i)
					.queue(this.queue)
					.id("id-" + i)
					.delay(Duration.ofMinutes(10 + i))
					.build());
			}
			// a later call repeats an id of the first
			messages.add(DelayMessage.builder("again").queue(this.queue).id("id-3").delay(Duration.ofHours(5)).build());
			List<SendResult> results = small.template().sendAll(messages);
			assertThat(results).hasSize(101);
			for (int i = 0; i < 100; i++) {
				assertThat(results.get(i).id()).isEqualTo("id-" + i);
				assertThat(results.get(i).status()).isEqualTo(SendResult.Status.SCHEDULED);
			}
			assertThat(results.get(100).status()).isEqualTo(SendResult.Status.DUPLICATE);
			assertThat(results.get(100).dueTime()).isEqualTo(results.get(3).dueTime());
			assertThat(results.get(99).dueTime()).isAfter(results.get(98).dueTime());
			assertThat(small.admin().stats(this.queue).scheduled()).isEqualTo(100);
		}
	}

	@Test
	void cancelsAndReschedulesScheduledMessages() throws Exception {
		BlockingQueue<Received> received = listen("g", RetryPolicy.DEFAULT, Failing.NEVER);
		this.engine.template()
			.send(DelayMessage.builder("cancelled").queue(this.queue).id("c").delay(Duration.ofMillis(500)).build());
		this.engine.template()
			.send(DelayMessage.builder("moved").queue(this.queue).id("m").delay(Duration.ofHours(1)).build());
		assertThat(this.engine.template().cancel(this.queue, "c")).isTrue();
		assertThat(this.engine.template().cancel(this.queue, "c")).isFalse();
		assertThat(this.engine.template().reschedule(this.queue, "m", Duration.ofMillis(300))).isTrue();
		assertThat(this.engine.template().reschedule(this.queue, "unknown", Duration.ofMillis(300))).isFalse();
		assertThat(received.poll(5, TimeUnit.SECONDS).payload).isEqualTo("moved");
		assertThat(received.poll(1, TimeUnit.SECONDS)).isNull();
	}

	@Test
	void retriesWithBackoffThenDeadLettersAndReplays() throws Exception {
		AtomicInteger calls = new AtomicInteger();
		AtomicInteger failUntil = new AtomicInteger(Integer.MAX_VALUE);
		BlockingQueue<Received> received = listen("g", RetryPolicy.fixed(3, Duration.ofMillis(200)),
				(payload, context) -> {
					if (calls.incrementAndGet() <= failUntil.get()) {
						throw new IllegalStateException("boom " + context.attempt());
					}
				});
		this.engine.template().send(this.queue, "poison", Duration.ZERO);
		for (int attempt = 1; attempt <= 3; attempt++) {
			assertThat(received.poll(5, TimeUnit.SECONDS).attempt).isEqualTo(attempt);
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).dead() == 1);
		DeadLetter dead = this.engine.admin().deadLetters(this.queue, null, 10).get(0);
		assertThat(dead.group()).isEqualTo("g");
		assertThat(dead.attempts()).isEqualTo(3);
		assertThat(dead.errorClass()).isEqualTo(IllegalStateException.class.getName());
		assertThat(dead.errorMessage()).isEqualTo("boom 3");
		assertThat(dead.payloadAsString()).isEqualTo("poison");
		failUntil.set(0);
		assertThat(this.engine.admin().replay(this.queue, dead.entryId())).isTrue();
		Received replayed = received.poll(5, TimeUnit.SECONDS);
		assertThat(replayed.attempt).isEqualTo(1);
		assertThat(replayed.payload).isEqualTo("poison");
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).inFlight() == 0);
		assertThat(this.engine.admin().stats(this.queue).dead()).isZero();
	}

	@Test
	void deadLettersNonRetryableFailuresAtOnce() throws Exception {
		BlockingQueue<Received> received = listen("g",
				RetryPolicy.fixed(5, Duration.ofMillis(100)).withNonRetryable(IllegalArgumentException.class),
				(payload, context) -> {
					throw new IllegalArgumentException("bad order");
				});
		this.engine.template().send(this.queue, "x", Duration.ZERO);
		assertThat(received.poll(5, TimeUnit.SECONDS)).isNotNull();
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).dead() == 1);
		assertThat(received.poll(500, TimeUnit.MILLISECONDS)).isNull();
		assertThat(this.engine.admin().deadLetters(this.queue, null, 1).get(0).attempts()).isEqualTo(1);
	}

	@Test
	void honoursThePerMessageAttemptLimit() throws Exception {
		BlockingQueue<Received> received = listen("g", RetryPolicy.fixed(10, Duration.ofMillis(50)),
				(payload, context) -> {
					throw new IllegalStateException("no");
				});
		this.engine.template()
			.send(DelayMessage.builder("limited").queue(this.queue).maxAttempts(2).delay(Duration.ZERO).build());
		assertThat(received.poll(5, TimeUnit.SECONDS).attempt).isEqualTo(1);
		assertThat(received.poll(5, TimeUnit.SECONDS).attempt).isEqualTo(2);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).dead() == 1);
		assertThat(received.poll(300, TimeUnit.MILLISECONDS)).isNull();
	}

	@Test
	void purgesAndDeletesDeadLetters() throws Exception {
		listen("g", RetryPolicy.fixed(1, Duration.ofMillis(10)), (payload, context) -> {
			throw new IllegalStateException("no");
		});
		this.engine.template()
			.sendAll(List.of(DelayMessage.builder("a").queue(this.queue).build(),
					DelayMessage.builder("b").queue(this.queue).build(),
					DelayMessage.builder("c").queue(this.queue).build()));
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).dead() == 3);
		String first = this.engine.admin().deadLetters(this.queue, null, 1).get(0).entryId();
		assertThat(this.engine.admin().deleteDeadLetter(this.queue, first)).isTrue();
		assertThat(this.engine.admin().deleteDeadLetter(this.queue, first)).isFalse();
		assertThat(this.engine.admin().purgeDeadLetters(this.queue)).isEqualTo(2);
		assertThat(this.engine.admin().stats(this.queue).dead()).isZero();
		assertThat(this.engine.admin().queues()).contains(this.queue);
	}

	record Received(String payload, String id, int attempt, Instant due, Instant receivedAt,
			Map<String, String> headers) {
	}

	interface Failing {

		Failing NEVER = (payload, context) -> {
		};

		void check(String payload, DelayMessageContext context) throws Exception;

	}

}
