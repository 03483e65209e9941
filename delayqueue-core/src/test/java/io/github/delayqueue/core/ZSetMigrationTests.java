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

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@link ZSetMigration}: a hand-written delayed queue (score the due time, member the
 * payload or an id with the payload in a hash) moved while its own poller runs.
 */
@RedisTest
class ZSetMigrationTests extends QueueTestFixture {

	ZSetMigrationTests(RedisServer redis, RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	@Test
	void aPollerRunningMeanwhileAndTheMigrationHandleEachPayloadOnceNeverEarly() throws Exception {
		String zset = "legacy:" + this.queue;
		long now = System.currentTimeMillis();
		Map<String, Long> due = new ConcurrentHashMap<>();
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (int i = 0; i < 3000; i++) {
				String payload = "job-" + i;
				due.put(payload, now + 300 + (i % 4000));
				connection.zSetCommands().zAdd(bytes(zset), due.get(payload), bytes(payload));
			}
		}
		// the homemade poller: take what is due, one at a time, ZREM deciding who got it
		List<String> byPoller = new CopyOnWriteArrayList<>();
		AtomicBoolean polling = new AtomicBoolean(true);
		Thread poller = new Thread(() -> {
			try (RedisConnection connection = this.connectionFactory.getConnection()) {
				while (polling.get()) {
					var dueNow = connection.zSetCommands()
						.zRangeByScore(bytes(zset), 0, System.currentTimeMillis(), 0, 10);
					for (byte[] member : dueNow) {
						if (connection.zSetCommands().zRem(bytes(zset), member) == 1) {
							byPoller.add(new String(member, StandardCharsets.UTF_8));
						}
					}
					sleep(20);
				}
			}
		});
		poller.start();
		sleep(1000);
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory));
		Map<String, Long> delivered = new ConcurrentHashMap<>();
		start(engine
			.listenerContainer(this.queue, "jobs", String.class,
					(payload, context) -> delivered.put(payload, System.currentTimeMillis()))
			.concurrency(8)
			.build());
		MigrationResult result = ZSetMigration.from(zset).to(this.queue).chunkSize(25).build().migrate(engine);
		assertThat(result.finished()).isTrue();
		await().atMost(Duration.ofSeconds(30)).until(() -> byPoller.size() + delivered.size() >= 3000);
		sleep(500);
		polling.set(false);
		poller.join(5000);
		assertThat(byPoller).isNotEmpty();
		assertThat(delivered).isNotEmpty();
		List<String> all = new ArrayList<>(byPoller);
		all.addAll(delivered.keySet());
		assertThat(all).hasSize(3000).doesNotHaveDuplicates();
		delivered.forEach((payload, at) -> assertThat(at).as(payload).isGreaterThanOrEqualTo(due.get(payload)));
	}

	@Test
	void idsWithTheirPayloadsInAHashBecomeTheMessagesIdsAndSecondsAreRead() {
		String zset = "legacy:" + this.queue;
		String hash = "legacy:" + this.queue + ":bodies";
		long dueSeconds = System.currentTimeMillis() / 1000 + 3600;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (int i = 0; i < 5; i++) {
				connection.zSetCommands().zAdd(bytes(zset), dueSeconds + i, bytes("reminder-" + i));
				connection.hashCommands().hSet(bytes(hash), bytes("reminder-" + i), bytes("{\"n\":" + i + "}"));
			}
		}
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory));
		MigrationResult result = ZSetMigration.from(zset)
			.payloads(hash)
			.to(this.queue)
			.payload(MigrationPayload.bytes())
			.scoreUnit(TimeUnit.SECONDS)
			.build()
			.migrate(engine);
		assertThat(result).isEqualTo(new MigrationResult(zset, this.queue, 5, 0, 0, 0));
		ScheduledMessage third = engine.admin().scheduledMessage(this.queue, "reminder-2").orElseThrow();
		assertThat(third.dueTime().toEpochMilli()).isEqualTo((dueSeconds + 2) * 1000);
		assertThat(new String(third.payload(), StandardCharsets.UTF_8)).isEqualTo("{\"n\":2}");
		assertThat(engine.template().cancel(this.queue, "reminder-4")).isTrue();
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			assertThat(connection.keyCommands().exists(bytes(zset), bytes(hash))).isZero();
		}
	}

	@Test
	void aRunLongerThanTheOperationTimeoutGoesOnChunkByChunk() {
		String zset = "legacy:" + this.queue;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			for (int i = 0; i < 8000; i++) {
				connection.zSetCommands().zAdd(bytes(zset), System.currentTimeMillis() + 3_600_000, bytes("p-" + i));
			}
		}
		// 1,600 chunks: on a quiet machine 3,000 in 600 chunks once took 195 ms, under
		// the
		// operation timeout, and the premise failed
		Duration timeout = Duration.ofMillis(200);
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory).operationTimeout(timeout));
		long started = System.nanoTime();
		MigrationResult result = ZSetMigration.from(zset).to(this.queue).chunkSize(5).build().migrate(engine);
		long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
		// the premise: the whole run took longer than one operation may
		assertThat(millis).isGreaterThan(timeout.toMillis());
		assertThat(result).isEqualTo(new MigrationResult(zset, this.queue, 8000, 0, 0, 0));
	}

	@Test
	void aMemberWithoutItsPayloadIsRefusedAndItsChunkStays() {
		String zset = "legacy:" + this.queue;
		String hash = zset + ":bodies";
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.zSetCommands().zAdd(bytes(zset), 1, bytes("a"));
			connection.zSetCommands().zAdd(bytes(zset), 2, bytes("b"));
			connection.hashCommands().hSet(bytes(hash), bytes("a"), bytes("x"));
		}
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ZSetMigration.from(zset).payloads(hash).to(this.queue).build().migrate(engine))
			.withMessage("Member 'b' of ZSET '" + zset + "' has no payload in hash '" + hash
					+ "': nothing of its chunk was moved");
		assertThat(engine.admin().stats(this.queue).scheduled()).isZero();
		assertThatIllegalArgumentException().isThrownBy(() -> ZSetMigration.from(zset).build())
			.withMessage("Say which queue receives the messages of ZSET '" + zset + "': to(queue)");
		assertThatIllegalArgumentException().isThrownBy(() -> ZSetMigration.from(zset).scoreUnit(TimeUnit.MINUTES))
			.withMessage("Scores are epoch MILLISECONDS or SECONDS, but the unit given was MINUTES");
	}

	@Test
	void anEntryASendWouldRefuseIsRefusedNamingItAndItsChunkStays() {
		String zset = "legacy:" + this.queue;
		long due = System.currentTimeMillis() + 3_600_000;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.zSetCommands().zAdd(bytes(zset), Double.NEGATIVE_INFINITY, bytes("now"));
			connection.zSetCommands().zAdd(bytes(zset), due, bytes("later"));
			connection.zSetCommands().zAdd(bytes(zset), 1e17, bytes("year 3170843"));
			connection.zSetCommands().zAdd(bytes(zset), Double.POSITIVE_INFINITY, bytes("never"));
		}
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory).maxPayloadSize(64));
		ZSetMigration migration = ZSetMigration.from(zset).to(this.queue).chunkSize(2).build();
		// scores before any time are due now; the chunks before the refused one move
		assertThatIllegalArgumentException().isThrownBy(() -> migration.migrate(engine))
			.withMessage("Member 'year 3170843' of ZSET '" + zset
					+ "' has score 1.0E17, due after 9999-12-31T23:59:59.999Z, "
					+ "the latest time a message may be due: nothing of its chunk was moved; give it an earlier score "
					+ "or remove it, then run the migration again");
		assertThat(engine.admin().stats(this.queue).scheduled()).isEqualTo(1);
		assertThat(engine.admin().stats(this.queue).ready()).isEqualTo(1);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			assertThat(connection.zSetCommands().zCard(bytes(zset))).isEqualTo(2);
			connection.zSetCommands().zRem(bytes(zset), bytes("year 3170843"));
		}
		assertThatIllegalArgumentException().isThrownBy(() -> migration.migrate(engine))
			.withMessageStartingWith("Member 'never' of ZSET '" + zset + "' has score Infinity, due after");
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.zSetCommands().zAdd(bytes(zset), due, bytes("never"));
			connection.zSetCommands().zAdd(bytes(zset), due, bytes("x".repeat(65)));
		}
		assertThatIllegalArgumentException().isThrownBy(() -> migration.migrate(engine))
			.withMessage("Cannot move member '" + "x".repeat(40) + "...' (score " + due + ") of ZSET '" + zset
					+ "': Payload for queue '" + this.queue
					+ "' is 65 bytes, over the limit of 64 bytes; nothing of its chunk was moved");
		assertThat(engine.admin().stats(this.queue).scheduled()).isEqualTo(1);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.zSetCommands().zRem(bytes(zset), bytes("x".repeat(65)));
		}
		assertThat(migration.migrate(engine)).isEqualTo(new MigrationResult(zset, this.queue, 1, 0, 0, 0));

		String hash = zset + ":bodies";
		String longId = "i".repeat(257);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.zSetCommands().zAdd(bytes(zset), due, bytes(longId));
			connection.hashCommands().hSet(bytes(hash), bytes(longId), bytes("x"));
		}
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ZSetMigration.from(zset).payloads(hash).to(this.queue).build().migrate(engine))
			.withMessageStartingWith(
					"Member '" + "i".repeat(40) + "...' of ZSET '" + zset + "' cannot be a message id (Message id")
			.withMessageEndingWith("): nothing of its chunk was moved");
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			assertThat(connection.zSetCommands().zCard(bytes(zset))).isEqualTo(1);
		}
		assertThat(engine.admin().stats(this.queue).scheduled()).isEqualTo(2);
	}

	@Test
	void bytesThatAreNotTextAreRefusedNamingTheirMemberNeverReplaced() {
		String zset = "legacy:" + this.queue;
		byte[] binary = { -1, -2, 0, 120, 121 };
		long due = System.currentTimeMillis() + 3_600_000;
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.zSetCommands().zAdd(bytes(zset), due, binary);
		}
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory));
		// the default conversion, text, refuses it: nothing replaced by U+FFFD
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ZSetMigration.from(zset).to(this.queue).build().migrate(engine))
			.withMessage("Cannot convert the payload of member '\\xff\\xfe\\x00xy' (score " + due + ") of ZSET '" + zset
					+ "' (5 bytes): it is not UTF-8 text: byte 0 is 0xff (MigrationPayload.bytes() keeps the bytes as"
					+ " they are); choose the payload conversion it was written with: nothing of its chunk was moved");
		assertThat(engine.admin().stats(this.queue).scheduled()).isZero();
		// as an id, it would become another id
		String hash = zset + ":bodies";
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			connection.hashCommands().hSet(bytes(hash), binary, bytes("{}"));
		}
		assertThatIllegalArgumentException()
			.isThrownBy(() -> ZSetMigration.from(zset).payloads(hash).to(this.queue).build().migrate(engine))
			.withMessage("Member '\\xff\\xfe\\x00xy' of ZSET '" + zset
					+ "' cannot be a message id (it is not UTF-8 text: byte 0 is 0xff (MigrationPayload.bytes() keeps the"
					+ " bytes as they are)): nothing of its chunk was moved");
		// the bytes, as they are
		assertThat(ZSetMigration.from(zset).to(this.queue).payload(MigrationPayload.bytes()).build().migrate(engine))
			.isEqualTo(new MigrationResult(zset, this.queue, 1, 0, 0, 0));
		assertThat(engine.admin().scheduled(this.queue, null, 10).get(0).payload()).isEqualTo(binary);
	}

}
