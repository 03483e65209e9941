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

import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import io.netty.buffer.Unpooled;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RBlockingQueue;
import org.redisson.api.RDelayedQueue;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.codec.JsonJacksonCodec;
import org.redisson.codec.Kryo5Codec;
import org.redisson.codec.SerializationCodec;
import org.redisson.codec.TypedJsonJacksonCodec;
import org.redisson.config.Config;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.zset.Tuple;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@link RedissonMigration} against real Redisson ({@code RDelayedQueue}, 3.45.1) writing
 * into a launched Redis as its users do: every message delivered once by delayqueue,
 * never before the due time Redisson stored, and nothing left in Redisson's keys.
 */
@RedisTest
class RedissonMigrationTests extends QueueTestFixture {

	private final RedisServer redis;

	private RedissonClient redisson;

	RedissonMigrationTests(RedisServer redis, RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
		this.redis = redis;
	}

	@BeforeEach
	void startRedisson() {
		Config config = new Config();
		config.useSingleServer().setAddress("redis://127.0.0.1:" + this.redis.port());
		this.redisson = Redisson.create(config);
	}

	@AfterEach
	void stopRedisson() {
		if (!this.redisson.isShutdown()) {
			this.redisson.shutdown();
		}
	}

	/** One delivery: the payload, and when (epoch ms). */
	record Delivered(String payload, long at) {
	}

	@Test
	void tenThousandMessagesSomeDueAlreadyAreEachDeliveredOnceNeverEarlyAndNothingIsLeftInRedisson() throws Exception {
		RBlockingQueue<String> destination = this.redisson.getBlockingQueue(this.queue, StringCodec.INSTANCE);
		RDelayedQueue<String> delayed = this.redisson.getDelayedQueue(destination);
		for (int i = 0; i < 1000; i++) {
			delayed.offer("due-" + i, 1, TimeUnit.MILLISECONDS);
		}
		for (int i = 0; i < 9000; i++) {
			delayed.offer("later-" + i, 10_000 + (i % 16_000), TimeUnit.MILLISECONDS);
		}
		// Redisson moves what is due into its destination list
		await().atMost(Duration.ofSeconds(20)).until(() -> destination.size() >= 1000);
		Map<String, Long> dueTimes = dueTimes(this.queue);
		assertThat(dueTimes.size() + destination.size()).isEqualTo(10_000);
		this.redisson.shutdown();

		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory));
		MigrationResult result = RedissonMigration.from(this.queue).build().migrate(engine);
		assertThat(result.finished()).isTrue();
		assertThat(result.scheduled() + result.ready()).isEqualTo(10_000);
		assertThat(result.ready()).isGreaterThanOrEqualTo(1000);
		assertThat(leftInRedisson(this.queue)).isZero();
		// run again: nothing more to move
		assertThat(RedissonMigration.from(this.queue).build().migrate(engine))
			.isEqualTo(new MigrationResult(this.queue, this.queue, 0, 0, 0, 0));

		Map<String, List<Long>> delivered = new ConcurrentHashMap<>();
		start(engine
			.listenerContainer(this.queue, "orders", String.class,
					(payload, context) -> delivered.computeIfAbsent(payload, (key) -> new CopyOnWriteArrayList<>())
						.add(System.currentTimeMillis()))
			.concurrency(16)
			.build());
		await().atMost(Duration.ofSeconds(60)).until(() -> delivered.size() == 10_000);
		sleep(1000);
		assertThat(delivered.values()).allMatch((times) -> times.size() == 1);
		// never before the due time Redisson stored (both clocks are this machine's)
		dueTimes.forEach(
				(payload, due) -> assertThat(delivered.get(payload).get(0)).as(payload).isGreaterThanOrEqualTo(due));
	}

	@Test
	void aRunStoppedByItsTimeLimitGoesOnWhereItStoppedWithoutDuplicates() {
		RDelayedQueue<String> delayed = this.redisson
			.getDelayedQueue(this.redisson.getBlockingQueue(this.queue, StringCodec.INSTANCE));
		for (int i = 0; i < 500; i++) {
			delayed.offer("m-" + i, 10, TimeUnit.MINUTES);
		}
		this.redisson.shutdown();
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory));
		MigrationResult first = RedissonMigration.from(this.queue)
			.chunkSize(50)
			.timeLimit(Duration.ofNanos(1))
			.build()
			.migrate(engine);
		// the chunk under way ends, then it stops
		assertThat(first.scheduled()).isEqualTo(50);
		assertThat(first.left()).isEqualTo(450);
		assertThat(first.finished()).isFalse();
		MigrationResult rest = RedissonMigration.from(this.queue).chunkSize(50).build().migrate(engine);
		assertThat(rest.scheduled()).isEqualTo(450);
		assertThat(rest.finished()).isTrue();
		assertThat(engine.admin().stats(this.queue).scheduled()).isEqualTo(500);
		assertThat(leftInRedisson(this.queue)).isZero();
	}

	@Test
	void aRedissonConsumerRunningMeanwhileAndTheMigrationDeliverEachMessageOnce() throws Exception {
		RBlockingQueue<String> destination = this.redisson.getBlockingQueue(this.queue, StringCodec.INSTANCE);
		RDelayedQueue<String> delayed = this.redisson.getDelayedQueue(destination);
		for (int i = 0; i < 2000; i++) {
			delayed.offer("m-" + i, 200 + (i % 3000), TimeUnit.MILLISECONDS);
		}
		List<String> byRedisson = new CopyOnWriteArrayList<>();
		AtomicBoolean consuming = new AtomicBoolean(true);
		Thread consumer = new Thread(() -> {
			while (consuming.get()) {
				try {
					String taken = destination.poll(100, TimeUnit.MILLISECONDS);
					if (taken != null) {
						byRedisson.add(taken);
					}
				}
				catch (InterruptedException ex) {
					return;
				}
				catch (RuntimeException ex) {
					// shut down
				}
			}
		});
		consumer.start();
		sleep(1500);
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory));
		List<String> byDelayqueue = new CopyOnWriteArrayList<>();
		start(engine
			.listenerContainer(this.queue, "orders", String.class, (payload, context) -> byDelayqueue.add(payload))
			.build());
		MigrationResult result = RedissonMigration.from(this.queue).chunkSize(20).build().migrate(engine);
		assertThat(result.finished()).isTrue();
		await().atMost(Duration.ofSeconds(30)).until(() -> byRedisson.size() + byDelayqueue.size() >= 2000);
		sleep(1000);
		consuming.set(false);
		consumer.join(5000);
		assertThat(byRedisson).isNotEmpty();
		assertThat(byDelayqueue).isNotEmpty();
		List<String> all = new java.util.ArrayList<>(byRedisson);
		all.addAll(byDelayqueue);
		assertThat(all).hasSize(2000).doesNotHaveDuplicates();
		assertThat(leftInRedisson(this.queue)).isZero();
	}

	/** A payload of Redisson's JSON codec, read by a listener of the same shape. */
	public record Order(String id, int amount) implements Serializable {
	}

	@Test
	void jsonAndKryoPayloadsArriveAsTheirValues() {
		String kryoQueue = this.queue + "-kryo";
		this.redisson.getDelayedQueue(this.redisson.getBlockingQueue(this.queue, new JsonJacksonCodec()))
			.offer(new Order("o-1", 42), 1, TimeUnit.MINUTES);
		this.redisson.getDelayedQueue(this.redisson.getBlockingQueue(kryoQueue, new Kryo5Codec()))
			.offer("kryo-text", 1, TimeUnit.MINUTES);
		this.redisson.shutdown();
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory));
		RedissonMigration.from(this.queue).payload(MigrationPayload.json()).build().migrate(engine);
		Kryo5Codec kryo = new Kryo5Codec();
		RedissonMigration.from(kryoQueue).payload((stored) -> {
			try {
				return kryo.getValueDecoder().decode(Unpooled.wrappedBuffer(stored), null);
			}
			catch (java.io.IOException ex) {
				throw new java.io.UncheckedIOException(ex);
			}
		}).build().migrate(engine);
		ScheduledMessage json = engine.admin().scheduled(this.queue, null, 10).get(0);
		// Redisson's JSON codec adds "@class" to a bean; the conversion removes it
		assertThat(new String(json.payload(), StandardCharsets.UTF_8)).contains("\"id\":\"o-1\"", "\"amount\":42")
			.doesNotContain("@class");
		ScheduledMessage text = engine.admin().scheduled(kryoQueue, null, 10).get(0);
		assertThat(new String(text.payload(), StandardCharsets.UTF_8)).isEqualTo("kryo-text");
		assertThat(json.dueTime()).isAfter(java.time.Instant.now().plusSeconds(50));
	}

	/**
	 * A bean of an application still on Jackson 2: a {@code com.fasterxml} databind
	 * annotation that Jackson 3 ignores.
	 */
	public static final class Legacy implements Serializable {

		private static final long serialVersionUID = 1L;

		public String id;

		@com.fasterxml.jackson.databind.annotation.JsonDeserialize(using = Cents.class)
		public long cents;

	}

	/** Reads "12.50" as 1250: Jackson 2 only. */
	public static final class Cents extends com.fasterxml.jackson.databind.JsonDeserializer<Long> {

		@Override
		public Long deserialize(com.fasterxml.jackson.core.JsonParser parser,
				com.fasterxml.jackson.databind.DeserializationContext context) throws java.io.IOException {
			return new BigDecimal(parser.getValueAsString()).movePointRight(2).longValueExact();
		}

	}

	@Test
	void redissonsJsonPayloadsArriveThroughAnApplicationsJackson2Mapper() {
		RDelayedQueue<Object> json = this.redisson
			.getDelayedQueue(this.redisson.getBlockingQueue(this.queue, new JsonJacksonCodec()));
		for (int i = 0; i < 20; i++) {
			Map<String, Object> legacy = new LinkedHashMap<>();
			legacy.put("id", "l-" + i);
			legacy.put("cents", i + ".50");
			json.offer(legacy, 1, TimeUnit.MILLISECONDS);
		}
		sleep(200);
		this.redisson.shutdown();
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory)
			.codec(new io.github.delayqueue.core.codec.Jackson2MessageCodec(
					new com.fasterxml.jackson.databind.ObjectMapper())));
		assertThat(
				RedissonMigration.from(this.queue).payload(MigrationPayload.json()).build().migrate(engine).finished())
			.isTrue();
		Map<String, Long> received = new ConcurrentHashMap<>();
		start(engine
			.listenerContainer(this.queue, "legacy", Legacy.class,
					(legacy, context) -> received.put(legacy.id, legacy.cents))
			.build());
		await().atMost(Duration.ofSeconds(30)).until(() -> received.size() == 20);
		// the Jackson 2 deserializer ran: "3.50" became 350
		assertThat(received).containsEntry("l-3", 350L).containsEntry("l-19", 1950L);
		assertThat(engine.admin().deadLetters(this.queue, null, 10)).isEmpty();
	}

	/** Where a plain enum and an enum in an {@code Object} field go. */
	public enum Colour {

		RED, GREEN

	}

	/**
	 * An ordinary bean: every field Redisson's JSON codec types, in one or the other
	 * form.
	 */
	public record Bean(String id, Long big, List<String> tags, Set<Integer> numbers, Map<String, Object> attributes,
			Object anything, Object listAsObject, Order nested, List<Order> orders, BigDecimal price, Date at,
			String[] pair, long[] counts, Colour colour, Object colourAsObject,
			Object[] objects) implements Serializable {
	}

	static Bean bean(int i) {
		Map<String, Object> attributes = new LinkedHashMap<>();
		attributes.put("n", 1_099_511_627_776L + i);
		attributes.put("list", new ArrayList<>(List.of("x", "y")));
		attributes.put("text", "t" + i);
		return new Bean("b-" + i, 1_099_511_627_786L + i, new ArrayList<>(List.of("t" + i, "é")),
				new LinkedHashSet<>(List.of(i, i + 1)), attributes, 5_000_000_000L + i,
				new ArrayList<>(List.of("java.lang.Long", "x")), new Order("o-" + i, i),
				new ArrayList<>(List.of(new Order("p", 1))), new BigDecimal("12345678901234567.50"),
				new Date(1_700_000_000_000L + i), new String[] { "a", "b" }, new long[] { i, 7 }, Colour.GREEN,
				Colour.RED, new Object[] { 6_000_000_000L, "s" });
	}

	@Test
	void beansWithListsSetsLongsAndObjectsOfRedissonsJsonCodecsArriveAsTheirValues() throws Exception {
		String typed = this.queue + "-typed";
		String serialized = this.queue + "-serialized";
		RDelayedQueue<Bean> json = this.redisson
			.getDelayedQueue(this.redisson.getBlockingQueue(this.queue, new JsonJacksonCodec()));
		for (int i = 0; i < 200; i++) {
			json.offer(bean(i), (i < 100) ? 1 : 8_000, TimeUnit.MILLISECONDS);
		}
		this.redisson.getDelayedQueue(this.redisson.getBlockingQueue(typed, new TypedJsonJacksonCodec(Bean.class)))
			.offer(bean(1000), 1, TimeUnit.MILLISECONDS);
		this.redisson.getDelayedQueue(this.redisson.getBlockingQueue(serialized, new SerializationCodec()))
			.offer(bean(2000), 1, TimeUnit.MILLISECONDS);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			byte[] stored = connection.zSetCommands()
				.zRange(("redisson_delay_queue_timeout:{" + this.queue + "}").getBytes(StandardCharsets.UTF_8), 0, 0)
				.iterator()
				.next();
			// both forms of Redisson's typing are in what it stored
			assertThat(new String(stored, StandardCharsets.UTF_8)).contains("\"@class\"", "[\"java.lang.Long\",",
					"[\"java.util.ArrayList\",");
		}
		sleep(500);
		this.redisson.shutdown();

		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory));
		// the default conversion refuses bytes that are not text, naming the entry
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedissonMigration.from(serialized).build().migrate(engine))
			.withMessageStartingWith("Cannot convert the payload of the entry '\\xac\\xed\\x00\\x05")
			.withMessageContaining("' (due already, in its destination list) of Redisson queue '" + serialized + "' (")
			.withMessageContaining("bytes): it is not UTF-8 text: byte 0 is 0xac (MigrationPayload.bytes() keeps the"
					+ " bytes as they are); choose the payload conversion it was written with: nothing of its chunk"
					+ " was moved");
		assertThat(
				RedissonMigration.from(this.queue).payload(MigrationPayload.json()).build().migrate(engine).finished())
			.isTrue();
		assertThat(RedissonMigration.from(typed).payload(MigrationPayload.json()).build().migrate(engine).finished())
			.isTrue();
		SerializationCodec codec = new SerializationCodec();
		assertThat(RedissonMigration.from(serialized).payload((stored) -> {
			try {
				return codec.getValueDecoder().decode(Unpooled.wrappedBuffer(stored), null);
			}
			catch (java.io.IOException ex) {
				throw new java.io.UncheckedIOException(ex);
			}
		}).build().migrate(engine).finished()).isTrue();

		Map<String, Bean> received = new ConcurrentHashMap<>();
		for (String name : List.of(this.queue, typed, serialized)) {
			start(engine.listenerContainer(name, "beans", Bean.class, (bean, context) -> received.put(bean.id(), bean))
				.build());
		}
		await().atMost(Duration.ofSeconds(90)).until(() -> received.size() == 202);
		assertThat(engine.admin().deadLetters(this.queue, null, 10)).isEmpty();
		for (int i : new int[] { 0, 99, 150, 1000, 2000 }) {
			Bean sent = bean(i);
			assertThat(received.get("b-" + i)).as("bean %s", i)
				.usingRecursiveComparison()
				.ignoringFields("attributes", "anything", "listAsObject", "colourAsObject", "objects", "numbers")
				.isEqualTo(sent);
			Bean got = received.get("b-" + i);
			assertThat(got.numbers()).containsExactlyInAnyOrderElementsOf(sent.numbers());
			assertThat(got.attributes()).isEqualTo(sent.attributes());
			assertThat(got.anything()).isEqualTo(sent.anything());
			// a list of two strings, the first a class name, stays a list
			assertThat(got.listAsObject()).isEqualTo(List.of("java.lang.Long", "x"));
			assertThat(got.colourAsObject()).isEqualTo("RED");
			assertThat(got.objects()).containsExactly(6_000_000_000L + 0L, "s");
		}
	}

	@Test
	void anEntryNotInRedissonsFormatIsRefusedAndNothingOfItsChunkMoves() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.zSetCommands()
				.zAdd(("redisson_delay_queue_timeout:{" + this.queue + "}").getBytes(StandardCharsets.UTF_8), 1,
						"not-redisson".getBytes(StandardCharsets.UTF_8));
		}
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> RedissonMigration.from(this.queue).build().migrate(engine))
			.withMessage("The entry 'not-redisson' (score 1, 12 bytes) of Redisson queue '" + this.queue
					+ "' is not in the format of Redisson's delayed queue (a random id, then the value's length and the"
					+ " value): the migration supports Redisson 3.x; nothing of its chunk was moved");
		assertThat(leftInRedisson(this.queue)).isEqualTo(1);
		assertThatIllegalArgumentException().isThrownBy(() -> RedissonMigration.from(this.queue).chunkSize(0))
			.withMessage("Chunk size must be from 1 to 1000, but was 0");
		assertThatIllegalArgumentException().isThrownBy(() -> RedissonMigration.from(""))
			.withMessage("The Redisson queue's name must not be null or empty");
	}

	/** The due time Redisson stored for each waiting payload (StringCodec). */
	private Map<String, Long> dueTimes(String name) {
		Map<String, Long> due = new ConcurrentHashMap<>();
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (Tuple tuple : connection.zSetCommands()
				.zRangeWithScores(("redisson_delay_queue_timeout:{" + name + "}").getBytes(StandardCharsets.UTF_8), 0,
						-1)) {
				byte[] member = tuple.getValue();
				int idLength = member[0] & 0xff;
				String payload = new String(member, 1 + idLength + 8, member.length - 1 - idLength - 8,
						StandardCharsets.UTF_8);
				due.put(payload, (long) tuple.getScore().doubleValue());
			}
		}
		return due;
	}

	/** The entries left in Redisson's three keys of a queue. */
	private long leftInRedisson(String name) {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Long timeouts = connection.zSetCommands()
				.zCard(("redisson_delay_queue_timeout:{" + name + "}").getBytes(StandardCharsets.UTF_8));
			Long list = connection.listCommands()
				.lLen(("redisson_delay_queue:{" + name + "}").getBytes(StandardCharsets.UTF_8));
			Long ready = connection.listCommands().lLen(name.getBytes(StandardCharsets.UTF_8));
			return timeouts + list + ready;
		}
	}

}
