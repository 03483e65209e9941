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

package io.github.delayqueue.autoconfigure;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.jsontype.BasicPolymorphicTypeValidator;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.codec.Jackson2MessageCodec;
import io.github.delayqueue.core.codec.JsonMessageCodec;
import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The payload codec on an application's Jackson 2 {@link ObjectMapper} (issue 49): chosen
 * when that is the application's only mapper, or by {@code delayqueue.json-mapper}; the
 * JSON in Redis is what the application's Jackson 2 modules write.
 */
@RedisTest
class Jackson2CodecTests {

	private final ApplicationContextRunner runner;

	Jackson2CodecTests(RedisServer redis) {
		this.runner = new ApplicationContextRunner()
			.withConfiguration(
					AutoConfigurations.of(DataRedisAutoConfiguration.class, DelayQueueAutoConfiguration.class))
			.withPropertyValues("spring.data.redis.host=" + redis.host(), "spring.data.redis.port=" + redis.port());
	}

	/** A value the application's Jackson 2 module writes as one string. */
	public record Money(BigDecimal amount, String currency) {
	}

	/** A payload holding one. */
	public record Invoice(String id, Money total) {
	}

	static ObjectMapper applicationMapper() {
		SimpleModule money = new SimpleModule("money");
		money.addSerializer(Money.class, new StdSerializer<>(Money.class) {
			@Override
			public void serialize(Money value, JsonGenerator generator, SerializerProvider provider)
					throws IOException {
				generator.writeString(value.amount().toPlainString() + " " + value.currency());
			}
		});
		money.addDeserializer(Money.class, new StdDeserializer<>(Money.class) {
			@Override
			public Money deserialize(JsonParser parser, DeserializationContext context) throws IOException {
				String[] parts = parser.getValueAsString().split(" ");
				return new Money(new BigDecimal(parts[0]), parts[1]);
			}
		});
		return new ObjectMapper().registerModule(money);
	}

	@Test
	void theApplicationsOnlyJackson2MapperWritesAndReadsThePayloadsThroughRedis() {
		this.runner.withBean(ObjectMapper.class, Jackson2CodecTests::applicationMapper).run((context) -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(MessageCodec.class)).isInstanceOf(Jackson2MessageCodec.class);
			DelayQueueEngine engine = context.getBean(DelayQueueEngine.class);
			Invoice sent = new Invoice("i-1", new Money(new BigDecimal("12.50"), "EUR"));
			engine.template().send("invoices2", sent, Duration.ofHours(1));
			byte[] stored = engine.admin().scheduled("invoices2", null, 10).get(0).payload();
			// the module's form, not a Jackson 3 object of two fields
			assertThat(new String(stored, StandardCharsets.UTF_8))
				.isEqualTo("{\"id\":\"i-1\",\"total\":\"12.50 EUR\"}");
			engine.template().cancel("invoices2", engine.admin().scheduled("invoices2", null, 10).get(0).id());
			BlockingQueue<Invoice> received = new LinkedBlockingQueue<>();
			DelayQueueListenerContainer container = engine
				.listenerContainer("invoices2", "g", Invoice.class, (invoice, delivery) -> received.add(invoice))
				.build();
			container.start();
			try {
				engine.template().send("invoices2", sent, Duration.ZERO);
				assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo(sent);
			}
			finally {
				container.stop();
			}
		});
	}

	@Test
	void withBothMappersJackson3IsTheDefaultAndThePropertyChoosesJackson2() {
		ApplicationContextRunner both = this.runner.withBean(ObjectMapper.class, Jackson2CodecTests::applicationMapper)
			.withBean(JsonMapper.class, () -> JsonMapper.builder().build());
		both.run((context) -> assertThat(context.getBean(MessageCodec.class)).isInstanceOf(JsonMessageCodec.class));
		both.withPropertyValues("delayqueue.json-mapper=jackson2").run((context) -> {
			assertThat(context.getBean(MessageCodec.class)).isInstanceOf(Jackson2MessageCodec.class);
			assertThat(new String(
					context.getBean(MessageCodec.class).encode(new Invoice("i-2", new Money(BigDecimal.ONE, "CHF"))),
					StandardCharsets.UTF_8))
				.isEqualTo("{\"id\":\"i-2\",\"total\":\"1 CHF\"}");
		});
		// jackson: Jackson 3 even when Jackson 2 is the application's only mapper
		this.runner.withBean(ObjectMapper.class, Jackson2CodecTests::applicationMapper)
			.withPropertyValues("delayqueue.json-mapper=jackson")
			.run((context) -> assertThat(context.getBean(MessageCodec.class)).isInstanceOf(JsonMessageCodec.class));
	}

	@Test
	void withoutJackson3TheCodecIsJackson2AndWithoutEitherThereIsNone() {
		this.runner.withClassLoader(new FilteredClassLoader("tools.jackson.databind"))
			.run((context) -> assertThat(context.getBean(MessageCodec.class)).isInstanceOf(Jackson2MessageCodec.class));
		this.runner.withClassLoader(new FilteredClassLoader("tools.jackson.databind", "com.fasterxml.jackson.databind"))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(MessageCodec.class));
	}

	@Test
	void misuseIsRefusedAtStartUpWithTheReason() {
		this.runner.withClassLoader(new FilteredClassLoader("com.fasterxml.jackson.databind"))
			.withPropertyValues("delayqueue.json-mapper=jackson2")
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("delayqueue.json-mapper=jackson2 needs Jackson 2 on the classpath"));
		this.runner.withPropertyValues("delayqueue.json-mapper=gson")
			.run((context) -> assertThat(context).getFailure().hasStackTraceContaining("delayqueue.json-mapper"));
		// a mapper that lets a payload name its class is refused, not used
		this.runner
			.withBean(ObjectMapper.class,
					() -> new ObjectMapper().activateDefaultTyping(
							BasicPolymorphicTypeValidator.builder().allowIfBaseType(Object.class).build()))
			.run((context) -> assertThat(context).getFailure()
				.hasStackTraceContaining("The ObjectMapper has default typing enabled"));
	}

}
