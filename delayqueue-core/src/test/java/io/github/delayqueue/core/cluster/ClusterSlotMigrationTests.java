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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.Partitioner;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.RedisClusterTest;
import io.github.delayqueue.test.SlotMigration;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A queue whose slot migrates to another master: while its keys are split between the two
 * (a {@code MIGRATE} in progress), Redis refuses the multi-key scripts and reads with
 * {@code TRYAGAIN}; sends and promotions retry with a bounded backoff instead of failing
 * or stalling, and nothing is lost or delivered early.
 */
@Tag("faults")
@RedisClusterTest(masters = 3)
class ClusterSlotMigrationTests {

	private final RedisCluster cluster;

	private final DelayQueueEngine engine;

	private final RedisConnectionFactory connectionFactory;

	private final List<DelayQueueListenerContainer> containers = new CopyOnWriteArrayList<>();

	ClusterSlotMigrationTests(RedisCluster cluster, RedisConnectionFactory connectionFactory) {
		this.cluster = cluster;
		this.connectionFactory = connectionFactory;
		this.engine = DelayQueueEngine.builder(connectionFactory).build();
	}

	@AfterEach
	void stop() {
		this.containers.forEach(DelayQueueListenerContainer::stop);
		this.engine.close();
	}

	/** Received payload → when it was handled. */
	private Map<String, Instant> listen(String queue) {
		Map<String, Instant> received = new ConcurrentHashMap<>();
		DelayQueueListenerContainer container = this.engine
			.listenerContainer(queue, "g", String.class,
					(payload, context) -> received.putIfAbsent(payload, Instant.now()))
			.build();
		container.start();
		this.containers.add(container);
		return received;
	}

	@Test
	void sendsAndPromotionsWaitOutASplitSlot() throws Exception {
		String queue = "split";
		QueueKeys keys = this.engine.keys(queue);
		Map<String, Instant> received = listen(queue);
		Map<String, Instant> due = new ConcurrentHashMap<>();
		for (int i = 0; i < 10; i++) {
			SendResult result = this.engine.template().send(queue, "before-" + i, Duration.ofMillis(600));
			due.put("before-" + i, result.dueTime());
		}
		int slot = this.cluster.slotOf(keys.stream());
		int target = (this.cluster.masterOf(slot) + 1) % 3;
		SlotMigration migration = this.cluster.beginSlotMigration(slot, target);
		// the scheduled set on the target, the rest on the source: every script refused
		migration.moveKey(keys.delayed());
		CountDownLatch finished = new CountDownLatch(1);
		Instant[] finishedAt = new Instant[1];
		Thread finisher = new Thread(() -> {
			try {
				Thread.sleep(1200);
				migration.finish();
				finishedAt[0] = Instant.now();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				finished.countDown();
			}
		});
		finisher.start();
		for (int i = 0; i < 5; i++) {
			SendResult result = this.engine.template().send(queue, "during-" + i, Duration.ofMillis(300));
			assertThat(result.status()).isEqualTo(SendResult.Status.SCHEDULED);
			due.put("during-" + i, result.dueTime());
		}
		assertThat(finished.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(this.cluster.masterOf(slot)).isEqualTo(target);
		await().atMost(Duration.ofSeconds(10)).until(() -> received.keySet().containsAll(due.keySet()));
		for (Map.Entry<String, Instant> message : due.entrySet()) {
			Instant at = received.get(message.getKey());
			assertThat(at).as("%s handled", message.getKey()).isAfterOrEqualTo(message.getValue());
			Instant latest = (message.getValue().isAfter(finishedAt[0]) ? message.getValue() : finishedAt[0])
				.plusMillis(1000);
			assertThat(at).as("%s handled at most 1 s after it was due and its slot served", message.getKey())
				.isBefore(latest);
		}
	}

	@Test
	void aSendRefusedForLongerThanTheOperationTimeoutSaysItWasNotAppliedAndNamesTheSlot() {
		try (DelayQueueEngine engine = DelayQueueEngine.builder(this.connectionFactory)
			.operationTimeout(Duration.ofMillis(700))
			.build()) {
			String queue = "held-split";
			QueueKeys keys = engine.keys(queue);
			assertThat(engine.template().send(queue, "before", Duration.ofMinutes(5)).status())
				.isEqualTo(SendResult.Status.SCHEDULED);
			int slot = this.cluster.slotOf(keys.stream());
			int target = (this.cluster.masterOf(slot) + 1) % 3;
			SlotMigration migration = this.cluster.beginSlotMigration(slot, target);
			// held split past the operation timeout: every try of the send is refused
			migration.moveKey(keys.delayed());
			try {
				assertThatExceptionOfType(DelayQueueException.class)
					.isThrownBy(() -> engine.template().send(queue, "during", Duration.ofMinutes(5)))
					.withMessageStartingWith("Cannot send to queue(s) " + queue + ": Redis Cluster answered TRYAGAIN")
					.withMessageContaining("slot " + slot + " is migrating")
					.withMessageContaining("nothing was applied")
					.withMessageNotContaining("may or may not");
			}
			finally {
				migration.finish();
			}
			// nothing was applied, and the retry the message invites goes through
			assertThat(engine.admin().stats(queue).scheduled()).isEqualTo(1);
			assertThat(engine.template().send(queue, "during", Duration.ofMinutes(5)).status())
				.isEqualTo(SendResult.Status.SCHEDULED);
			assertThat(engine.admin().stats(queue).scheduled()).isEqualTo(2);
		}
	}

	@Test
	void aSlowKeyByKeyMigrationUnderLoadLosesNothing() throws Exception {
		migrateUnderLoad("migrating", this::slowMigration);
	}

	@Test
	void aFastReshardUnderLoadLosesNothing() throws Exception {
		migrateUnderLoad("resharded", (slot, target) -> {
			Thread.sleep(300);
			this.cluster.migrateSlot(slot, target);
			Thread.sleep(300);
		});
	}

	@Test
	void anOrderedPartitionMigratedKeyByKeyUnderLoadKeepsItsOrder() throws Exception {
		String queue = "ordered-moving";
		try (DelayQueueEngine partitioned = DelayQueueEngine.builder(this.connectionFactory)
			.partitions(queue, 3)
			.build()) {
			List<String> handled = new CopyOnWriteArrayList<>();
			DelayQueueListenerContainer container = partitioned
				.listenerContainer(queue, "g", String.class, (payload, context) -> handled.add(payload))
				.ordered(true)
				.build();
			container.start();
			this.containers.add(container);
			String key = "customer-1";
			QueueKeys keys = partitioned.partitionKeys(queue).get(Partitioner.CRC32.partition(key, 3));
			await().atMost(Duration.ofSeconds(10)).until(() -> container.partitionsRead().size() == 3);
			List<String> sent = new ArrayList<>();
			Instant base = Instant.now().plusMillis(200);
			moveUnderLoad(this.cluster.slotOf(keys.stream()), (slot, target) -> {
				Thread.sleep(200);
				slowMigration(slot, target);
			}, (i) -> {
				String payload = String.format("m-%04d", i);
				partitioned.template()
					.send(DelayMessage.builder(payload)
						.queue(queue)
						.key(key)
						.deliverAt(base.plusMillis(10L * i))
						.build());
				sent.add(payload);
			});
			try {
				await().atMost(Duration.ofSeconds(15)).until(() -> handled.size() >= sent.size());
			}
			catch (ConditionTimeoutException ex) {
				List<String> missing = new ArrayList<>(sent);
				missing.removeAll(handled);
				throw new AssertionError(
						"Not handled within 15 s: " + missing.size() + " of " + sent.size() + " ("
								+ missing.subList(0, Math.min(5, missing.size())) + " ...); "
								+ partitioned.admin().stats(queue) + "; partitions read " + container.partitionsRead(),
						ex);
			}
			// every message once, in due order, through the move of its partition
			assertThat(handled).isEqualTo(sent);
		}
	}

	interface Move {

		void run(int slot, int target) throws Exception;

	}

	/**
	 * Sends a message every 10 ms, due 200 ms later, while a move runs: no send fails,
	 * everything is delivered, nothing early.
	 */
	private void migrateUnderLoad(String queue, Move move) throws Exception {
		QueueKeys keys = this.engine.keys(queue);
		Map<String, Instant> received = listen(queue);
		Map<String, Instant> due = new ConcurrentHashMap<>();
		// the queue's keys exist before the move starts
		due.put("first", this.engine.template().send(queue, "first", Duration.ofMillis(100)).dueTime());
		await().atMost(Duration.ofSeconds(5)).until(() -> received.containsKey("first"));
		moveUnderLoad(this.cluster.slotOf(keys.stream()), move, (i) -> {
			String payload = "m-" + i;
			due.put(payload, this.engine.template().send(queue, payload, Duration.ofMillis(200)).dueTime());
		});
		await().atMost(Duration.ofSeconds(15)).until(() -> received.keySet().containsAll(due.keySet()));
		assertThat(received.keySet()).isEqualTo(due.keySet());
		due.forEach((payload, dueTime) -> assertThat(received.get(payload)).as(payload).isAfterOrEqualTo(dueTime));
	}

	interface Send {

		void send(int i) throws Exception;

	}

	/**
	 * Moves a slot to the next master while sending every 10 ms (at least 50 sends): no
	 * move step and no send fails, and the slot ends on its new master.
	 */
	private void moveUnderLoad(int slot, Move move, Send send) throws Exception {
		int target = (this.cluster.masterOf(slot) + 1) % 3;
		List<Throwable> failures = new CopyOnWriteArrayList<>();
		Thread mover = new Thread(() -> {
			try {
				move.run(slot, target);
			}
			catch (Throwable ex) {
				failures.add(ex);
			}
		});
		mover.start();
		for (int i = 0; mover.isAlive() || i < 50; i++) {
			try {
				send.send(i);
			}
			catch (RuntimeException ex) {
				failures.add(ex);
			}
			Thread.sleep(10);
		}
		mover.join();
		assertThat(failures).isEmpty();
		assertThat(this.cluster.masterOf(slot)).isEqualTo(target);
	}

	/**
	 * A key-by-key migration, 150 ms a key. A send's keys are split between the masters
	 * (Redis answers TRYAGAIN) for the whole migration, not only while its own keys move:
	 * the send script names keys that do not exist (a retired marker, a size limit), and
	 * a migrating slot refuses a script whose keys are partly missing. So every send
	 * fails once a migration lasts longer than the operation timeout (2 s); a queue's
	 * partition holds about 8 keys here (delayed, msgs, stream, urgent, retry stream,
	 * owner, ...).
	 */
	private void slowMigration(int slot, int target) throws InterruptedException {
		SlotMigration migration = this.cluster.beginSlotMigration(slot, target);
		int moved = 0;
		long start = System.nanoTime();
		while (migration.moveKeys(1) > 0) {
			moved++;
			Thread.sleep(150);
		}
		migration.finish();
		System.out.println("Slow migration of slot " + slot + ": " + moved + " keys in "
				+ (System.nanoTime() - start) / 1_000_000 + " ms");
	}

}
