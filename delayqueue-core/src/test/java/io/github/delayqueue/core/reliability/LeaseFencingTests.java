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

package io.github.delayqueue.core.reliability;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.reliability.ReliabilitySupport.ChildJvm;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerExtension;
import io.github.delayqueue.test.TcpFaultProxy;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A consumer never starts a message whose lease it knows it may have lost without asking
 * Redis first: a read reply that arrives after the visibility timeout, a JVM that wakes
 * from a long pause with messages in hand. Another consumer recovered and acknowledged
 * those messages meanwhile; running them again would be a rerun that need not happen.
 */
@Tag("faults")
class LeaseFencingTests {

	@AutoClose
	private final Resources resources = new Resources();

	private <T extends AutoCloseable> T track(T resource) {
		return this.resources.track(resource);
	}

	private LettuceConnectionFactory factory(String host, int port) {
		// a command timeout longer than the partition: the held reply still arrives
		LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port),
				LettuceClientConfiguration.builder()
					.commandTimeout(Duration.ofSeconds(20))
					.shutdownTimeout(Duration.ZERO)
					.build());
		factory.afterPropertiesSet();
		factory.start();
		this.resources.track(factory::destroy);
		return factory;
	}

	private DelayQueueListenerContainer container(DelayQueueEngine engine, String name, List<String> runs) {
		DelayQueueListenerContainer container = engine
			.listenerContainer("fenced", "g", String.class,
					(payload, context) -> runs.add(name + " " + payload + " attempt " + context.attempt()))
			.visibilityTimeout(Duration.ofSeconds(1))
			.pollTimeout(Duration.ofSeconds(2))
			.build();
		container.start();
		this.resources.track(container::stop);
		return container;
	}

	@Test
	void aReadReplyThatArrivesAfterTheLeaseWentElsewhereIsNotStarted() throws Exception {
		RedisServer redis = track(RedisServer.start());
		TcpFaultProxy link = track(TcpFaultProxy.start(redis.host(), redis.port()));
		List<String> runs = new CopyOnWriteArrayList<>();
		DelayQueueEngine cutOff = track(DelayQueueEngine.builder(factory(link.host(), link.port())).build());
		container(cutOff, "cut-off", runs);
		DelayQueueEngine other = track(DelayQueueEngine.builder(factory(redis.host(), redis.port())).build());
		// the cut-off consumer's read blocks in Redis; then its link goes silent
		Thread.sleep(1000);
		link.blackhole();
		other.template().send("fenced", "m", Duration.ZERO);
		await("delivered to the cut-off consumer, whose reply is held").atMost(Duration.ofSeconds(5))
			.until(() -> ((List<?>) redis.execute("XPENDING", "dq:{fenced}:stream", "g")).get(0).equals(1L));
		// the other consumer recovers it once the lease expired, and acknowledges it
		container(other, "other", runs);
		await().atMost(Duration.ofSeconds(10)).until(() -> runs.contains("other m attempt 2"));
		await().atMost(Duration.ofSeconds(5))
			.until(() -> ((List<?>) redis.execute("XPENDING", "dq:{fenced}:stream", "g")).get(0).equals(0L));
		// the link comes back, and with it the reply to the read made 4 s ago
		link.pass();
		Thread.sleep(3000);
		System.out.println("Runs: " + runs);
		assertThat(runs).containsExactly("other m attempt 2");
	}

	@Test
	void aJvmThatWakesFromALongPauseDoesNotStartWhatItHeld() throws Exception {
		RedisServer redis = track(RedisServer.start());
		DelayQueueEngine engine = track(
				DelayQueueEngine.builder(RedisServerExtension.connectionFactory(redis)).build());
		// one handler at a time, 1 s each, four more read ahead; lease 2 s
		ChildJvm paused = track(
				new ChildJvm(CrashingConsumer.class, String.valueOf(redis.port()), "fenced", "g", "1000"));
		paused.awaitLine("STARTED", Duration.ofSeconds(30));
		for (int i = 0; i < 5; i++) {
			engine.template().send("fenced", "p-" + i, Duration.ZERO);
		}
		String first = paused.awaitLine("HANDLING", Duration.ofSeconds(10));
		paused.pause();
		List<String> runs = new CopyOnWriteArrayList<>();
		container(engine, "other", runs);
		await().atMost(Duration.ofSeconds(15)).until(() -> runs.size() == 5);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> ((List<?>) redis.execute("XPENDING", "dq:{fenced}:stream", "g")).get(0).equals(0L));
		paused.resume();
		// its running handler ends (its ack changes nothing); what it held waits
		// unstarted
		paused.awaitLine("DONE", Duration.ofSeconds(10));
		List<String> after = paused.linesWithin(Duration.ofSeconds(4));
		System.out.println("The paused JVM handled " + first + ", then printed " + after + "; the other: " + runs);
		assertThat(after).noneMatch((line) -> line.startsWith("HANDLING"));
	}

}
