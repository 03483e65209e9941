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

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

/**
 * Redis hung ({@code SIGSTOP}) under a client whose command timeout is a new Spring Boot
 * user's 60 s: every public method of the template, the admin, the schedules and the
 * outbox, called by reflection (a method added later is called too, or the test says
 * which argument it lacks), returns or fails within the engine's operation timeout (1 s
 * here), on queues this engine has not used yet, whose first use registers them. And the
 * outbox relay, whose batch spans queues, fails its step within that bound too, and
 * delivers once Redis answers again.
 */
@Tag("faults")
class HungRedisTests {

	private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * The longest a call may take: a sendAll with a durability waits for each of its two
	 * chunks and the replicas (1 s + 1 s + 0.5 s); the rest one bound; and the machine's
	 * noise.
	 */
	private static final long LIMIT_MILLIS = 3500;

	private static RedisServer redis;

	private static LettuceConnectionFactory factory;

	private static SimpleDriverDataSource database;

	private static DelayQueueEngine engine;

	private final AtomicInteger queues = new AtomicInteger();

	@BeforeAll
	static void start() {
		redis = RedisServer.builder().start();
		factory = RedisServerExtension.connectionFactory(redis, Duration.ofSeconds(60));
		database = new SimpleDriverDataSource(new org.h2.Driver(), "jdbc:h2:mem:hung;DB_CLOSE_DELAY=-1");
		engine = DelayQueueEngine.builder(factory)
			.operationTimeout(OPERATION_TIMEOUT)
			.outbox(database, (outbox) -> outbox.initializeSchema(true).pollInterval(Duration.ofMillis(200)))
			.build();
		engine.template().send("warm-up", "x", Duration.ofHours(1));
	}

	@AfterAll
	static void stop() {
		try {
			redis.resume();
			engine.close();
		}
		finally {
			factory.destroy();
			redis.close();
		}
	}

	@Test
	void everyPublicOperationReturnsOrFailsWithinTheOperationTimeout() throws Exception {
		List<Object> targets = List.of(engine.template(), engine.admin(), engine.admin().schedules(), engine.outbox());
		List<String> slow = new ArrayList<>();
		List<String> called = new ArrayList<>();
		redis.pause();
		try {
			for (Object target : targets) {
				for (Method method : publicMethods(target.getClass())) {
					String name = target.getClass().getSimpleName() + "." + method.getName()
							+ Arrays.toString(method.getParameterTypes());
					long started = System.nanoTime();
					String outcome = call(target, method);
					long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
					called.add(name + ": " + millis + " ms, " + outcome);
					if (millis > LIMIT_MILLIS) {
						slow.add(name + " took " + millis + " ms (" + outcome + ")");
					}
					assertThat(Thread.currentThread().isInterrupted()).as("an interrupt leaked from %s", name)
						.isFalse();
				}
			}
		}
		finally {
			redis.resume();
		}
		System.out.println("With Redis hung:\n  " + String.join("\n  ", called));
		assertThat(called).hasSizeGreaterThanOrEqualTo(55);
		assertThat(slow).as("operations over %d ms with Redis hung", LIMIT_MILLIS).isEmpty();
		// and the engine works again
		assertThat(engine.template().send(fresh(), "after", Duration.ZERO).status()).isEqualTo(SendResult.Status.READY);
	}

	@Test
	void theOutboxRelayFailsItsStepWithinTheBoundAndDeliversOnceRedisAnswers() {
		TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(database));
		String first = fresh();
		String second = fresh();
		redis.pause();
		long paused = System.nanoTime();
		try {
			// a batch of the relay spanning two queues this engine has not used yet
			transactions.executeWithoutResult((status) -> engine.template()
				.sendAllWithOutbox(List.of(DelayMessage.builder("a").queue(first).id("a").build(),
						DelayMessage.builder("b").queue(second).id("b").build())));
			await().atMost(Duration.ofMillis(LIMIT_MILLIS + 1000)).until(() -> engine.outbox().lastFailure() != null);
			assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - paused)).isLessThan(LIMIT_MILLIS + 1000);
			assertThat(engine.outbox().lastFailure()).hasMessageContaining("Redis did not answer within 1000 ms");
			assertThat(engine.outbox().backlog().rows()).isEqualTo(2);
		}
		finally {
			redis.resume();
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> engine.outbox().backlog().rows() == 0);
		assertThat(engine.admin().stats(first).ready() + engine.admin().stats(second).ready()).isEqualTo(2);
		await().atMost(Duration.ofSeconds(5)).until(() -> engine.outbox().isHealthy());
	}

	@Test
	void migrationsFailWithinTheBoundWhileRedisIsHung() {
		List<Runnable> migrations = List.of(() -> RedissonMigration.from(fresh()).build().migrate(engine),
				() -> ZSetMigration.from("legacy-" + fresh()).to(fresh()).build().migrate(engine));
		redis.pause();
		try {
			for (Runnable migration : migrations) {
				long started = System.nanoTime();
				org.assertj.core.api.Assertions.assertThatThrownBy(migration::run)
					.isInstanceOf(DelayQueueException.class)
					.hasMessageContaining("did not answer");
				assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(LIMIT_MILLIS);
			}
		}
		finally {
			redis.resume();
		}
	}

	private static List<Method> publicMethods(Class<?> type) {
		return Arrays.stream(type.getDeclaredMethods())
			.filter((method) -> Modifier.isPublic(method.getModifiers()) && !Modifier.isStatic(method.getModifiers())
					&& !method.isSynthetic() && !method.isBridge())
			.sorted(Comparator.comparing(Method::getName).thenComparing((method) -> method.getParameterCount()))
			.toList();
	}

	/** Calls a method with arguments made for it; returns what happened. */
	private String call(Object target, Method method) throws Exception {
		Object[] args = new Object[method.getParameterCount()];
		Parameter[] parameters = method.getParameters();
		for (int i = 0; i < args.length; i++) {
			args[i] = argument(method, parameters[i]);
		}
		Object result;
		try {
			result = method.invoke(target, args);
		}
		catch (InvocationTargetException ex) {
			return "threw " + ex.getCause();
		}
		if (result instanceof CompletableFuture<?> future) {
			try {
				return "future completed with " + future.get(LIMIT_MILLIS, TimeUnit.MILLISECONDS);
			}
			catch (ExecutionException ex) {
				return "future failed with " + ex.getCause();
			}
			catch (TimeoutException ex) {
				return "future still running after " + LIMIT_MILLIS + " ms";
			}
		}
		return "returned " + result;
	}

	private Object argument(Method method, Parameter parameter) {
		Class<?> type = parameter.getType();
		String name = parameter.getName();
		if (type == String.class) {
			return switch (name) {
				case "queue" -> fresh();
				case "id" -> "m-1";
				case "entryId" -> "1-0";
				case "group" -> "g";
				case "name" -> "s";
				case "after" -> null;
				default -> fail("No String argument for '" + name + "' of " + method);
			};
		}
		if (type == Object.class) {
			return "payload";
		}
		if (type == Duration.class) {
			return Duration.ofMinutes(1);
		}
		if (type == Instant.class) {
			return Instant.now().plus(Duration.ofHours(1));
		}
		if (type == DelayMessage.class) {
			return DelayMessage.builder("x").queue(fresh()).build();
		}
		if (type == java.util.Collection.class) {
			return List.of(DelayMessage.builder("x").queue(fresh()).build(),
					DelayMessage.builder("y").queue(fresh()).build());
		}
		if (type == Durability.class) {
			return Durability.replicas(1, Duration.ofMillis(500));
		}
		if (type == int.class) {
			return name.equals("partitions") ? 2 : 10;
		}
		if (type == long.class) {
			return 100L;
		}
		if (type == RateLimit.class) {
			return RateLimit.parse("5/1s");
		}
		if (type == ConcurrencyLimit.class) {
			return ConcurrencyLimit.of(3);
		}
		if (type == InFlightMessage.Order.class) {
			return InFlightMessage.Order.IDLE;
		}
		if (type == QueueHistory.Span.class) {
			return QueueHistory.Span.HOUR;
		}
		if (type == DelaySchedules.Action.class) {
			return DelaySchedules.Action.TRIGGER;
		}
		if (type == DeadLetterError.class) {
			return new DeadLetterError(IllegalStateException.class.getName(), "declined ", 1, Instant.now());
		}
		if (type == DelaySchedule.class) {
			return DelaySchedule.builder("s", fresh()).every(Duration.ofHours(1)).payload("tick").build();
		}
		return fail("No argument of type " + type + " for '" + name + "' of " + method);
	}

	private String fresh() {
		return "hung-" + this.queues.incrementAndGet();
	}

}
