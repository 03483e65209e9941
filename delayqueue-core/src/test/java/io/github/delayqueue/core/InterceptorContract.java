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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.listener.BatchFailedException;
import io.github.delayqueue.core.listener.DeadLetterConsumer;
import io.github.delayqueue.core.listener.DeadLetterContext;
import io.github.delayqueue.core.listener.DelayBatchInterceptor;
import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.core.listener.DelayMessageInterceptor;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * Interceptors around handlers, batch handlers and dead-letter handlers, against real
 * Redis: the order of their calls, the filter path (acknowledged, counted, in the
 * history), and an interceptor that throws before, in and after the handler (the attempt
 * fails and is retried or dead-lettered, never lost). Run on a single server and on a
 * Redis Cluster, with a queue of 3 partitions.
 */
abstract class InterceptorContract extends QueueTestFixture {

	private final List<String> calls = new CopyOnWriteArrayList<>();

	InterceptorContract(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private DelayQueueEngine engine() {
		return build(DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, 3));
	}

	/** Records each call as {@code name.method payload}. */
	private class Recording implements DelayMessageInterceptor {

		final String name;

		Recording(String name) {
			this.name = name;
		}

		void record(String method, Object payload) {
			InterceptorContract.this.calls.add(this.name + "." + method + " " + payload);
		}

		@Override
		public boolean before(Object payload, DelayMessageContext context) throws Exception {
			record("before", payload);
			return true;
		}

		@Override
		public void onSuccess(Object payload, DelayMessageContext context) {
			record("onSuccess", payload);
		}

		@Override
		public void onFailure(Object payload, DelayMessageContext context, Throwable failure) {
			record("onFailure", payload + " " + failure.getMessage());
		}

		@Override
		public void after(Object payload, DelayMessageContext context) throws Exception {
			record("after", payload);
		}

	}

	@Order(1)
	private final class First extends Recording {

		First() {
			super("first");
		}

	}

	private final class Second extends Recording implements Ordered {

		Second() {
			super("second");
		}

		@Override
		public int getOrder() {
			return 2;
		}

	}

	private List<String> callsOf(String payload) {
		return this.calls.stream().filter((call) -> call.contains(" " + payload)).toList();
	}

	@Test
	void interceptorsRunInTheirOrderAroundTheHandlerOnItsThreadWithTheMessagesContext() {
		DelayQueueEngine engine = engine();
		Map<String, String> seen = new ConcurrentHashMap<>();
		DelayMessageInterceptor context = new DelayMessageInterceptor() {

			@Override
			public boolean before(Object payload, DelayMessageContext context) {
				seen.put("before",
						Thread.currentThread().getName() + " " + context.queue() + " " + context.group() + " "
								+ context.id() + " " + context.attempt() + " " + context.headers().get("tenant") + " "
								+ (context.dueTime() != null));
				return true;
			}

		};
		// added out of order: they run by their order, then as added
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, delivery) -> {
			seen.put("handler", Thread.currentThread().getName());
			this.calls.add("handler " + payload);
		}).addInterceptor(new Second()).addInterceptor(new First()).addInterceptor(context).build());
		engine.template()
			.send(DelayMessage.builder("m1").queue(this.queue).id("id-1").header("tenant", "acme").build());
		await().atMost(Duration.ofSeconds(10)).until(() -> this.calls.size() == 7);
		assertThat(this.calls).containsExactly("first.before m1", "second.before m1", "handler m1",
				"second.onSuccess m1", "second.after m1", "first.onSuccess m1", "first.after m1");
		assertThat(seen.get("before")).startsWith(seen.get("handler") + " ")
			.endsWith(" " + this.queue + " g id-1 1 acme true");
	}

	@Test
	void aFilteredMessageIsAcknowledgedUnhandledCountedAndInTheHistory() {
		DelayQueueEngine engine = engine();
		AtomicInteger filteredCount = new AtomicInteger();
		AtomicInteger delivered = new AtomicInteger();
		DelayQueueEngine counted = build(DelayQueueEngine.builder(this.connectionFactory)
			.partitions(this.queue, 3)
			.observer(new DelayQueueObserver() {

				@Override
				public void filtered(String queue, String group) {
					filteredCount.incrementAndGet();
				}

				@Override
				public void delivered(String queue, String group, int attempt, Duration lateness) {
					delivered.incrementAndGet();
				}

			}));
		List<String> handled = new CopyOnWriteArrayList<>();
		List<String> leaked = new CopyOnWriteArrayList<>();
		Recording outer = new First();
		// puts why it refuses in the MDC (for its log line), and clears it in after
		DelayMessageInterceptor retiredTenant = new Recording("filter") {

			@Override
			public boolean before(Object payload, DelayMessageContext context) throws Exception {
				super.before(payload, context);
				if ("retired".equals(context.headers().get("tenant"))) {
					MDC.put("refused", "retired tenant");
					return false;
				}
				return true;
			}

			@Override
			public void after(Object payload, DelayMessageContext context) throws Exception {
				super.after(payload, context);
				MDC.remove("refused");
			}

		};
		start(counted.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			if (MDC.get("refused") != null) {
				leaked.add(payload);
			}
			handled.add(payload);
		}).addInterceptor(outer).addInterceptor(retiredTenant).concurrency(1).build());
		for (int i = 0; i < 10; i++) {
			engine.template()
				.send(DelayMessage.builder("m" + i)
					.queue(this.queue)
					.header("tenant", (i % 2 == 0) ? "retired" : "live")
					.build());
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> filteredCount.get() == 5 && handled.size() == 5);
		assertThat(handled).containsExactlyInAnyOrder("m1", "m3", "m5", "m7", "m9");
		// the filter and the interceptor before it are told after, not of a success or
		// failure: nothing the filter set up leaks into the next messages
		assertThat(callsOf("m0")).containsExactly("first.before m0", "filter.before m0", "filter.after m0",
				"first.after m0");
		assertThat(leaked).isEmpty();
		await().atMost(Duration.ofSeconds(5)).until(() -> engine.admin().stats(this.queue).inFlight() == 0);
		sleep(500);
		assertThat(handled).hasSize(5);
		assertThat(engine.admin().stats(this.queue).dead()).isZero();
		stopListeners();
		counted.close();
		QueueHistory.Point total = engine.admin().history(this.queue, QueueHistory.Span.HOUR).total();
		assertThat(total.filtered()).isEqualTo(5);
		assertThat(total.acked()).isEqualTo(5);
		// handed to the handler: the filtered ones are not
		assertThat(total.delivered()).isEqualTo(5);
		assertThat(delivered.get()).isEqualTo(5);
	}

	@Test
	void anInterceptorThrowingBeforeTheHandlerFailsTheAttemptWhichIsRetried() {
		DelayQueueEngine engine = engine();
		List<String> handled = new CopyOnWriteArrayList<>();
		DelayMessageInterceptor failing = new Recording("failing") {

			@Override
			public boolean before(Object payload, DelayMessageContext context) throws Exception {
				super.before(payload, context);
				if (context.attempt() == 1) {
					throw new IllegalStateException("refused at first");
				}
				return true;
			}

		};
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> handled.add(payload))
			.addInterceptor(new First())
			.addInterceptor(failing)
			.retryPolicy(RetryPolicy.fixed(3, Duration.ofMillis(50)))
			.build());
		engine.template().send(this.queue, "m", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 1);
		// the one that threw is told after too (what its before set up is undone)
		assertThat(callsOf("m")).startsWith("first.before m", "failing.before m", "failing.after m",
				"first.onFailure m refused at first", "first.after m", "first.before m", "failing.before m",
				"failing.onSuccess m", "failing.after m", "first.onSuccess m", "first.after m");
	}

	@Test
	void aHandlerReturningAfterItWasGivenUpIsAFailureToItsInterceptors() throws Exception {
		DelayQueueEngine engine = engine();
		CountDownLatch release = new CountDownLatch(1);
		List<Integer> returned = new CopyOnWriteArrayList<>();
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			if (context.attempt() == 1) {
				// hung past the watchdog's interrupt, as in a call that ignores it
				boolean interrupted = false;
				while (release.getCount() > 0) {
					try {
						release.await();
					}
					catch (InterruptedException ex) {
						interrupted = true;
					}
				}
				if (interrupted) {
					Thread.currentThread().interrupt();
				}
			}
			returned.add(context.attempt());
		})
			.addInterceptor(new First())
			.visibilityTimeout(Duration.ofMillis(600))
			.leaseRenewalLimit(Duration.ofSeconds(1))
			.concurrency(2)
			.retryPolicy(RetryPolicy.fixed(3, Duration.ofMillis(50)))
			.build());
		try {
			engine.template().send(this.queue, "hung", Duration.ZERO);
			// given up and retried meanwhile: the retry succeeds
			await().atMost(Duration.ofSeconds(10)).until(() -> returned.contains(2));
		}
		finally {
			release.countDown();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> returned.contains(1) && callsOf("hung").size() == 6);
		// the retry's success, then the given-up attempt's return: not a success
		assertThat(callsOf("hung")).filteredOn((call) -> !call.startsWith("first.onFailure"))
			.containsExactly("first.before hung", "first.before hung", "first.onSuccess hung", "first.after hung",
					"first.after hung");
		assertThat(callsOf("hung")).filteredOn((call) -> call.startsWith("first.onFailure"))
			.singleElement()
			.satisfies((call) -> assertThat(call).startsWith("first.onFailure hung The handler returned after ")
				.endsWith(" ms, past the lease renewal limit (PT1S): it had been abandoned, and its message "
						+ "retried or dead-lettered meanwhile"));
		assertThat(callsOf("hung").get(5)).isEqualTo("first.after hung");
		await().atMost(Duration.ofSeconds(5)).until(() -> engine.admin().stats(this.queue).inFlight() == 0);
		assertThat(engine.admin().stats(this.queue).dead()).isZero();
	}

	@Test
	void anInterceptorThrowingAfterASuccessFailsTheAttemptAndTheHandlerRunsAgain() {
		DelayQueueEngine engine = engine();
		List<Integer> attempts = new CopyOnWriteArrayList<>();
		DelayMessageInterceptor onSuccessFails = new DelayMessageInterceptor() {

			@Override
			public void onSuccess(Object payload, DelayMessageContext context) {
				if (context.attempt() == 1) {
					throw new IllegalStateException("on success, first attempt");
				}
			}

		};
		DelayMessageInterceptor afterFails = new DelayMessageInterceptor() {

			@Override
			public void after(Object payload, DelayMessageContext context) {
				if (context.attempt() == 2) {
					throw new IllegalStateException("after, second attempt");
				}
			}

		};
		start(engine
			.listenerContainer(this.queue, "g", String.class, (payload, context) -> attempts.add(context.attempt()))
			.addInterceptor(onSuccessFails)
			.addInterceptor(afterFails)
			.retryPolicy(RetryPolicy.fixed(3, Duration.ofMillis(50)))
			.build());
		engine.template().send(this.queue, "m", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> attempts.size() == 3);
		await().atMost(Duration.ofSeconds(5)).until(() -> engine.admin().stats(this.queue).inFlight() == 0);
		assertThat(attempts).containsExactly(1, 2, 3);
		assertThat(engine.admin().stats(this.queue).dead()).isZero();
	}

	@Test
	void anInterceptorsFailureOnTheLastAttemptIsTheDeadLettersWithTheHandlersAsSuppressed() {
		DelayQueueEngine engine = engine();
		DelayMessageInterceptor translating = new DelayMessageInterceptor() {

			@Override
			public void onFailure(Object payload, DelayMessageContext context, Throwable failure) {
				throw new UnsupportedOperationException("translated: " + failure.getMessage());
			}

		};
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			throw new IllegalStateException("handler failed");
		}).addInterceptor(translating).maxAttempts(1).build());
		engine.template().send(this.queue, "m", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> engine.admin().stats(this.queue).dead() == 1);
		DeadLetter letter = engine.admin().deadLetters(this.queue, null, 10).get(0);
		// the first failure is the attempt's; the interceptor's is added to it
		assertThat(letter.errorClass()).isEqualTo(IllegalStateException.class.getName());
		assertThat(letter.stackTrace()).contains("Suppressed: java.lang.UnsupportedOperationException: translated");
	}

	@Test
	void aBatchInterceptorFiltersOneMessageAndSeesAPartialFailure() {
		DelayQueueEngine engine = engine();
		List<String> batchCalls = new CopyOnWriteArrayList<>();
		Map<String, Integer> handled = new ConcurrentHashMap<>();
		DelayBatchInterceptor interceptor = new DelayBatchInterceptor() {

			@Override
			public boolean accept(Object payload, DelayMessageContext context) {
				return !"skip".equals(payload);
			}

			@Override
			public void before(List<?> payloads, List<DelayMessageContext> contexts) {
				batchCalls.add("before " + payloads.size());
			}

			@Override
			public void onSuccess(List<?> payloads, List<DelayMessageContext> contexts) {
				batchCalls.add("onSuccess " + payloads);
			}

			@Override
			public void onFailure(List<?> payloads, List<DelayMessageContext> contexts, Throwable failure) {
				batchCalls.add("onFailure " + failure.getClass().getSimpleName() + " "
						+ ((BatchFailedException) failure).getFailures().keySet());
			}

			@Override
			public void after(List<?> payloads, List<DelayMessageContext> contexts) {
				batchCalls.add("after");
			}

		};
		// paused while the messages arrive, so that one batch takes them all
		engine.admin().pause(this.queue);
		DelayQueueListenerContainer container = engine
			.batchListenerContainer(this.queue, "g", String.class, (payloads, contexts) -> {
				Map<Integer, Throwable> failures = new java.util.HashMap<>();
				for (int i = 0; i < payloads.size(); i++) {
					handled.merge(payloads.get(i), 1, Integer::sum);
					if (payloads.get(i).equals("bad") && contexts.get(i).attempt() == 1) {
						failures.put(i, new IllegalStateException("bad"));
					}
				}
				if (!failures.isEmpty()) {
					throw new BatchFailedException(failures);
				}
			})
			.addBatchInterceptor(interceptor)
			.batchSize(10)
			// one batch takes all four, whatever the reads that bring them
			.batchWait(Duration.ofMillis(700))
			.concurrency(1)
			.retryPolicy(RetryPolicy.fixed(3, Duration.ofMillis(50)))
			.build();
		start(container);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (String payload : List.of("a", "skip", "bad", "b")) {
			messages.add(DelayMessage.builder(payload).queue(this.queue).key("k").build());
		}
		engine.template().sendAll(messages);
		sleep(1000);
		engine.admin().resume(this.queue);
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.getOrDefault("bad", 0) == 2);
		await().atMost(Duration.ofSeconds(5)).until(() -> engine.admin().stats(this.queue).inFlight() == 0);
		assertThat(handled).doesNotContainKey("skip").containsEntry("a", 1).containsEntry("b", 1);
		assertThat(batchCalls).startsWith("before 3", "onFailure BatchFailedException [1]", "after", "before 1",
				"onSuccess [bad]", "after");
		assertThat(engine.admin().stats(this.queue).dead()).isZero();
	}

	@Test
	void deadLetterHandlersAreInterceptedAndCanBeFilteredOut() {
		DelayQueueEngine engine = engine();
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			throw new IllegalStateException("always");
		}).maxAttempts(1).build());
		List<String> handled = new CopyOnWriteArrayList<>();
		List<String> seen = new CopyOnWriteArrayList<>();
		DeadLetterConsumer consumer = engine.deadLetterConsumer(this.queue, "g", "test", String.class,
				(payload, letter) -> handled.add(payload));
		consumer.addInterceptor(new DelayMessageInterceptor() {

			@Override
			public boolean before(Object payload, DelayMessageContext context) {
				DeadLetterContext letter = (DeadLetterContext) context;
				seen.add(payload + " " + letter.letter().errorClass() + " " + context.attempt());
				return !"skip".equals(payload);
			}

		});
		consumer.start();
		try {
			engine.template().send(this.queue, "skip", Duration.ZERO);
			engine.template().send(this.queue, "keep", Duration.ZERO);
			await().atMost(Duration.ofSeconds(15)).until(() -> seen.size() == 2);
			await().atMost(Duration.ofSeconds(5)).until(() -> handled.size() == 1);
			assertThat(handled).containsExactly("keep");
			assertThat(seen).contains("skip java.lang.IllegalStateException 1");
			assertThatIllegalStateException().isThrownBy(() -> consumer.addInterceptor(new First()))
				.withMessageContaining("before it starts");
		}
		finally {
			consumer.stop();
		}
	}

	@Test
	void anInterceptorOfTheWrongKindIsRefusedNamingTheListener() {
		DelayQueueEngine engine = engine();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> engine.batchListenerContainer(this.queue, "g", String.class, (payloads, contexts) -> {
			}).addInterceptor(new First()))
			.withMessageContaining("batch listener of queue '" + this.queue + "', group 'g'")
			.withMessageContaining("takes DelayBatchInterceptors");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			}).addBatchInterceptor(new DelayBatchInterceptor() {
			}))
			.withMessageContaining("handles one message at a time");
	}

}
