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
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Pause and resume, held in Redis for every instance: run on a single server and on a
 * Redis Cluster. Each "instance" is an engine of its own on the same Redis. Timing bounds
 * here are generous (the machine is shared); the benchmark measures the real ones.
 */
abstract class PauseContract extends QueueTestFixture {

	/**
	 * Starts after pause() returned that these tests tolerate: notifications are ~1 ms.
	 */
	private static final long SLACK_MILLIS = 300;

	private final Function<String, RedisServer> serverFor;

	/** Every handler start, as group/payload: a message started twice shows twice. */
	private final List<String> everyStart = new CopyOnWriteArrayList<>();

	/** Every server a pub/sub connection of the engines may be on. */
	private final Supplier<List<RedisServer>> servers;

	PauseContract(RedisConnectionFactory connectionFactory, Function<String, RedisServer> serverFor,
			Supplier<List<RedisServer>> servers) {
		super(connectionFactory);
		this.serverFor = serverFor;
		this.servers = servers;
	}

	/**
	 * Drops every pub/sub connection, as a network blip or a failover does: the client
	 * connects and subscribes again.
	 */
	private void dropSubscriptions() {
		this.servers.get().forEach((server) -> server.execute("CLIENT", "KILL", "TYPE", "pubsub"));
	}

	private DelayQueueEngine engine() {
		return engine(DelayQueueEngine.builder(this.connectionFactory));
	}

	private DelayQueueEngine engine(DelayQueueEngineBuilder builder) {
		return build(builder);
	}

	/** Starts a listener; returns what it started: payload → (attempt, start time). */
	private Map<String, Start> listen(DelayQueueEngine engine, String group, long handlerMillis) {
		Map<String, Start> started = new ConcurrentHashMap<>();
		DelayQueueListenerContainer container = engine
			.listenerContainer(this.queue, group, String.class, (payload, context) -> {
				this.everyStart.add(group + "/" + payload);
				started.putIfAbsent(payload, new Start(context.attempt(), System.nanoTime()));
				if (payload.startsWith("slow")) {
					Thread.sleep(handlerMillis);
				}
			})
			.concurrency(2)
			.prefetch(4)
			.build();
		start(container);
		return started;
	}

	private void send(DelayQueueEngine engine, String prefix, int count) {
		for (int i = 0; i < count; i++) {
			engine.template().send(this.queue, prefix + "-" + i, Duration.ZERO);
		}
	}

	/**
	 * No message went to a group's handlers twice across the pause.
	 */
	private void assertEachStartedOnce() {
		assertThat(this.everyStart).doesNotHaveDuplicates();
	}

	@Test
	void aPausedQueueStartsNoHandlerOnAnyInstanceRunningOnesFinishAndResumeDeliversAtFirstAttempt() {
		DelayQueueEngine a = engine();
		DelayQueueEngine b = engine();
		Map<String, Start> onA = listen(a, "g", 400);
		Map<String, Start> onB = listen(b, "g", 400);
		send(a, "slow", 4);
		await().atMost(Duration.ofSeconds(10)).until(() -> onA.size() + onB.size() == 4);

		QueueControlState state = a.admin().pause(this.queue);
		long pausedAt = System.nanoTime();
		assertThat(state.paused()).isTrue();
		send(b, "during", 10);
		sleep(1500);
		// the slow handlers finished and were acknowledged; nothing else started
		assertThat(startedAfter(onA, pausedAt) + startedAfter(onB, pausedAt)).isZero();
		// the 4 slow ones acknowledged; the 10 sent during the pause unread, or read by a
		// blocking read and held unstarted (pending). An instance whose pause
		// notification came late may have started one within the slack (b learns of the
		// pause from a's notification while the test thread already sends through b):
		// that one is handled and acknowledged, not waiting
		await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
			long startedDuring = started(onA, "during") + started(onB, "during");
			QueueStats stats = a.admin().stats(this.queue);
			assertThat(ready(a) + stats.inFlight()).as("%s, %d started within the slack", stats, startedDuring)
				.isEqualTo(10 - startedDuring);
		});

		b.admin().resume(this.queue);
		await().atMost(Duration.ofSeconds(5)).until(() -> onA.size() + onB.size() == 14);
		List<Start> during = new ArrayList<>();
		onA.forEach((payload, start) -> {
			if (payload.startsWith("during")) {
				during.add(start);
			}
		});
		onB.forEach((payload, start) -> {
			if (payload.startsWith("during")) {
				during.add(start);
			}
		});
		assertThat(during).hasSize(10).allMatch((start) -> start.attempt == 1);
		assertEachStartedOnce();
	}

	private static long started(Map<String, Start> started, String prefix) {
		return started.keySet().stream().filter((payload) -> payload.startsWith(prefix)).count();
	}

	/** Starts later than the slack after the pause returned. */
	private static long startedAfter(Map<String, Start> started, long pausedAtNanos) {
		return started.values()
			.stream()
			.filter((start) -> start.nanos - pausedAtNanos > SLACK_MILLIS * 1_000_000)
			.count();
	}

	@Test
	void messagesReadAheadWaitUnstartedWithoutCostingAnAttemptAndStartOnResume() {
		DelayQueueEngine engine = engine();
		Map<String, Start> started = listen(engine, "g", 1500);
		// 2 workers busy for 1.5 s, 4 more read ahead and waiting
		send(engine, "slow", 2);
		await().atMost(Duration.ofSeconds(10)).until(() -> started.size() == 2);
		send(engine, "ahead", 4);
		sleep(300);
		engine.admin().pause(this.queue);
		await().atMost(Duration.ofSeconds(10)).until(() -> engine.admin().stats(this.queue).inFlight() == 4);
		// the 4 read ahead wait unstarted, pending (leases renewed); the 2 slow ones were
		// acked
		sleep(1500);
		assertThat(started).hasSize(2);
		engine.admin().resume(this.queue);
		await().atMost(Duration.ofSeconds(5)).until(() -> started.size() == 6);
		assertThat(started.values()).allMatch((start) -> start.attempt == 1);
		assertEachStartedOnce();
	}

	@Test
	void aPauseSurvivesARestartAndIsSeenByAnInstanceThatMissedItsNotification() {
		DelayQueueEngine first = engine();
		first.admin().pause(this.queue);
		first.close();
		// a new instance, started while the queue is paused
		DelayQueueEngine second = engine();
		Map<String, Start> started = listen(second, "g", 0);
		send(second, "m", 3);
		sleep(1500);
		assertThat(started).isEmpty();
		assertThat(second.admin().controls(this.queue).paused()).isTrue();
		// resumed behind its back: no notification, as when one is lost while the
		// subscription drops; the state is read again once it is subscribed again
		this.serverFor.apply(second.keys(this.queue).meta()).execute("HDEL", second.keys(this.queue).meta(), "paused");
		dropSubscriptions();
		await().atMost(Duration.ofMillis(2500)).until(() -> started.size() == 3);
		// and paused again behind its back
		this.serverFor.apply(second.keys(this.queue).meta())
			.execute("HSET", second.keys(this.queue).meta(), "paused", "1");
		dropSubscriptions();
		sleep(1200);
		send(second, "after", 3);
		sleep(1000);
		assertThat(started).hasSize(3);
	}

	@Test
	void pausingOneGroupLeavesTheOthersFlowingAndPauseIsAFlagNotAToggle() {
		DelayQueueEngine engine = engine();
		Map<String, Start> billing = listen(engine, "billing", 0);
		Map<String, Start> mail = listen(engine, "mail", 0);
		engine.admin().pause(this.queue, "billing");
		engine.admin().pause(this.queue, "billing");
		assertThat(engine.admin().controls(this.queue).pausedGroups()).containsExactly("billing");
		send(engine, "m", 5);
		await().atMost(Duration.ofSeconds(5)).until(() -> mail.size() == 5);
		sleep(500);
		assertThat(billing).isEmpty();

		// the whole queue paused too: resuming the group does not resume the queue
		engine.admin().pause(this.queue);
		engine.admin().resume(this.queue, "billing");
		send(engine, "n", 2);
		sleep(1000);
		assertThat(billing).isEmpty();
		assertThat(mail).hasSize(5);
		QueueControlState state = engine.admin().resume(this.queue);
		assertThat(state.paused()).isFalse();
		assertThat(state.pausedGroups()).isEmpty();
		await().atMost(Duration.ofSeconds(5)).until(() -> billing.size() == 7 && mail.size() == 7);
		assertEachStartedOnce();
	}

	@Test
	void aQueueDeclaredPausedAtStartUpStartsNothingUntilResumed() {
		DelayQueueEngine engine = engine(DelayQueueEngine.builder(this.connectionFactory).pausedAtStartup(this.queue));
		send(engine, "m", 3);
		Map<String, Start> started = listen(engine, "g", 0);
		sleep(1500);
		assertThat(started).isEmpty();
		assertThat(engine.admin().controls(this.queue).paused()).isTrue();
		// its group and consumer exist in Redis before the first read, with the messages
		// waiting for them
		QueueStats stats = engine.admin().stats(this.queue);
		assertThat(ready(engine)).isEqualTo(3);
		assertThat(stats.groups()).singleElement().satisfies((group) -> {
			assertThat(group.group()).isEqualTo("g");
			assertThat(group.consumers()).isEqualTo(1);
			// -1: unknown on Redis 6.2 (no lag in XINFO GROUPS)
			assertThat(group.lag()).isEqualTo((stats.ready() < 0) ? -1 : 3);
		});
		engine.admin().resume(this.queue);
		await().atMost(Duration.ofSeconds(5)).until(() -> started.size() == 3);
	}

	@Test
	void groupActionsRefuseAGroupTheQueueDoesNotHaveNamingTheGroupsItHas() {
		DelayQueueEngine engine = engine();
		listen(engine, "billing", 0);
		listen(engine, "shipping", 0);
		// a container built here and not started: its group is this engine's, not yet
		// Redis's
		engine.listenerContainer(this.queue, "audit", String.class, (payload, context) -> {
		}).build();
		assertThat(engine.admin().groups(this.queue)).containsExactly("audit", "billing", "shipping");
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().pause(this.queue, "biling"))
			.withMessage("Queue '" + this.queue + "' has no consumer group 'biling'; its groups: audit, billing, "
					+ "shipping");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> engine.admin().limitRate(this.queue, "biling", RateLimit.parse("5/1s")))
			.withMessageContaining("no consumer group 'biling'");
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().removeRateLimit(this.queue, "biling"))
			.withMessageContaining("no consumer group 'biling'");
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().replayAll(this.queue, "biling"))
			.withMessageContaining("no consumer group 'biling'");
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().replayAll(this.queue, "bad name!"))
			.withMessageContaining("Group name 'bad name!'");
		assertThat(engine.admin().controls(this.queue).pausedGroups()).as("nothing written").isEmpty();
		assertThat(engine.admin().controls(this.queue).groupRateLimits()).isEmpty();

		// the group of a container that never started, paused: another engine knows it
		// from the controls, and can resume it
		assertThat(engine.admin().pause(this.queue, "audit").pausedGroups()).containsExactly("audit");
		DelayQueueEngine other = engine();
		assertThat(other.admin().groups(this.queue)).containsExactly("audit", "billing", "shipping");
		assertThat(other.admin().resume(this.queue, "audit").pausedGroups()).isEmpty();
		assertThat(other.admin().groups(this.queue)).containsExactly("billing", "shipping");
		assertThatIllegalArgumentException().isThrownBy(() -> other.admin().pause(this.queue, "audit"))
			.withMessageContaining("its groups: billing, shipping");
		assertThat(other.admin().replayAll(this.queue, "billing")).isZero();
		assertThatIllegalArgumentException().isThrownBy(() -> other.admin().pause("never-used", "g"))
			.withMessage("Queue 'never-used' has no consumer group 'g': it has none yet (a group appears when its "
					+ "first listener starts)");
	}

	@Test
	void everyPartitionOfAPartitionedQueueHolds() {
		DelayQueueEngine engine = engine(DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, 4));
		Map<String, Start> started = listen(engine, "g", 0);
		engine.admin().pause(this.queue);
		send(engine, "m", 20);
		sleep(1500);
		assertThat(started).isEmpty();
		assertThat(ready(engine) + engine.admin().stats(this.queue).inFlight()).isEqualTo(20);
		engine.admin().resume(this.queue);
		await().atMost(Duration.ofSeconds(5)).until(() -> started.size() == 20);
		assertEachStartedOnce();
	}

	@Test
	void anOrderedListenerKeepsTheOrderOfAKeyAcrossAPause() {
		DelayQueueEngine engine = engine();
		List<String> handled = new CopyOnWriteArrayList<>();
		DelayQueueListenerContainer container = engine
			.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
				handled.add(payload);
				Thread.sleep(50);
			})
			.ordered(true)
			.prefetch(8)
			.build();
		start(container);
		List<String> sent = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			sent.add("m-" + i);
			engine.template().send(DelayMessage.builder("m-" + i).queue(this.queue).key("customer-7").build());
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() >= 3);
		engine.admin().pause(this.queue);
		sleep(1000);
		int beforeResume = handled.size();
		assertThat(beforeResume).isLessThan(20);
		engine.admin().resume(this.queue);
		await().atMost(Duration.ofSeconds(10)).until(() -> handled.size() == 20);
		// in the key's order, each once: what was read ahead went back and came back
		// first
		assertThat(handled).containsExactlyElementsOf(sent);
	}

	@Test
	void badInputIsRefusedAndWritesNothing() {
		DelayQueueEngine engine = engine();
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().pause("no spaces allowed?"));
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().pause(this.queue, ""));
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().resume(this.queue, null));
		assertThat(engine.admin().controls(this.queue).paused()).isFalse();
		assertThat(engine.admin().controls(this.queue).pausedGroups()).isEmpty();
	}

	private record Start(int attempt, long nanos) {
	}

}
