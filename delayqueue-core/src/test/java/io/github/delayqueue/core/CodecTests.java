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

import java.lang.reflect.Type;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.codec.JsonMessageCodec;
import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.codec.MessageDecodingException;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The default JSON codec against a real Redis: payloads arrive as the listener's declared
 * type, raw bytes and strings pass through unchanged, an undecodable payload is
 * dead-lettered at once with the reason, and type hints in a payload never make the codec
 * instantiate a class the listener did not declare.
 */
@Tag("faults")
@RedisTest
class CodecTests {

	private final RedisConnectionFactory connectionFactory;

	private final DelayQueueEngine engine;

	private final List<DelayQueueListenerContainer> containers = new ArrayList<>();

	private final List<DelayQueueEngine> engines = new ArrayList<>();

	private String queue;

	CodecTests(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
		this.engine = DelayQueueEngine.builder(connectionFactory).build();
		this.engines.add(this.engine);
	}

	@BeforeEach
	void queueName(TestInfo info) {
		this.queue = info.getTestMethod().orElseThrow().getName();
		Gadget.created.set(0);
	}

	@AfterEach
	void stopContainers() {
		this.containers.forEach(DelayQueueListenerContainer::stop);
		this.engines.forEach(DelayQueueEngine::close);
	}

	private <T> BlockingQueue<T> listen(DelayQueueEngine engine, String group, Class<T> type) {
		BlockingQueue<T> received = new LinkedBlockingQueue<>();
		DelayQueueListenerContainer container = engine
			.listenerContainer(this.queue, group, type, (payload, context) -> received.add(payload))
			.concurrency(1)
			.pollTimeout(Duration.ofMillis(300))
			.visibilityTimeout(Duration.ofSeconds(2))
			.retryPolicy(RetryPolicy.fixed(5, Duration.ofMillis(100)))
			.build();
		container.start();
		this.containers.add(container);
		return received;
	}

	private void send(Object payload) {
		this.engine.template().send(this.queue, payload, Duration.ZERO);
	}

	@Test
	void decodesJsonRecordsToTheDeclaredType() throws Exception {
		BlockingQueue<Order> received = listen(this.engine, "g", Order.class);
		Order order = new Order("order-42", 1999, List.of("book", "pen"), Instant.parse("2026-01-02T03:04:05.678Z"),
				Map.of("tenant", "acme", "note", "naïve ✓"));
		send(order);
		assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo(order);
	}

	@Test
	void decodesJsonToAPlainJavaObject() throws Exception {
		BlockingQueue<Customer> received = listen(this.engine, "g", Customer.class);
		Customer customer = new Customer();
		customer.setName("Ada");
		customer.setAge(36);
		send(customer);
		assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo(customer).isNotSameAs(customer);
	}

	@Test
	void passesBytesAndStringsThroughUnchanged() throws Exception {
		byte[] everyByte = new byte[256];
		for (int i = 0; i < everyByte.length; i++) {
			everyByte[i] = (byte) i;
		}
		String text = "héllo \"wörld\" ✓ {not: json} \u0000 end";
		BlockingQueue<byte[]> bytes = listen(this.engine, "bytes", byte[].class);
		BlockingQueue<String> strings = listen(this.engine, "strings", String.class);
		send(everyByte);
		assertThat(bytes.poll(5, TimeUnit.SECONDS)).isEqualTo(everyByte);
		assertThat(strings.poll(5, TimeUnit.SECONDS)).isEqualTo(new String(everyByte, StandardCharsets.UTF_8));
		send(text);
		assertThat(bytes.poll(5, TimeUnit.SECONDS)).isEqualTo(text.getBytes(StandardCharsets.UTF_8));
		assertThat(strings.poll(5, TimeUnit.SECONDS)).isEqualTo(text);
		send(text.getBytes(StandardCharsets.UTF_8));
		assertThat(bytes.poll(5, TimeUnit.SECONDS)).isEqualTo(text.getBytes(StandardCharsets.UTF_8));
		assertThat(strings.poll(5, TimeUnit.SECONDS)).isEqualTo(text);
	}

	@Test
	void deadLettersAnUndecodablePayloadAtOnceWithTheReason() throws Exception {
		BlockingQueue<Order> received = listen(this.engine, "g", Order.class);
		send("not json");
		send("{\"id\":\"order-1\",\"amountCents\":\"a lot\"}");
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).dead() == 2);
		List<DeadLetter> dead = this.engine.admin().deadLetters(this.queue, null, 10);
		assertThat(dead).hasSize(2).allSatisfy((letter) -> {
			assertThat(letter.group()).isEqualTo("g");
			assertThat(letter.attempts()).isEqualTo(1);
			assertThat(letter.errorClass()).isEqualTo(MessageDecodingException.class.getName());
			assertThat(letter.errorMessage()).contains("Cannot decode payload as").contains(Order.class.getName());
		});
		assertThat(dead).extracting(DeadLetter::payloadAsString)
			.containsExactly("not json", "{\"id\":\"order-1\",\"amountCents\":\"a lot\"}");
		assertThat(received.poll(500, TimeUnit.MILLISECONDS)).as("the handler never sees them").isNull();
		QueueStats stats = this.engine.admin().stats(this.queue);
		assertThat(stats.inFlight()).isZero();
		assertThat(stats.groups()).singleElement()
			.satisfies((group) -> assertThat(group.retryScheduled()).as("no retry").isZero());
		assertThat(stats.dead()).as("still exactly two: never retried").isEqualTo(2);
	}

	@Test
	void deadLettersAStreamEntryItCannotReadBesideUndecodableMessages() throws Exception {
		BlockingQueue<Order> received = listen(this.engine, "g", Order.class);
		for (int i = 0; i < 11; i++) {
			send("not json " + i);
		}
		// an entry some other program wrote: no message id, no envelope
		try (org.springframework.data.redis.connection.RedisConnection connection = this.connectionFactory
			.getConnection()) {
			connection.streamCommands()
				.xAdd(QueueKeys.bytes(this.engine.keys(this.queue).stream()),
						Map.of(QueueKeys.bytes("x"), QueueKeys.bytes("y")));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.engine.admin().stats(this.queue).dead() == 12);
		List<DeadLetter> dead = this.engine.admin().deadLetters(this.queue, null, 20);
		assertThat(dead).hasSize(12).allSatisfy((letter) -> {
			assertThat(letter.group()).isEqualTo("g");
			assertThat(letter.errorClass()).isEqualTo(MessageDecodingException.class.getName());
		});
		assertThat(dead).filteredOn((letter) -> letter.errorMessage().contains("not a message of this library"))
			.singleElement()
			.satisfies((letter) -> {
				assertThat(letter.errorMessage()).contains("no field 'e'").contains("fields: x");
				assertThat(letter.payloadAsString()).as("what it could not read is kept").isEqualTo("x=y\n");
			});
		assertThat(received.poll(300, TimeUnit.MILLISECONDS)).isNull();
		assertThat(this.engine.admin().stats(this.queue).inFlight()).isZero();
	}

	@Test
	void deadLettersAScheduledMemberWhoseEnvelopeIsMissingInsteadOfDroppingIt() throws Exception {
		BlockingQueue<String> received = listen(this.engine, "g", String.class);
		this.engine.template().send(this.queue, "fine", Duration.ZERO);
		assertThat(received.poll(5, TimeUnit.SECONDS)).isEqualTo("fine");
		// a member of the schedule with no envelope beside it
		try (org.springframework.data.redis.connection.RedisConnection connection = this.connectionFactory
			.getConnection()) {
			connection.zSetCommands()
				.zAdd(QueueKeys.bytes(this.engine.keys(this.queue).delayed()), System.currentTimeMillis(),
						QueueKeys.bytes("orphan"));
			// the wake-up a script publishes for a new head of the schedule
			connection.publish(QueueKeys.bytes(this.engine.keys(this.queue).wakeChannel()),
					QueueKeys.bytes(String.valueOf(System.currentTimeMillis())));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> this.engine.admin().stats(this.queue).dead() == 1);
		DeadLetter letter = this.engine.admin().deadLetters(this.queue, null, 1).get(0);
		assertThat(letter.messageId()).isEqualTo("orphan");
		assertThat(letter.errorClass()).isEqualTo(MessageDecodingException.class.getName());
		assertThat(letter.errorMessage()).startsWith("The stream entry of message 'orphan' has no envelope");
		assertThat(received.poll(300, TimeUnit.MILLISECONDS)).isNull();
		// moved once: out of the schedule, one dead letter
		assertThat(this.engine.admin().stats(this.queue).dead()).isEqualTo(1);
		assertThat(this.engine.admin().stats(this.queue).scheduled()).isZero();
	}

	@Test
	void deadLettersAJsonNullUnlessTheHandlerAcceptsNull() throws Exception {
		BlockingQueue<Order> received = listen(this.engine, "strict", Order.class);
		List<Object> lenient = new java.util.concurrent.CopyOnWriteArrayList<>();
		DelayQueueListenerContainer container = this.engine
			.listenerContainer(this.queue, "lenient", Order.class, new DelayMessageHandler<Order>() {

				@Override
				public void handle(Order payload, DelayMessageContext context) {
					lenient.add(String.valueOf(payload));
				}

				@Override
				public boolean acceptsNullPayload() {
					return true;
				}

			})
			.pollTimeout(Duration.ofMillis(300))
			.build();
		container.start();
		this.containers.add(container);
		send("null");
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).dead() == 1);
		DeadLetter dead = this.engine.admin().deadLetters(this.queue, null, 10).get(0);
		assertThat(dead.group()).isEqualTo("strict");
		assertThat(dead.errorClass()).isEqualTo(MessageDecodingException.class.getName());
		assertThat(dead.errorMessage()).contains("decodes to null");
		assertThat(dead.stackTrace()).startsWith(MessageDecodingException.class.getName()).contains("Processor.decode");
		await().atMost(Duration.ofSeconds(5)).until(() -> lenient.equals(List.of("null")));
		assertThat(received.poll(300, TimeUnit.MILLISECONDS)).as("the strict handler never sees it").isNull();
	}

	@Test
	void neverDeserializesAJavaSerializationStreamAndDeadLettersItWithTheReason() throws Exception {
		java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
		try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
			out.writeObject(new SerializedGadget());
		}
		byte[] stream = bytes.toByteArray();
		assertThat(stream).startsWith((byte) 0xAC, (byte) 0xED);
		int readBefore = SerializedGadget.read.get();
		BlockingQueue<Order> orders = listen(this.engine, "orders", Order.class);
		BlockingQueue<Object> untyped = listen(this.engine, "untyped", Object.class);
		send(stream);
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).dead() == 2);
		assertThat(this.engine.admin().deadLetters(this.queue, null, 10)).hasSize(2).allSatisfy((letter) -> {
			assertThat(letter.attempts()).isEqualTo(1);
			assertThat(letter.errorClass()).isEqualTo(MessageDecodingException.class.getName());
			assertThat(letter.errorMessage()).startsWith("Cannot decode payload as");
			assertThat(letter.payload()).isEqualTo(stream);
		});
		assertThat(orders.poll(300, TimeUnit.MILLISECONDS)).isNull();
		assertThat(untyped.poll(300, TimeUnit.MILLISECONDS)).isNull();
		assertThat(SerializedGadget.read).as("readObject never ran").hasValue(readBefore);
	}

	@Test
	void deadLettersAtOnceWhenACodecFailsUnexpectedlyAndKeepsDelivering() throws Exception {
		DelayQueueEngine brittle = DelayQueueEngine.builder(this.connectionFactory).codec(new BrittleCodec()).build();
		this.engines.add(brittle);
		BlockingQueue<String> received = listen(brittle, "g", String.class);
		send("corrupt record");
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).dead() == 1);
		DeadLetter dead = this.engine.admin().deadLetters(this.queue, null, 1).get(0);
		assertThat(dead.attempts()).isEqualTo(1);
		assertThat(dead.errorClass()).isEqualTo(MessageDecodingException.class.getName());
		assertThat(dead.errorMessage()).contains(IllegalStateException.class.getName()).contains("codec bug");
		send("fine");
		assertThat(received.poll(5, TimeUnit.SECONDS)).as("the only worker still runs").isEqualTo("fine");
		await().atMost(Duration.ofSeconds(5)).until(() -> this.engine.admin().stats(this.queue).inFlight() == 0);
	}

	@Test
	void ignoresPolymorphicTypeHintsForAnUntypedListener() throws Exception {
		BlockingQueue<Object> received = listen(this.engine, "g", Object.class);
		String gadget = Gadget.class.getName();
		List<String> payloads = List.of("[\"java.net.URL\",\"http://example.invalid/\"]",
				"{\"@class\":\"java.lang.ProcessBuilder\",\"command\":[\"touch\",\"/tmp/delayqueue-pwned\"]}",
				"[\"" + gadget + "\",{\"name\":\"x\"}]", "{\"@class\":\"" + gadget + "\",\"name\":\"x\"}",
				"{\"@type\":\"" + gadget + "\",\"name\":\"x\"}", "[\"java.util.ArrayList\",[\"" + gadget + "\",{}]]");
		payloads.forEach(this::send);
		List<Object> decoded = new ArrayList<>();
		for (int i = 0; i < payloads.size(); i++) {
			decoded.add(received.poll(5, TimeUnit.SECONDS));
		}
		assertThat(decoded).doesNotContainNull().allSatisfy((value) -> assertPlainJson(value));
		assertThat(decoded.get(0)).isEqualTo(List.of("java.net.URL", "http://example.invalid/"));
		assertThat(decoded.get(1)).isInstanceOf(Map.class)
			.asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
			.containsEntry("@class", "java.lang.ProcessBuilder");
		assertThat(Gadget.created).as("gadget instances").hasValue(0);
		assertThat(this.engine.admin().stats(this.queue).dead()).isZero();
	}

	@Test
	void ignoresPolymorphicTypeHintsInsideADeclaredRecord() throws Exception {
		BlockingQueue<Holder> received = listen(this.engine, "g", Holder.class);
		String gadget = Gadget.class.getName();
		List<String> payloads = List.of("{\"name\":\"a\",\"value\":[\"java.net.URL\",\"http://example.invalid/\"]}",
				"{\"name\":\"b\",\"value\":[\"" + gadget + "\",{\"name\":\"x\"}]}",
				"{\"name\":\"c\",\"value\":{\"@class\":\"" + gadget + "\",\"name\":\"x\"}}",
				"{\"@class\":\"java.lang.ProcessBuilder\",\"name\":\"d\",\"value\":{\"@class\":\"java.net.URL\"}}");
		payloads.forEach(this::send);
		// each either decodes as a Holder of plain JSON values or is dead-lettered
		await().atMost(Duration.ofSeconds(5))
			.until(() -> received.size() + this.engine.admin().stats(this.queue).dead() == payloads.size());
		assertThat(received).allSatisfy((holder) -> assertPlainJson(holder.value()));
		assertThat(received).extracting(Holder::name).isSubsetOf("a", "b", "c", "d");
		assertThat(Gadget.created).as("gadget instances").hasValue(0);
	}

	private static void assertPlainJson(Object value) {
		if (value instanceof Map<?, ?> map) {
			map.values().forEach(CodecTests::assertPlainJson);
		}
		else if (value instanceof List<?> list) {
			list.forEach(CodecTests::assertPlainJson);
		}
		else {
			assertThat(value).isNotInstanceOfAny(URL.class, ProcessBuilder.class, Gadget.class)
				.satisfiesAnyOf((v) -> assertThat(v).isNull(), (v) -> assertThat(v).isInstanceOf(String.class),
						(v) -> assertThat(v).isInstanceOf(Number.class),
						(v) -> assertThat(v).isInstanceOf(Boolean.class));
		}
	}

	record Order(String id, long amountCents, List<String> items, Instant placedAt, Map<String, String> attributes) {
	}

	record Holder(String name, Object value) {
	}

	/** A class whose construction the tests can see. */
	/** Counts every deserialization: a Java serialization stream must never reach it. */
	public static class SerializedGadget implements java.io.Serializable {

		private static final long serialVersionUID = 1L;

		static final AtomicInteger read = new AtomicInteger();

		private void readObject(java.io.ObjectInputStream in) throws java.io.IOException, ClassNotFoundException {
			in.defaultReadObject();
			read.incrementAndGet();
		}

	}

	public static class Gadget {

		static final AtomicInteger created = new AtomicInteger();

		private String name;

		public Gadget() {
			created.incrementAndGet();
		}

		public String getName() {
			return this.name;
		}

		public void setName(String name) {
			this.name = name;
		}

	}

	public static class Customer {

		private String name;

		private int age;

		public String getName() {
			return this.name;
		}

		public void setName(String name) {
			this.name = name;
		}

		public int getAge() {
			return this.age;
		}

		public void setAge(int age) {
			this.age = age;
		}

		@Override
		public boolean equals(Object other) {
			return other instanceof Customer customer && Objects.equals(this.name, customer.name)
					&& this.age == customer.age;
		}

		@Override
		public int hashCode() {
			return Objects.hash(this.name, this.age);
		}

	}

	/**
	 * A third-party codec with a bug: it throws something else than the contract says.
	 */
	static final class BrittleCodec implements MessageCodec {

		private final JsonMessageCodec delegate = new JsonMessageCodec();

		@Override
		public byte[] encode(Object payload) {
			return this.delegate.encode(payload);
		}

		@Override
		public Object decode(byte[] bytes, Type type) {
			if (new String(bytes, StandardCharsets.UTF_8).startsWith("corrupt")) {
				throw new IllegalStateException("codec bug");
			}
			return this.delegate.decode(bytes, type);
		}

	}

}
