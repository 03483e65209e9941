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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Durable sends against a master with one replica: confirmed when the replica has the
 * message, reported (not silently accepted) when it cannot confirm in time, and without
 * blocking other users of the connection factory while waiting.
 */
@Tag("faults")
class DurableSendTests {

	private RedisServer master;

	private RedisServer replica;

	private LettuceConnectionFactory connectionFactory;

	private DelayQueueEngine engine;

	@BeforeEach
	void startMasterAndReplica() {
		// no 5 s wait before the first full sync
		this.master = RedisServer.builder().config("repl-diskless-sync-delay", "0").start();
		this.replica = RedisServer.builder()
			.config("replicaof", this.master.host(), String.valueOf(this.master.port()))
			.start();
		await("replica in sync").atMost(Duration.ofSeconds(20))
			.until(() -> "1".equals(this.master.info("connected_slaves"))
					&& "up".equals(this.replica.info("master_link_status")));
		this.connectionFactory = RedisServerExtension.connectionFactory(this.master);
		this.engine = DelayQueueEngine.builder(this.connectionFactory).build();
	}

	@AfterEach
	void stop() {
		try {
			this.replica.resume();
			this.engine.close();
			this.connectionFactory.destroy();
		}
		finally {
			this.replica.close();
			this.master.close();
		}
	}

	@Test
	void aConfirmedSendIsOnTheReplicaWhenSendReturns() {
		SendResult result = this.engine.template()
			.send(DelayMessage.builder("pay").queue("orders").id("order-1").delay(Duration.ofHours(1)).build(),
					Durability.replicas(1, Duration.ofSeconds(5)));
		assertThat(result.status()).isEqualTo(SendResult.Status.SCHEDULED);
		// no waiting: WAIT returned only once the replica had it
		// due an hour ahead, alone in its time slot: in the schedule (compactMinimum)
		assertThat(this.replica.execute("ZSCORE", new QueueKeys("dq", "orders").delayed(), "order-1")).isNotNull();
	}

	@Test
	void anUnconfirmedSendIsReportedAndStillScheduled() {
		this.replica.pause();
		assertThatExceptionOfType(UnconfirmedSendException.class)
			.isThrownBy(() -> this.engine.template()
				.send(DelayMessage.builder("pay").queue("orders").id("order-2").delay(Duration.ofHours(1)).build(),
						Durability.replicas(1, Duration.ofMillis(300))))
			.satisfies((ex) -> {
				assertThat(ex.getConfirmedReplicas()).isZero();
				assertThat(ex.getResults()).singleElement()
					.satisfies((result) -> assertThat(result.status()).isEqualTo(SendResult.Status.SCHEDULED));
				assertThat(ex.getMessage()).contains("queue(s) orders")
					.contains("only 0 of 1 replica(s) confirmed them")
					.contains("with the same ids is deduplicated");
			});
		assertThat(this.engine.admin().stats("orders").scheduled()).isEqualTo(1);
		// sending it again is deduplicated, and confirmed once the replica is back
		this.replica.resume();
		SendResult again = this.engine.template()
			.send(DelayMessage.builder("pay").queue("orders").id("order-2").delay(Duration.ofHours(1)).build(),
					Durability.replicas(1, Duration.ofSeconds(5)));
		assertThat(again.status()).isEqualTo(SendResult.Status.DUPLICATE);
		assertThat(this.replica.execute("ZSCORE", new QueueKeys("dq", "orders").delayed(), "order-2")).isNotNull();
	}

	@Test
	void theServerCheckWarnsOfAReplicatedMasterThatWritesWithoutItsReplicas() {
		ServerCheck check = this.engine.admin().checkServer();
		assertThat(check.replicas()).isEqualTo(1);
		assertThat(check.minReplicasToWrite()).isZero();
		assertThat(check.writesWithoutReplicas()).isTrue();
		assertThat(check.problems())
			.anySatisfy((problem) -> assertThat(problem).contains("1 replica(s) and min-replicas-to-write 0")
				.contains("Set min-replicas-to-write 1"));
		this.master.execute("CONFIG", "SET", "min-replicas-to-write", "1");
		assertThat(this.engine.admin().checkServer().problems())
			.noneMatch((problem) -> problem.contains("min-replicas"));
	}

	@Test
	void aServerThatLostTheScriptTakesTheDurableSendAtOnce() {
		this.engine.template()
			.send(DelayMessage.builder("before").queue("orders").id("a").delay(Duration.ofHours(1)).build(),
					Durability.replicas(1, Duration.ofSeconds(2)));
		// as a replica promoted by a failover, or a restarted server: no scripts
		this.master.execute("SCRIPT", "FLUSH");
		List<SendResult> results = this.engine.template()
			.sendAll(
					List.of(DelayMessage.builder("after").queue("orders").id("b").delay(Duration.ofHours(1)).build(),
							DelayMessage.builder("after").queue("other").id("c").delay(Duration.ofHours(1)).build()),
					Durability.replicas(1, Duration.ofSeconds(2)));
		assertThat(results).extracting(SendResult::status)
			.containsExactly(SendResult.Status.SCHEDULED, SendResult.Status.SCHEDULED);
		assertThat(this.replica.execute("ZSCORE", new QueueKeys("dq", "other").delayed(), "c")).isNotNull();
	}

	@Test
	void waitingBlocksNoOtherUserOfTheConnectionFactory() throws Exception {
		// the server has the send script, as it has after any send: the first durable
		// send to a server without it learns so only once its wait ended, and runs again
		this.engine.template()
			.send(DelayMessage.builder("warm").queue("orders").delay(Duration.ofHours(1)).build(),
					Durability.replicas(1, Duration.ofSeconds(3)));
		this.replica.pause();
		CompletableFuture<Object> durable = CompletableFuture.supplyAsync(() -> {
			try {
				return this.engine.template()
					.send(DelayMessage.builder("slow").queue("orders").delay(Duration.ofHours(1)).build(),
							Durability.replicas(1, Duration.ofSeconds(3)));
			}
			catch (UnconfirmedSendException ex) {
				return ex;
			}
		});
		await().atMost(Duration.ofSeconds(2)).until(() -> this.engine.admin().stats("orders").scheduled() == 2);
		long started = System.nanoTime();
		this.engine.template().send("orders", "fast", Duration.ofHours(1));
		long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
		assertThat(durable).isNotDone();
		assertThat(tookMillis).as("a plain send while a durable one waits").isLessThan(2000);
		assertThat(durable.get(10, TimeUnit.SECONDS)).isInstanceOf(UnconfirmedSendException.class);
	}

	@Test
	void anEngineWideDurabilityAppliesToEverySend() {
		// 2 s: the first WAIT after a full sync may take a few hundred milliseconds on a
		// busy machine
		try (DelayQueueEngine durableEngine = DelayQueueEngine.builder(this.connectionFactory)
			.sendDurability(Durability.replicas(1, Duration.ofSeconds(2)))
			.build()) {
			durableEngine.template().send("orders", "ok", Duration.ofHours(1));
			this.replica.pause();
			assertThatExceptionOfType(UnconfirmedSendException.class)
				.isThrownBy(() -> durableEngine.template().send("orders", "not confirmed", Duration.ofHours(1)));
		}
	}

	@Test
	void waitingForTheAofNeedsRedis72() {
		String version = this.master.info("redis_version");
		Assumptions.assumeTrue(!this.master.versionAtLeast("7.2"), "the server has WAITAOF");
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> this.engine.template()
				.send(DelayMessage.builder("x").queue("orders").delay(Duration.ofHours(1)).build(),
						Durability.appendOnlyFile(0, Duration.ofSeconds(1))))
			.withMessageContaining("WAITAOF")
			.withMessageContaining("Redis " + version);
		assertThat(this.engine.admin().stats("orders").scheduled()).as("nothing sent").isZero();
	}

}
