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
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The engine under the least-privilege ACL documented in docs/operations.md: everything
 * works with only the commands it needs on keys and channels under its prefix; the user
 * cannot touch other keys; a wrong password fails closed with Redis's reason.
 */
@Tag("faults")
class AccessControlTests {

	/** The ACL rules of docs/operations.md, for key prefix {@code dq}. */
	static final String[] LEAST_PRIVILEGE = { "resetkeys", "~dq:*", "resetchannels", "&dq:*", "-@all", "+@connection",
			"+info", "+time", "+evalsha", "+eval", "+script|load", "+wait", "+xreadgroup", "+xack", "+xgroup|create",
			"+xgroup|setid", "+xinfo|stream", "+xlen", "+xrange", "+xinfo|groups", "+xinfo|consumers",
			"+xgroup|delconsumer", "+xpending", "+xclaim", "+xadd", "+xtrim", "+xdel", "+zcard", "+zrange", "+zrem",
			"+zadd", "+zscore", "+hget", "+hset", "+hdel", "+exists", "+sadd", "+smembers", "+del", "+subscribe",
			"+unsubscribe", "+publish", "+xautoclaim", "+set", "+get", "+pexpire", "+zremrangebyscore", "+hmget",
			"+xrevrange", "+zcount" };

	private static RedisServer redis;

	@BeforeAll
	static void start() {
		redis = RedisServer.builder()
			.password("admin-secret")
			.aclUser("orders-app", "app-secret", LEAST_PRIVILEGE)
			.start();
	}

	@AfterAll
	static void stop() {
		redis.close();
	}

	private static LettuceConnectionFactory connect(String user, String password) {
		RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(redis.host(), redis.port());
		configuration.setUsername(user);
		configuration.setPassword(RedisPassword.of(password));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration,
				LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

	@Test
	void everythingWorksUnderTheLeastPrivilegeAcl() {
		LettuceConnectionFactory factory = connect("orders-app", "app-secret");
		try {
			exerciseEverything(factory);
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * Sends, delivers, retries, dead-letters, replays, purges, cancels, reschedules,
	 * pauses and resumes, and checks the server through a factory whose user has the
	 * least-privilege rules, and consumes a partitioned queue in order (partition leases,
	 * members, take-over).
	 * @param factory the factory
	 */
	static void exerciseEverything(RedisConnectionFactory factory) {
		exerciseOrderedPartitions(factory);
		exerciseSchedulesPrioritiesAndFairShare(factory);
		try (DelayQueueEngine engine = DelayQueueEngine.builder(factory).partitions("acl-change", 2).build()) {
			// messages no group read yet, in both partitions: the change cannot finish
			for (int i = 0; i < 10; i++) {
				engine.template().send(DelayMessage.builder("m").queue("acl-change").id("m-" + i).build());
			}
			assertThat(engine.admin().changePartitions("acl-change", 3).changing()).isTrue();
			assertThatIllegalStateException().isThrownBy(() -> engine.admin().finishPartitionChange("acl-change"))
				.withMessageContaining("read by no group yet");
		}
		// the far tier from 1 s on: "far" goes there, and is moved and delivered
		try (DelayQueueEngine engine = DelayQueueEngine.builder(factory)
			.compactAfter(Duration.ofSeconds(1))
			.compactMinimum(1)
			.build()) {
			Set<String> received = ConcurrentHashMap.newKeySet();
			DelayQueueListenerContainer container = engine
				.listenerContainer("acl", "g", String.class, (payload, context) -> {
					if (payload.startsWith("bad")) {
						throw new IllegalStateException("refused " + payload);
					}
					received.add(payload);
				})
				.retryPolicy(RetryPolicy.fixed(2, Duration.ofMillis(50)))
				.trimInterval(Duration.ofMillis(500))
				.build();
			container.start();
			try {
				engine.template().send("acl", "later", Duration.ofMillis(300));
				engine.template().send("acl", "now", Duration.ZERO);
				engine.template()
					.send(DelayMessage.builder("far").queue("acl").id("far").delay(Duration.ofMillis(1500)).build());
				assertThat(engine.admin().scheduledMessage("acl", "far")).isPresent();
				assertThat(engine.admin().scheduled("acl", null, 10)).extracting(ScheduledMessage::id).contains("far");
				// the cockpit's reads: a position in the schedule and in the far tier
				assertThat(engine.admin().scheduledPosition("acl", java.time.Instant.now().plusSeconds(3600)))
					.isNotNull();
				engine.template().sendAll(List.of(DelayMessage.builder("bad-1").queue("acl").build()));
				engine.template()
					.send(DelayMessage.builder("cancel me").queue("acl").id("c-1").delay(Duration.ofHours(1)).build());
				assertThat(engine.template().reschedule("acl", "c-1", Duration.ofHours(2))).isTrue();
				assertThat(engine.template().cancel("acl", "c-1")).isTrue();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> received.containsAll(List.of("later", "now", "far")));
				await().atMost(Duration.ofSeconds(10)).until(() -> engine.admin().stats("acl").dead() == 1);
				DeadLetter letter = engine.admin().deadLetters("acl", null, 10).get(0);
				// where a message went, as the cockpit asks it
				assertThat(engine.admin().messageTrace("acl", letter.messageId())).isNotEmpty();
				assertThat(engine.admin().replay("acl", letter.entryId())).isTrue();
				await().atMost(Duration.ofSeconds(10)).until(() -> engine.admin().stats("acl").dead() == 1);
				assertThat(engine.admin().purgeDeadLetters("acl")).isEqualTo(1);
				// pause and resume, a group's too: meta fields and the control channel
				assertThat(engine.admin().pause("acl").paused()).isTrue();
				assertThat(engine.admin().pause("acl", "g").pausedGroups()).containsExactly("g");
				engine.template().send("acl", "held", Duration.ZERO);
				assertThat(engine.admin().controls("acl").isPaused("g")).isTrue();
				engine.admin().resume("acl");
				engine.admin().resume("acl", "g");
				await().atMost(Duration.ofSeconds(10)).until(() -> received.contains("held"));
				// concurrency limits: slots taken, waited for (the line) and freed; per
				// key
				engine.admin().limitConcurrency("acl", 1);
				for (int i = 0; i < 4; i++) {
					engine.template().send("acl", "slot-" + i, Duration.ZERO);
				}
				await().atMost(Duration.ofSeconds(10))
					.until(() -> received.containsAll(List.of("slot-0", "slot-1", "slot-2", "slot-3")));
				assertThat(engine.admin().concurrencySlotsTaken("acl", "g")).isBetween(0L, 1L);
				engine.admin().limitConcurrency("acl", ConcurrencyLimit.parse("1/key"));
				engine.template().send(DelayMessage.builder("keyed").queue("acl").key("k").build());
				await().atMost(Duration.ofSeconds(10)).until(() -> received.contains("keyed"));
				engine.admin().removeConcurrencyLimit("acl");
				assertThat(engine.admin().queues()).contains("acl");
				ServerCheck check = engine.admin().checkServer();
				assertThat(check.version()).isNotNull();
				assertThat(check.maxmemoryPolicy()).as("CONFIG is not granted").isNull();
			}
			finally {
				container.stop();
			}
		}
	}

	private static void exerciseSchedulesPrioritiesAndFairShare(RedisConnectionFactory factory) {
		try (DelayQueueEngine engine = DelayQueueEngine.builder(factory).fairShare("acl-fair").build()) {
			List<String> received = new CopyOnWriteArrayList<>();
			DelayQueueListenerContainer container = engine
				.listenerContainer("acl-fair", "g", String.class, (payload, context) -> received.add(payload))
				.build();
			container.start();
			try {
				engine.admin()
					.schedules()
					.register(DelaySchedule.builder("tick", "acl-fair")
						.every(Duration.ofMillis(200))
						.payload("tick")
						.build());
				for (int i = 0; i < 5; i++) {
					engine.template()
						.send(DelayMessage.builder("a" + i).queue("acl-fair").key("a").delay(Duration.ZERO).build());
				}
				engine.template()
					.send(DelayMessage.builder("b0").queue("acl-fair").key("b").delay(Duration.ofMillis(50)).build());
				engine.template()
					.send(DelayMessage.builder("vip")
						.queue("acl-fair")
						.priority(9)
						.delay(Duration.ofMillis(50))
						.build());
				await().atMost(Duration.ofSeconds(10))
					.until(() -> received.containsAll(List.of("a0", "a1", "a2", "a3", "a4", "b0", "vip"))
							&& received.stream().filter("tick"::equals).count() >= 2);
				assertThat(engine.admin().schedules().find("acl-fair", "tick").orElseThrow().fired())
					.isGreaterThanOrEqualTo(2);
			}
			finally {
				container.stop();
			}
		}
	}

	private static void exerciseOrderedPartitions(RedisConnectionFactory factory) {
		try (DelayQueueEngine engine = DelayQueueEngine.builder(factory).partitions("acl-ordered", 2).build()) {
			List<String> received = new CopyOnWriteArrayList<>();
			DelayQueueListenerContainer container = engine
				.listenerContainer("acl-ordered", "g", String.class, (payload, context) -> received.add(payload))
				.ordered(true)
				.visibilityTimeout(Duration.ofSeconds(1))
				.build();
			container.start();
			try {
				await().atMost(Duration.ofSeconds(10)).until(() -> container.partitionsRead().size() == 2);
				for (int i = 0; i < 5; i++) {
					engine.template()
						.send(DelayMessage.builder("m" + i)
							.queue("acl-ordered")
							.key("k")
							.deliverAt(Instant.now().plusMillis(100 + i))
							.build());
				}
				await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == 5);
				assertThat(received).containsExactly("m0", "m1", "m2", "m3", "m4");
				assertThat(engine.admin().partitionOwners("acl-ordered", "g")).hasSize(2);
				assertThat(container.isHealthy()).isTrue();
			}
			finally {
				container.stop();
			}
		}
	}

	@Test
	void theUserCannotTouchKeysOutsideItsPrefix() {
		redis.requireVersion("7.0", "ACL DRYRUN");
		assertThat(redis.execute("ACL", "DRYRUN", "orders-app", "APPEND", "dq:x", "1")).asString()
			.contains("no permissions");
		assertThat(redis.execute("ACL", "DRYRUN", "orders-app", "ZADD", "other:z", "1", "m")).asString()
			.contains("no permissions");
		assertThat(redis.execute("ACL", "DRYRUN", "orders-app", "ZADD", "dq:{q}:delayed", "1", "m")).isEqualTo("OK");
		assertThat(redis.execute("ACL", "DRYRUN", "orders-app", "CONFIG", "GET", "requirepass")).asString()
			.contains("no permissions");
	}

	@Test
	void aWrongPasswordFailsClosedWithRedissReason() {
		LettuceConnectionFactory factory = connect("orders-app", "wrong");
		try (DelayQueueEngine engine = DelayQueueEngine.builder(factory).build()) {
			assertThatExceptionOfType(DelayQueueException.class)
				.isThrownBy(() -> engine.template().send("acl", "x", Duration.ZERO))
				.withMessageStartingWith("Cannot send to queue(s) acl: ")
				.withMessageContaining("WRONGPASS");
		}
		finally {
			factory.destroy();
		}
	}

}
