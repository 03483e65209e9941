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

package io.github.delayqueue.core.cluster;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.Durability;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.UnconfirmedSendException;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.SlotMigration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * A durable send on Redis Cluster waits for the replica of the master that owns the
 * queue's slot, on the connection that wrote: with that replica paused, the send is
 * reported unconfirmed, never confirmed by a node that wrote nothing.
 */
@Tag("faults")
class ClusterDurableSendTests {

	private static RedisCluster cluster;

	private static LettuceConnectionFactory connectionFactory;

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3, 1);
		connectionFactory = cluster.connectionFactory(Duration.ofSeconds(10));
	}

	@AfterAll
	static void stopCluster() {
		if (connectionFactory != null) {
			connectionFactory.destroy();
		}
		if (cluster != null) {
			cluster.close();
		}
	}

	/** The replica of the master that serves a queue's slot. */
	private static RedisServer replicaOf(String queue) {
		long slot = (Long) cluster.masters().get(0).execute("CLUSTER", "KEYSLOT", "{" + queue + "}");
		int master = (int) (slot * cluster.masters().size() / 16384);
		return cluster.replicas().get(master);
	}

	@Test
	void aDurableSendIsUnconfirmedWhileTheReplicaOfItsSlotsMasterIsPaused() {
		try (DelayQueueEngine engine = DelayQueueEngine.builder(connectionFactory)
			.sendDurability(Durability.replicas(1, Duration.ofMillis(500)))
			.build()) {
			assertThat(engine.template().send("orders", "before", Duration.ofMinutes(5)).status())
				.isEqualTo(SendResult.Status.SCHEDULED);
			RedisServer replica = replicaOf("orders");
			replica.pause();
			try {
				long started = System.nanoTime();
				assertThatExceptionOfType(UnconfirmedSendException.class)
					.isThrownBy(() -> engine.template().send("orders", "during", Duration.ofMinutes(5)))
					.withMessageContaining("only 0 of 1 replica(s) confirmed");
				assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(3000);
			}
			finally {
				replica.resume();
			}
			assertThat(engine.template().send("orders", "after", Duration.ofMinutes(5)).status())
				.isEqualTo(SendResult.Status.SCHEDULED);
		}
	}

	@Test
	void aDurableSendFollowsItsQueueToTheMasterItsSlotMovesTo() throws Exception {
		// every message in the schedule (no far tier): the two keys moved below are all
		// the send script finds
		try (DelayQueueEngine engine = DelayQueueEngine.builder(connectionFactory)
			.sendDurability(Durability.replicas(1, Duration.ofMillis(500)))
			.compactAfter(Duration.ZERO)
			.build()) {
			String queue = "moving";
			QueueKeys keys = engine.keys(queue);
			assertThat(engine.template().send(queue, "before", Duration.ofMinutes(5)).status())
				.isEqualTo(SendResult.Status.SCHEDULED);
			int slot = cluster.slotOf(keys.stream());
			int target = (cluster.masterOf(slot) + 1) % 3;
			SlotMigration migration = cluster.beginSlotMigration(slot, target);
			// every key the send script touches is on the target: the source answers ASK
			migration.moveKey(keys.delayed());
			migration.moveKey(keys.messages());
			Thread finisher = new Thread(() -> {
				try {
					Thread.sleep(800);
				}
				catch (InterruptedException ex) {
					Thread.currentThread().interrupt();
				}
				migration.finish();
			});
			finisher.start();
			try {
				assertThat(engine.template().send(queue, "during", Duration.ofMinutes(5)).status())
					.isEqualTo(SendResult.Status.SCHEDULED);
			}
			finally {
				finisher.join();
			}
			assertThat(engine.template().send(queue, "after", Duration.ofMinutes(5)).status())
				.isEqualTo(SendResult.Status.SCHEDULED);
			assertThat(engine.admin().stats(queue).scheduled()).isEqualTo(3);
		}
	}

	@Test
	void aPausedReplicaOfAnotherMasterNeitherDelaysNorFailsADurableSend() {
		try (DelayQueueEngine engine = DelayQueueEngine.builder(connectionFactory)
			.sendDurability(Durability.replicas(1, Duration.ofMillis(500)))
			.build()) {
			RedisServer own = replicaOf("invoices");
			RedisServer other = cluster.replicas()
				.stream()
				.filter((replica) -> replica != own)
				.findFirst()
				.orElseThrow();
			other.pause();
			try {
				long started = System.nanoTime();
				assertThat(engine.template().send("invoices", "x", Duration.ofMinutes(5)).status())
					.isEqualTo(SendResult.Status.SCHEDULED);
				assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).as("confirmed after (ms)")
					.isLessThan(450);
			}
			finally {
				other.resume();
			}
		}
	}

}
