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

package io.github.delayqueue.core.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.util.Arrays;

import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link MethodDelayMessageHandler#acceptsNullPayload()}: a listener method receives a
 * {@code null} payload only when its payload parameter is annotated {@code @Nullable}, of
 * any package, as a declaration or a type-use annotation.
 */
class MethodDelayMessageHandlerTests {

	@Test
	void aHandlerRejectsNullPayloadsByDefault() {
		DelayMessageHandler<String> lambda = (payload, context) -> {
		};
		assertThat(lambda.acceptsNullPayload()).isFalse();
	}

	@Test
	void acceptsNullWhenThePayloadIsJSpecifyNullable() {
		assertThat(handler("jspecify").acceptsNullPayload()).isTrue();
	}

	@Test
	void acceptsNullWhenThePayloadHasADeclarationAnnotationNamedNullable() {
		assertThat(handler("declaration").acceptsNullPayload()).isTrue();
		assertThat(handler("declarationAfterContext").acceptsNullPayload()).isTrue();
	}

	@Test
	void acceptsNullWhenThePayloadHasATypeUseAnnotationNamedNullable() {
		assertThat(handler("typeUse").acceptsNullPayload()).isTrue();
	}

	@Test
	void rejectsNullOtherwise() {
		assertThat(handler("plain").acceptsNullPayload()).isFalse();
		assertThat(handler("otherAnnotation").acceptsNullPayload()).isFalse();
		assertThat(handler("nullableHeaderOnly").acceptsNullPayload()).as("@Nullable on a header, not the payload")
			.isFalse();
		assertThat(handler("noPayload").acceptsNullPayload()).isFalse();
	}

	private static MethodDelayMessageHandler handler(String name) {
		Method method = Arrays.stream(Listeners.class.getDeclaredMethods())
			.filter((candidate) -> candidate.getName().equals(name))
			.findFirst()
			.orElseThrow();
		return MethodDelayMessageHandler.of(new Listeners(), method, Listeners.class, name);
	}

	static class Listeners {

		void jspecify(@org.jspecify.annotations.Nullable Order order) {
		}

		void declaration(@Nullable Order order) {
		}

		void declarationAfterContext(DelayMessageContext context, @Nullable Order order) {
		}

		void typeUse(@TypeUse.Nullable Order order) {
		}

		void plain(Order order) {
		}

		void otherAnnotation(@NotNull Order order) {
		}

		void nullableHeaderOnly(Order order, @Nullable @DelayHeader(value = "tenant", required = false) String tenant) {
		}

		void noPayload(DelayMessageContext context) {
		}

	}

	record Order(String id) {
	}

	/** Like Jakarta's or Spring's: a declaration annotation of another package. */
	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.PARAMETER)
	@interface Nullable {

	}

	@Retention(RetentionPolicy.RUNTIME)
	@Target(ElementType.PARAMETER)
	@interface NotNull {

	}

	static final class TypeUse {

		private TypeUse() {
		}

		/** Like JSpecify's: a type-use annotation, here nested in another class. */
		@Retention(RetentionPolicy.RUNTIME)
		@Target(ElementType.TYPE_USE)
		@interface Nullable {

		}

	}

}
