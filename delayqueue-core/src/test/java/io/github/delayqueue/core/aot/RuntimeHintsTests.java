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

package io.github.delayqueue.core.aot;

import java.io.IOException;
import java.util.List;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.annotation.DeadLetterListener;
import io.github.delayqueue.core.annotation.DelayHeader;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.core.listener.DelayMessageContext;
import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.annotation.ReflectiveRuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The runtime hints of the core: every resource it reads at run time, the optional
 * classes it looks for, and what its listener annotations need.
 */
class RuntimeHintsTests {

	private final RuntimeHints hints = new RuntimeHints();

	RuntimeHintsTests() {
		new DelayQueueRuntimeHints().registerHints(this.hints, getClass().getClassLoader());
	}

	@Test
	void theRegistrarIsDeclaredForAotProcessing() {
		List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader
			.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class);
		assertThat(registrars).hasAtLeastOneElementOfType(DelayQueueRuntimeHints.class);
	}

	@Test
	void everyScriptIsAResource() throws IOException {
		List<String> scripts = resources("META-INF/delayqueue/scripts/*.lua");
		assertThat(scripts).contains("META-INF/delayqueue/scripts/send.lua", "META-INF/delayqueue/scripts/prelude.lua")
			.hasSizeGreaterThan(30);
		assertThat(scripts).allSatisfy(
				(script) -> assertThat(RuntimeHintsPredicates.resource().forResource(script)).accepts(this.hints));
	}

	@Test
	void everyAssembledProtocolScriptIsAResource() throws IOException {
		List<String> scripts = resources("META-INF/delayqueue/protocol/v1/*.lua");
		assertThat(scripts).containsExactlyInAnyOrder("META-INF/delayqueue/protocol/v1/send.lua",
				"META-INF/delayqueue/protocol/v1/cancel.lua", "META-INF/delayqueue/protocol/v1/reschedule.lua");
		assertThat(scripts).allSatisfy(
				(script) -> assertThat(RuntimeHintsPredicates.resource().forResource(script)).accepts(this.hints));
	}

	@Test
	void everyOutboxDdlIsAResource() throws IOException {
		List<String> ddl = resources("META-INF/delayqueue/outbox/*.sql");
		assertThat(ddl).contains("META-INF/delayqueue/outbox/postgresql.sql", "META-INF/delayqueue/outbox/mariadb.sql",
				"META-INF/delayqueue/outbox/h2.sql");
		assertThat(ddl)
			.allSatisfy((file) -> assertThat(RuntimeHintsPredicates.resource().forResource(file)).accepts(this.hints));
	}

	@Test
	void theLibrariesTheCoreDetectsByNameAreRegisteredWhenPresent() {
		for (String name : DelayQueueRuntimeHints.DETECTED) {
			if (!name.startsWith("redis.clients")) {
				assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(name))).accepts(this.hints);
			}
		}
		// Jedis is not on this class path: nothing is registered for it
		assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of("redis.clients.jedis.Jedis")))
			.rejects(this.hints);
	}

	@Test
	void listenerMethodsAreInvocableAndTheirPayloadTypesBound() {
		RuntimeHints listeners = new RuntimeHints();
		new ReflectiveRuntimeHintsRegistrar().registerRuntimeHints(listeners, Listeners.class);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Listeners.class, "onOrder"))
			.accepts(listeners);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Listeners.class, "onDeadOrder"))
			.accepts(listeners);
		// the payload, and what it holds, for the JSON codec
		assertThat(RuntimeHintsPredicates.reflection().onType(Order.class)).accepts(listeners);
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Order.class, "customer")).accepts(listeners);
		assertThat(RuntimeHintsPredicates.reflection().onType(Customer.class)).accepts(listeners);
		// not the library's own parameter types
		assertThat(RuntimeHintsPredicates.reflection().onType(DelayMessageContext.class)).rejects(listeners);
		assertThat(RuntimeHintsPredicates.reflection().onType(DeadLetter.class)).rejects(listeners);
		// a method without the annotations is left alone
		assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Listeners.class, "helper"))
			.rejects(listeners);
	}

	private static List<String> resources(String pattern) throws IOException {
		Resource[] found = new PathMatchingResourcePatternResolver().getResources("classpath*:" + pattern);
		String folder = pattern.substring(0, pattern.lastIndexOf('/') + 1);
		return java.util.Arrays.stream(found).map((resource) -> folder + resource.getFilename()).toList();
	}

	record Customer(String name) {
	}

	record Order(long id, Customer customer) {
	}

	static class Listeners {

		@DelayListener(queue = "orders")
		void onOrder(Order order, DelayMessageContext context, @DelayHeader("tenant") String tenant) {
		}

		@DeadLetterListener(queue = "orders")
		void onDeadOrder(Order order, DeadLetter letter) {
		}

		void helper(Order order) {
		}

	}

}
