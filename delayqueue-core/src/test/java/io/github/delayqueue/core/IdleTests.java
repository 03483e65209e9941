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

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import io.github.delayqueue.test.TcpFaultProxy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Idle means idle: an engine whose queues have nothing to do sends Redis no periodic
 * command per queue, neither promote calls (a scheduler sleeps until the earliest due
 * time it knows of, a wake-up, or its 30 s sweep) nor reads of the flow-control state
 * (told by notification, read again every 30 s while the subscription holds). What that
 * costs is covered: a wake-up lost while the subscription is down is made up for when it
 * is back, and a retry this JVM schedules is promoted on time.
 */
@RedisTest
class IdleTests {

	private final RedisServer redis;

	private final RedisConnectionFactory connectionFactory;

	private final List<AutoCloseable> closing = new CopyOnWriteArrayList<>();

	IdleTests(RedisServer redis, RedisConnectionFactory connectionFactory) {
		this.redis = redis;
		this.connectionFactory = connectionFactory;
	}

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable each : this.closing) {
			each.close();
		}
		this.redis.execute("FLUSHALL");
	}

	private DelayQueueEngine engine(RedisConnectionFactory factory) {
		DelayQueueEngine engine = DelayQueueEngine.builder(factory).build();
		this.closing.add(engine);
		return engine;
	}

	private DelayQueueListenerContainer started(DelayQueueListenerContainer container) {
		this.closing.add(0, container::stop);
		container.start();
		return container;
	}

	@Test
	void fiftyIdleQueuesMakeNoPromoteCallAndReadNoControlStateForTenSeconds() throws Exception {
		DelayQueueEngine engine = engine(this.connectionFactory);
		List<DelayQueueListenerContainer> containers = new CopyOnWriteArrayList<>();
		for (int i = 0; i < 50; i++) {
			containers.add(started(engine.listenerContainer("idle-" + i, "g", String.class, (payload, context) -> {
			}).build()));
		}
		await().atMost(Duration.ofSeconds(30))
			.until(() -> containers.stream().allMatch(DelayQueueListenerContainer::isHealthy));
		// start-up over: each queue promoted and read its state, at once and when its
		// subscriptions were confirmed
		Thread.sleep(3000);
		try (CommandProbe probe = CommandProbe.start(this.redis)) {
			// before, each scheduler promoted every 2 s and the state of each queue was
			// read every 0.9 s: about 250 promote calls and 550 reads
			await().during(Duration.ofSeconds(10)).atMost(Duration.ofSeconds(12)).untilAsserted(() -> {
				assertThat(probe.promotes()).as("%s", probe).isZero();
				assertThat(probe.controlReads()).as("%s", probe).isZero();
			});
			assertThat(probe.commands()).as("the probe sees the engine's commands").isPositive();
		}
		assertThat(containers).allMatch(DelayQueueListenerContainer::isHealthy);
	}

	@Test
	void aWakeUpLostWhileTheSubscriptionIsDownIsMadeUpForWhenItIsBack() throws Exception {
		try (TcpFaultProxy proxy = TcpFaultProxy.start(this.redis.host(), this.redis.port())) {
			LettuceConnectionFactory viaProxy = new LettuceConnectionFactory(
					new RedisStandaloneConfiguration(proxy.host(), proxy.port()),
					LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(1)).build());
			viaProxy.afterPropertiesSet();
			viaProxy.start();
			this.closing.add(viaProxy::destroy);
			Map<String, Long> received = new ConcurrentHashMap<>();
			DelayQueueListenerContainer container = started(engine(viaProxy)
				.listenerContainer("lost-wake", "g", String.class,
						(payload, context) -> received.put(payload, System.nanoTime()))
				.pollTimeout(Duration.ofMillis(500))
				.build());
			await().atMost(Duration.ofSeconds(10)).until(container::isHealthy);
			Thread.sleep(500);
			// the consumer's connections drop, its subscriptions with them; the
			// producer's
			// wake-up reaches no one
			proxy.drop();
			DelayQueueEngine producer = engine(this.connectionFactory);
			String channel = producer.keys("lost-wake").wakeChannel();
			await().atMost(Duration.ofSeconds(5))
				.until(() -> List.of(channel, 0L).equals(this.redis.execute("PUBSUB", "NUMSUB", channel)));
			producer.template().send("lost-wake", "m", Duration.ofMillis(300));
			Thread.sleep(1000);
			assertThat(received).isEmpty();
			long back = System.nanoTime();
			proxy.pass();
			// promoted once subscribed again, not at the 30 s sweep
			await().atMost(Duration.ofSeconds(8)).until(() -> received.containsKey("m"));
			assertThat(Duration.ofNanos(received.get("m") - back)).isLessThan(Duration.ofSeconds(8));
		}
	}

	@Test
	void aRetryWithABackoffOfOneSecondIsRedeliveredOnTime() {
		List<Long> attempts = new CopyOnWriteArrayList<>();
		DelayQueueEngine engine = engine(this.connectionFactory);
		DelayQueueListenerContainer container = started(
				engine.listenerContainer("retry-on-time", "g", String.class, (payload, context) -> {
					attempts.add(System.nanoTime());
					if (context.attempt() == 1) {
						throw new IllegalStateException("first attempt fails");
					}
				}).retryPolicy(RetryPolicy.fixed(3, Duration.ofSeconds(1))).build());
		await().atMost(Duration.ofSeconds(10)).until(container::isHealthy);
		engine.template().send("retry-on-time", "m", Duration.ZERO);
		await().atMost(Duration.ofSeconds(10)).until(() -> attempts.size() == 2);
		Duration between = Duration.ofNanos(attempts.get(1) - attempts.get(0));
		assertThat(between).isGreaterThanOrEqualTo(Duration.ofMillis(900)).isLessThan(Duration.ofSeconds(3));
	}

	/**
	 * Counts the engine's promote calls and control-state reads on a server, as
	 * {@code MONITOR} shows them.
	 */
	private static final class CommandProbe implements AutoCloseable {

		private static final List<String> PROMOTE_SHAS = List.of(Scripts.PROMOTE.getSha1(),
				Scripts.PROMOTE_ALLOW_OOM.getSha1());

		private final Socket socket;

		private final AtomicInteger promotes = new AtomicInteger();

		private final AtomicInteger controlReads = new AtomicInteger();

		private final AtomicInteger commands = new AtomicInteger();

		private final List<String> seen = new CopyOnWriteArrayList<>();

		private CommandProbe(Socket socket) {
			this.socket = socket;
		}

		static CommandProbe start(RedisServer redis) throws IOException {
			Socket socket = new Socket(redis.host(), redis.port());
			OutputStream out = socket.getOutputStream();
			out.write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
			out.flush();
			BufferedReader in = new BufferedReader(
					new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
			String ok = in.readLine();
			assertThat(ok).isEqualTo("+OK");
			CommandProbe probe = new CommandProbe(socket);
			Thread reader = new Thread(() -> probe.read(in), "idle-tests-monitor");
			reader.setDaemon(true);
			reader.start();
			return probe;
		}

		private void read(BufferedReader in) {
			try {
				for (String line = in.readLine(); line != null; line = in.readLine()) {
					count(line);
				}
			}
			catch (IOException ex) {
				// closed
			}
		}

		private void count(String line) {
			if (line.contains(" lua]")) {
				// a command a script ran
				return;
			}
			this.commands.incrementAndGet();
			String lower = line.toLowerCase(java.util.Locale.ROOT);
			boolean promote = PROMOTE_SHAS.stream().anyMatch(line::contains)
					|| (lower.contains("\"eval\"") && line.contains("Moves due messages"));
			boolean controlRead = lower.contains("\"hmget\"") && line.contains("control-version");
			if (promote) {
				this.promotes.incrementAndGet();
			}
			if (controlRead) {
				this.controlReads.incrementAndGet();
			}
			if ((promote || controlRead) && this.seen.size() < 2) {
				this.seen.add(line);
			}
		}

		int promotes() {
			return this.promotes.get();
		}

		int controlReads() {
			return this.controlReads.get();
		}

		int commands() {
			return this.commands.get();
		}

		@Override
		public String toString() {
			return this.promotes + " promote calls, " + this.controlReads + " control reads, e.g. " + this.seen;
		}

		@Override
		public void close() throws IOException {
			this.socket.close();
		}

	}

}
