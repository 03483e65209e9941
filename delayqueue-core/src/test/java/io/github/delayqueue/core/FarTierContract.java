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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.LongStream;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.entry;
import static org.awaitility.Awaitility.await;

/**
 * The far tier ({@link DelayQueueEngineBuilder#compactAfter(Duration)}): messages due far
 * enough ahead are kept compact and still delivered once and never early; dedup, replace,
 * cancel, reschedule and look-ups find them; the id index grows and shrinks; engines that
 * keep every message in the schedule deliver what others wrote compact, and the other way
 * round. Run on a single server and on a Redis Cluster, with {@code compactAfter} of 2 s
 * (slots of 1 s, moved 1 s before they start).
 */
abstract class FarTierContract extends QueueTestFixture {

	private static final Duration WAIT = Duration.ofSeconds(30);

	FarTierContract(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private DelayQueueEngine engine(Duration compactAfter) {
		// every message of a slot compact, however few: what these tests look at
		return build(DelayQueueEngine.builder(this.connectionFactory).compactAfter(compactAfter).compactMinimum(1));
	}

	private DelayQueueEngine engine() {
		return engine(Duration.ofSeconds(2));
	}

	/** Delivered payloads by id, with the Redis time at delivery and the due time. */
	private Map<String, List<Delivered>> listen(DelayQueueEngine engine) {
		Map<String, List<Delivered>> delivered = new ConcurrentHashMap<>();
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			delivered.computeIfAbsent(context.id(), (id) -> new CopyOnWriteArrayList<>())
				.add(new Delivered(payload, redisNow(), context.dueTime()));
		}).concurrency(8).build());
		return delivered;
	}

	/** Listens until every sent message came, and checks each came once and not early. */
	private Map<String, List<Delivered>> deliveredOnceNeverEarly(DelayQueueEngine engine, List<SendResult> results) {
		Map<String, List<Delivered>> delivered = listen(engine);
		await().atMost(WAIT).until(() -> delivered.size() == results.size());
		sleep(500);
		for (SendResult result : results) {
			List<Delivered> deliveries = delivered.get(result.id());
			assertThat(deliveries).as(result.id()).hasSize(1);
			assertThat(deliveries.get(0).at()).as("not early").isAfterOrEqualTo(result.dueTime());
		}
		return delivered;
	}

	private Instant redisNow() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			QueueKeys keys = new QueueKeys("dq", this.queue);
			Long millis = (connection instanceof org.springframework.data.redis.connection.RedisClusterConnection cluster)
					? cluster.serverCommands().time(cluster.clusterGetNodeForKey(QueueKeys.bytes(keys.stream())))
					: connection.serverCommands().time();
			return Instant.ofEpochMilli(millis);
		}
	}

	private long scheduleSize() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Long card = connection.zSetCommands().zCard(QueueKeys.bytes(new QueueKeys("dq", this.queue).delayed()));
			return (card != null) ? card : 0;
		}
	}

	private long farCount() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			byte[] n = connection.hashCommands()
				.hGet(QueueKeys.bytes(new QueueKeys("dq", this.queue).farState()), QueueKeys.bytes("n"));
			return (n != null) ? Long.parseLong(new String(n)) : 0;
		}
	}

	private DelayMessage<String> message(String id, String payload, Duration delay) {
		return DelayMessage.builder(payload).queue(this.queue).id(id).delay(delay).build();
	}

	@Test
	void messagesDueFarAheadAreKeptCompactAndDeliveredOnceNeverEarly() {
		DelayQueueEngine engine = engine();
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			Duration delay = Duration.ofMillis(2500 + (i * 7) % 2500);
			// explicit ids and generated ones
			messages.add((i % 2 == 0) ? message("m-" + i, "p-" + i, delay)
					: DelayMessage.builder("p-" + i).queue(this.queue).delay(delay).build());
		}
		List<SendResult> results = engine.template().sendAll(messages);
		assertThat(results).extracting(SendResult::status).containsOnly(SendResult.Status.SCHEDULED);
		assertThat(scheduleSize()).isZero();
		assertThat(farCount()).isEqualTo(300);
		assertThat(engine.admin().stats(this.queue).scheduled()).isEqualTo(300);
		Map<String, List<Delivered>> delivered = deliveredOnceNeverEarly(engine, results);
		for (SendResult result : results) {
			assertThat(delivered.get(result.id()).get(0).due()).isEqualTo(result.dueTime());
		}
		assertThat(farCount()).isZero();
		assertThat(engine.admin().stats(this.queue).scheduled()).isZero();
	}

	@Test
	void dedupReplaceCancelRescheduleAndLookUpFindMessagesInTheFarTier() {
		DelayQueueEngine engine = engine();
		SendResult kept = engine.template().send(message("kept", "first", Duration.ofSeconds(4)));
		SendResult duplicate = engine.template().send(message("kept", "second", Duration.ofSeconds(5)));
		assertThat(duplicate.status()).isEqualTo(SendResult.Status.DUPLICATE);
		assertThat(duplicate.dueTime()).isEqualTo(kept.dueTime());
		engine.template().send(message("near", "was-far", Duration.ofSeconds(4)));
		SendResult replaced = engine.template()
			.send(DelayMessage.builder("now-near")
				.queue(this.queue)
				.id("near")
				.delay(Duration.ofMillis(500))
				.replaceExisting()
				.build());
		assertThat(replaced.status()).isEqualTo(SendResult.Status.REPLACED);
		engine.template().send(message("cancelled", "never", Duration.ofSeconds(4)));
		assertThat(engine.template().cancel(this.queue, "cancelled")).isTrue();
		assertThat(engine.template().cancel(this.queue, "cancelled")).isFalse();
		engine.template().send(message("moved", "moved", Duration.ofSeconds(3)));
		assertThat(engine.template().reschedule(this.queue, "moved", Duration.ofMillis(4500))).isTrue();
		engine.template().send(message("pulled", "pulled", Duration.ofSeconds(4)));
		assertThat(engine.template().reschedule(this.queue, "pulled", Duration.ofMillis(1500))).isTrue();
		engine.template().send(message("pushed", "pushed", Duration.ofMillis(600)));
		assertThat(engine.template().reschedule(this.queue, "pushed", Duration.ofSeconds(3))).isTrue();
		assertThat(farCount()).isEqualTo(3);
		Optional<ScheduledMessage> found = engine.admin().scheduledMessage(this.queue, "kept");
		assertThat(found).isPresent();
		assertThat(found.get().dueTime()).isEqualTo(kept.dueTime());
		assertThat(engine.admin().scheduled(this.queue, null, 100)).extracting(ScheduledMessage::id)
			.containsExactly("near", "pulled", "pushed", "kept", "moved");
		assertThat(engine.admin()
			.scheduled(this.queue, engine.admin().scheduled(this.queue, null, 3).get(2).cursor(), 100))
			.extracting(ScheduledMessage::id)
			.containsExactly("kept", "moved");
		Map<String, List<Delivered>> delivered = listen(engine);
		await().atMost(WAIT).until(() -> delivered.size() == 5);
		sleep(700);
		assertThat(delivered).containsOnlyKeys("kept", "near", "moved", "pulled", "pushed");
		assertThat(delivered.get("kept")).extracting(Delivered::payload).containsExactly("first");
		assertThat(delivered.get("near")).extracting(Delivered::payload).containsExactly("now-near");
		delivered.values().forEach((deliveries) -> {
			assertThat(deliveries).hasSize(1);
			assertThat(deliveries.get(0).at()).isAfterOrEqualTo(deliveries.get(0).due());
		});
		assertThat(delivered.get("moved").get(0).due()).isAfter(kept.dueTime());
	}

	@Test
	void aSlotMovedInPartIsFinishedByTheNextCallAndEachMessageIsDeliveredOnce() {
		DelayQueueEngine engine = engine();
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 3000; i++) {
			messages.add(message("m-" + i, "p-" + i, Duration.ofMillis(4000 + i % 1000)));
		}
		List<SendResult> results = engine.template().sendAll(messages);
		assertThat(farCount()).isEqualTo(3000);
		// one promote call of 100, moving slots that start within 60 s: then the caller
		// is gone (as a scheduler killed between two calls)
		QueueKeys keys = new QueueKeys("dq", this.queue);
		List<Object> reply = engine.scripts()
			.run(io.github.delayqueue.core.internal.redis.Scripts.PROMOTE, keys.promoteKeys(List.of()), 100, "0", 16,
					60_000);
		assertThat(io.github.delayqueue.core.internal.redis.ScriptRunner.asLong(reply.get(3)))
			.as("the call hit its limit")
			.isEqualTo(1);
		assertThat(farCount()).isEqualTo(2900);
		assertThat(scheduleSize()).isEqualTo(100);
		assertThat(engine.admin().stats(this.queue).scheduled()).isEqualTo(3000);
		deliveredOnceNeverEarly(engine, results);
		assertThat(farCount()).isZero();
	}

	@Test
	void anIdCancelledAndSentAgainForTheSameTimeIsDeliveredOnceWithItsNewPayload() {
		DelayQueueEngine engine = engine();
		Instant due = Instant.now().plusSeconds(4);
		engine.template().send(DelayMessage.builder("old").queue(this.queue).id("x").deliverAt(due).build());
		assertThat(engine.template().cancel(this.queue, "x")).isTrue();
		engine.template().send(DelayMessage.builder("new").queue(this.queue).id("x").deliverAt(due).build());
		engine.template().send(DelayMessage.builder("y-old").queue(this.queue).id("y").deliverAt(due).build());
		engine.template()
			.send(DelayMessage.builder("y-new").queue(this.queue).id("y").deliverAt(due).replaceExisting().build());
		assertThat(farCount()).isEqualTo(2);
		Map<String, List<Delivered>> delivered = listen(engine);
		await().atMost(WAIT).until(() -> delivered.size() == 2);
		sleep(700);
		assertThat(delivered.get("x")).extracting(Delivered::payload).containsExactly("new");
		assertThat(delivered.get("y")).extracting(Delivered::payload).containsExactly("y-new");
	}

	@Test
	void theIdIndexGrowsAndShrinksAndFindsEveryId() {
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory)
			.compactAfter(Duration.ofSeconds(2))
			.compactMinimum(1)
			.sendBatchSize(2000));
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 20_000; i++) {
			messages.add(message("id-" + i, "p", Duration.ofSeconds(30)));
		}
		engine.template().sendAll(messages);
		assertThat(farCount()).isEqualTo(20_000);
		QueueKeys keys = new QueueKeys("dq", this.queue);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			List<Object> state = new ArrayList<>(connection.hashCommands()
				.hMGet(QueueKeys.bytes(keys.farState()), QueueKeys.bytes("l"), QueueKeys.bytes("p")));
			int level = Integer.parseInt(new String((byte[]) state.get(0)));
			int split = Integer.parseInt(new String((byte[]) state.get(1)));
			int buckets = (1 << level) + split;
			assertThat(buckets).as("about 32 ids per bucket at most").isGreaterThanOrEqualTo(20_000 / 32);
			long indexed = 0;
			for (int b = 0; b < buckets; b++) {
				byte[] bucket = QueueKeys.bytes(keys.far() + "-ids:" + b);
				indexed += connection.zSetCommands().zCard(bucket);
				assertThat(connection.keyCommands().encodingOf(bucket).raw()).as("bucket " + b).isEqualTo("listpack");
			}
			assertThat(indexed).isEqualTo(20_000);
		}
		// every id is found where the grown index puts it, and the index shrinks back
		for (int i = 0; i < 19_900; i++) {
			assertThat(engine.template().cancel(this.queue, "id-" + i)).as("id-" + i).isTrue();
		}
		assertThat(farCount()).isEqualTo(100);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			List<Object> state = new ArrayList<>(connection.hashCommands()
				.hMGet(QueueKeys.bytes(keys.farState()), QueueKeys.bytes("l"), QueueKeys.bytes("p")));
			int buckets = (1 << Integer.parseInt(new String((byte[]) state.get(0))))
					+ Integer.parseInt(new String((byte[]) state.get(1)));
			assertThat(buckets).as("merged back to about 8 ids per bucket at least").isLessThanOrEqualTo(100 / 8 + 1);
		}
		for (int i = 19_900; i < 20_000; i++) {
			assertThat(engine.admin().scheduledMessage(this.queue, "id-" + i)).as("id-" + i).isPresent();
		}
	}

	@Test
	void pagesOfTheFarTierComeInDueOrderAcrossAndWithinLargeSlots() {
		// slots of 10 s, moved 10 s before they start: nothing moves during the test
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory)
			.compactAfter(Duration.ofSeconds(20))
			.compactMinimum(1)
			.sendBatchSize(1000));
		Instant base = Instant.now().plusSeconds(40);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 5000; i++) {
			// written in no particular due order, several per millisecond
			long offset = (i * 7919L) % 25_000;
			messages.add(DelayMessage.builder("p")
				.queue(this.queue)
				.id(String.format("m-%05d", i))
				.deliverAt(base.plusMillis(offset / 2))
				.build());
		}
		engine.template().sendAll(messages);
		assertThat(farCount()).isEqualTo(5000);
		List<ScheduledMessage> all = scheduledInPagesOf(engine, 1000);
		assertThat(all).hasSize(5000);
		assertThat(all).extracting(ScheduledMessage::id).doesNotHaveDuplicates();
		for (int i = 1; i < all.size(); i++) {
			assertThat(all.get(i).dueTime()).isAfterOrEqualTo(all.get(i - 1).dueTime());
		}
	}

	@Test
	void aLookUpByIdReadsOnePageOfALargeSlotNotTheSlot() {
		DelayQueueEngine engine = build(slotsOfTenSeconds().sendBatchSize(500));
		long slot = slotInFiftySeconds();
		engine.template().sendAll(spreadOver(slot, "m-", 5500));
		assertThat(farCount()).isEqualTo(5500);
		// 2,000 in the slot's root, the rest in the halves that hold their due times
		assertThat(farNodes()).containsExactly(entry(slot + "", (double) slot),
				entry(slot + ":1:0:10000", (double) slot), entry(slot + ":1:1:10000", (double) slot + 5000));
		// the first message written is in the first page, the last in the last
		long reads = streamReads();
		assertThat(engine.admin().scheduledMessage(this.queue, "m-0")).get()
			.satisfies((found) -> assertThat(new String(found.payload())).contains("p-0"));
		// its page, 1,000 entries at a time (the slot would take 6)
		assertThat(streamReads() - reads).as("entries read for one look-up, by 1,000").isBetween(1L, 2L);
		assertThat(engine.admin().scheduledMessage(this.queue, "m-5499")).get()
			.satisfies((found) -> assertThat(found.dueTime().toEpochMilli()).isEqualTo(slot + (5499 * 7L) % 9000));
		// found where they are, changed where they are
		assertThat(engine.template().reschedule(this.queue, "m-0", Instant.ofEpochMilli(slot + 9500))).isTrue();
		assertThat(engine.admin().scheduledMessage(this.queue, "m-0")).get()
			.satisfies((found) -> assertThat(found.dueTime().toEpochMilli()).isEqualTo(slot + 9500));
		assertThat(engine.template().cancel(this.queue, "m-1")).isTrue();
		assertThat(engine.template()
			.send(DelayMessage.builder("again")
				.queue(this.queue)
				.id("m-2")
				.deliverAt(Instant.ofEpochMilli(slot))
				.build())
			.status()).isEqualTo(SendResult.Status.DUPLICATE);
		List<ScheduledMessage> all = scheduledInPagesOf(engine, 700);
		assertThat(all).hasSize(5499);
		assertThat(all).extracting(ScheduledMessage::id).doesNotHaveDuplicates().doesNotContain("m-1");
		for (int i = 1; i < all.size(); i++) {
			assertThat(all.get(i).dueTime()).isAfterOrEqualTo(all.get(i - 1).dueTime());
		}
		assertThat(all.get(all.size() - 1).id()).isEqualTo("m-0");
	}

	@Test
	void aPageTheScheduleFillsReadsNoFarTierSlot() {
		DelayQueueEngine engine = build(slotsOfTenSeconds());
		Instant near = Instant.now().plusSeconds(8);
		long slot = slotInFiftySeconds();
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 60; i++) {
			messages.add(DelayMessage.builder("n-" + i).queue(this.queue).id("n-" + i).deliverAt(near).build());
		}
		messages.addAll(spreadOver(slot, "f-", 3000));
		engine.template().sendAll(messages);
		assertThat(farCount()).isEqualTo(3000);
		long reads = streamReads();
		List<ScheduledMessage> first = engine.admin().scheduled(this.queue, null, 50);
		List<ScheduledMessage> next = engine.admin().scheduled(this.queue, first.get(4).cursor(), 50);
		assertThat(streamReads() - reads).as("far-tier entries read for pages the schedule fills").isZero();
		assertThat(first).extracting(ScheduledMessage::id).allMatch((id) -> id.startsWith("n-"));
		assertThat(next).hasSize(50).extracting(ScheduledMessage::id).allMatch((id) -> id.startsWith("n-"));
		// a page the schedule does not fill takes the earliest of the far tier after it
		List<ScheduledMessage> both = engine.admin().scheduled(this.queue, null, 100);
		assertThat(both.subList(0, 60)).extracting(ScheduledMessage::id).allMatch((id) -> id.startsWith("n-"));
		assertThat(both.subList(60, 100)).extracting((message) -> message.dueTime().toEpochMilli())
			.containsExactlyElementsOf(
					LongStream.range(0, 3000).map((i) -> slot + (i * 7L) % 9000).sorted().limit(40).boxed().toList());
	}

	@Test
	void aDenseSlotIsCutByDueTimeSoItsFirstPageReadsAFractionOfIt() {
		DelayQueueEngine engine = build(slotsOfTenSeconds().sendBatchSize(1000));
		long slot = slotInFiftySeconds();
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 20_000; i++) {
			messages.add(DelayMessage.builder("p-" + i)
				.queue(this.queue)
				.id("m-" + i)
				.deliverAt(Instant.ofEpochMilli(slot + (i * 7919L) % 10_000))
				.build());
		}
		engine.template().sendAll(messages);
		assertThat(farCount()).isEqualTo(20_000);
		// root 2,000; 2 halves, 4 quarters of 2,000; the last 6,000 in eighths
		Map<String, Double> nodes = farNodes();
		assertThat(nodes).hasSize(1 + 2 + 4 + 8);
		assertThat(nodes).containsEntry(slot + ":3:7:10000", (double) slot + 8750);
		long reads = streamReads();
		List<ScheduledMessage> first = engine.admin().scheduled(this.queue, null, 50);
		// the first node of each level: 2,000 + 2,000 + 2,000 + 750 entries (the slot
		// would take 21 reads)
		assertThat(streamReads() - reads).as("reads of up to 1,000 entries for the first page").isLessThanOrEqualTo(10);
		assertThat(first).extracting((message) -> message.dueTime().toEpochMilli())
			.containsExactlyElementsOf(LongStream.range(0, 20_000)
				.map((i) -> slot + (i * 7919L) % 10_000)
				.sorted()
				.limit(50)
				.boxed()
				.toList());
		// every message found by id in its node, in order across the nodes
		for (int i = 0; i < 20_000; i += 997) {
			long due = slot + (i * 7919L) % 10_000;
			assertThat(engine.admin().scheduledMessage(this.queue, "m-" + i)).get()
				.satisfies((found) -> assertThat(found.dueTime().toEpochMilli()).isEqualTo(due));
		}
		List<ScheduledMessage> all = scheduledInPagesOf(engine, 1000);
		assertThat(all).hasSize(20_000).extracting(ScheduledMessage::id).doesNotHaveDuplicates();
		for (int i = 1; i < all.size(); i++) {
			assertThat(all.get(i).dueTime()).isAfterOrEqualTo(all.get(i - 1).dueTime());
		}
	}

	@Test
	void messagesPiledOnOneMillisecondGoDownToTheLastLevelThenIntoPages() {
		// slots of 1 s: 10 levels down to nodes of 1.95 ms, then pages of 2,000
		DelayQueueEngine engine = build(DelayQueueEngine.builder(this.connectionFactory)
			.compactAfter(Duration.ofSeconds(2))
			.compactMinimum(1)
			.sendBatchSize(1000)
			.promoteBatchSize(700));
		Instant due = Instant.now().plusSeconds(6);
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 21_000; i++) {
			messages.add(DelayMessage.builder("p-" + i).queue(this.queue).id("m-" + i).deliverAt(due).build());
		}
		engine.template().sendAll(messages);
		long slot = due.toEpochMilli() - due.toEpochMilli() % 1000;
		Map<String, Double> nodes = farNodes();
		assertThat(nodes).as("a node per level on the way down to the millisecond").hasSize(10);
		String last = nodes.keySet()
			.stream()
			.filter((member) -> member.startsWith(slot + ":9:"))
			.findFirst()
			.orElseThrow();
		QueueKeys keys = new QueueKeys("dq", this.queue);
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			assertThat(connection.hashCommands().hGet(QueueKeys.bytes(keys.farState()), QueueKeys.bytes("p" + last)))
				.as("the last level's node: pages 0 and 1")
				.isEqualTo("1".getBytes());
		}
		long reads = streamReads();
		assertThat(engine.admin().scheduledMessage(this.queue, "m-20999")).isPresent();
		assertThat(streamReads() - reads).as("one page read for a look-up").isBetween(1L, 2L);
		assertThat(engine.template().cancel(this.queue, "m-0")).isTrue();
		assertThat(engine.template().cancel(this.queue, "m-20999")).isTrue();
		Map<String, List<Delivered>> delivered = listen(engine);
		await().atMost(WAIT).until(() -> delivered.size() == 20_998);
		assertThat(delivered).doesNotContainKeys("m-0", "m-20999");
		assertThat(delivered.values()).allSatisfy((list) -> {
			assertThat(list).hasSize(1);
			assertThat(list.get(0).at()).isAfterOrEqualTo(due);
		});
	}

	/** Every scheduled message of the queue, read a page at a time. */
	private List<ScheduledMessage> scheduledInPagesOf(DelayQueueEngine engine, int size) {
		List<ScheduledMessage> all = new ArrayList<>();
		String after = null;
		List<ScheduledMessage> page;
		while (!(page = engine.admin().scheduled(this.queue, after, size)).isEmpty()) {
			all.addAll(page);
			after = page.get(page.size() - 1).cursor();
		}
		return all;
	}

	/** The far tier's nodes: member and start. */
	private Map<String, Double> farNodes() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			Map<String, Double> nodes = new java.util.LinkedHashMap<>();
			connection.zSetCommands()
				.zRangeWithScores(QueueKeys.bytes(new QueueKeys("dq", this.queue).far()), 0, -1)
				.forEach((tuple) -> nodes.put(new String(tuple.getValue()), tuple.getScore()));
			return nodes;
		}
	}

	/** Slots of 10 s, moved 10 s before they start: nothing moves during a test. */
	private DelayQueueEngineBuilder slotsOfTenSeconds() {
		return DelayQueueEngine.builder(this.connectionFactory).compactAfter(Duration.ofSeconds(20)).compactMinimum(1);
	}

	private static long slotInFiftySeconds() {
		return (Instant.now().plusSeconds(50).toEpochMilli() / 10_000) * 10_000;
	}

	/**
	 * Messages {@code <prefix>i} (payload {@code p-i}) due in the first 9 s of a slot.
	 */
	private List<DelayMessage<?>> spreadOver(long slot, String prefix, int count) {
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			messages.add(DelayMessage.builder("p-" + i)
				.queue(this.queue)
				.id(prefix + i)
				.deliverAt(Instant.ofEpochMilli(slot + (i * 7L) % 9000))
				.build());
		}
		return messages;
	}

	/** Stream range reads run by Redis so far (inside scripts too), over every master. */
	private long streamReads() {
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			java.util.Properties stats = connection.serverCommands().info("commandstats");
			long calls = 0;
			for (String name : stats.stringPropertyNames()) {
				if (name.endsWith("cmdstat_xrevrange")) {
					String value = stats.getProperty(name);
					calls += Long.parseLong(value.substring(value.indexOf("calls=") + 6, value.indexOf(',')));
				}
			}
			return calls;
		}
	}

	@Test
	void enginesThatKeepEverythingInTheScheduleDeliverTheFarTierAndTheOtherWayRound() {
		DelayQueueEngine compact = engine();
		DelayQueueEngine plain = engine(Duration.ZERO);
		// written before the far tier existed (or by an engine without it): the schedule
		plain.template().send(message("old-layout", "old", Duration.ofSeconds(3)));
		compact.template().send(message("far", "far", Duration.ofSeconds(3)));
		assertThat(scheduleSize()).isEqualTo(1);
		assertThat(farCount()).isEqualTo(1);
		Map<String, List<Delivered>> byPlain = listen(plain);
		await().atMost(WAIT).until(() -> byPlain.size() == 2);
		sleep(500);
		assertThat(byPlain.get("old-layout")).extracting(Delivered::payload).containsExactly("old");
		assertThat(byPlain.get("far")).extracting(Delivered::payload).containsExactly("far");
		byPlain.values()
			.forEach((deliveries) -> assertThat(deliveries.get(0).at()).isAfterOrEqualTo(deliveries.get(0).due()));
	}

	@Test
	void enginesOfOtherCompactAfterSettingsShareTheFarTierAndFindEachOthersMessages() {
		// slots of 1 s and of 2 s over the same time
		DelayQueueEngine narrow = engine();
		DelayQueueEngine wide = engine(Duration.ofSeconds(4));
		Instant due = Instant.ofEpochMilli(Instant.now().plusSeconds(6).toEpochMilli());
		for (int i = 0; i < 30; i++) {
			Instant at = due.plusMillis(i * 50L);
			narrow.template().send(DelayMessage.builder("n").queue(this.queue).id("n-" + i).deliverAt(at).build());
			wide.template().send(DelayMessage.builder("w").queue(this.queue).id("w-" + i).deliverAt(at).build());
		}
		assertThat(farCount()).isEqualTo(60);
		for (DelayQueueEngine engine : List.of(narrow, wide)) {
			for (int i = 0; i < 30; i++) {
				for (String id : List.of("n-" + i, "w-" + i)) {
					assertThat(engine.admin().scheduledMessage(this.queue, id)).as(id)
						.get()
						.extracting((found) -> found.dueTime())
						.isEqualTo(due.plusMillis((Integer.parseInt(id.substring(2))) * 50L));
				}
			}
		}
		assertThat(wide.template().reschedule(this.queue, "n-0", due.plusMillis(1600))).isTrue();
		assertThat(narrow.template().cancel(this.queue, "w-1")).isTrue();
		assertThat(narrow.admin().scheduledMessage(this.queue, "n-0")).get()
			.extracting((found) -> found.dueTime())
			.isEqualTo(due.plusMillis(1600));
		Map<String, List<Delivered>> delivered = listen(narrow);
		await().atMost(WAIT).until(() -> delivered.size() == 59);
		sleep(500);
		assertThat(delivered).doesNotContainKey("w-1");
		assertThat(delivered.values()).allSatisfy((list) -> {
			assertThat(list).hasSize(1);
			assertThat(list.get(0).at()).isAfterOrEqualTo(list.get(0).due());
		});
		assertThat(delivered.get("n-0").get(0).due()).isEqualTo(due.plusMillis(1600));
	}

	@Test
	void prioritiesAndExpiryTravelThroughTheFarTier() {
		DelayQueueEngine engine = engine();
		engine.template()
			.send(DelayMessage.builder("urgent")
				.queue(this.queue)
				.id("u")
				.priority(7)
				.expireAfter(Duration.ofMinutes(1))
				.delay(Duration.ofSeconds(3))
				.build());
		assertThat(farCount()).isEqualTo(1);
		assertThat(engine.admin().scheduledMessage(this.queue, "u").orElseThrow().priority()).isEqualTo(7);
		Map<String, List<Delivered>> delivered = listen(engine);
		await().atMost(WAIT).until(() -> delivered.size() == 1);
		// delivered through the urgent stream: its priority came along
		try (RedisConnection connection = this.connectionFactory.getConnection()) {
			assertThat(connection.streamCommands().xLen(QueueKeys.bytes(new QueueKeys("dq", this.queue).urgent())))
				.isEqualTo(1);
		}
	}

	@Test
	void idsLongerThanAListpackMemberAndOfAnyCharactersWork() {
		DelayQueueEngine engine = engine();
		// over 64 bytes: its index bucket becomes a skip list, and works the same
		String longId = "order-" + "x".repeat(200);
		String unicodeId = "订单-\uD83D\uDE00-{tag} :*";
		engine.template().send(message(longId, "long", Duration.ofSeconds(3)));
		engine.template().send(message(unicodeId, "unicode", Duration.ofSeconds(3)));
		engine.template().send(message("gone", "gone", Duration.ofSeconds(3)));
		assertThat(farCount()).isEqualTo(3);
		assertThat(engine.template().send(message(longId, "again", Duration.ofSeconds(5))).status())
			.isEqualTo(SendResult.Status.DUPLICATE);
		assertThat(engine.admin().scheduledMessage(this.queue, unicodeId)).isPresent();
		assertThat(engine.template().cancel(this.queue, "gone")).isTrue();
		Map<String, List<Delivered>> delivered = listen(engine);
		await().atMost(WAIT).until(() -> delivered.size() == 2);
		sleep(500);
		assertThat(delivered).containsOnlyKeys(longId, unicodeId);
		assertThat(delivered.get(longId)).extracting(Delivered::payload).containsExactly("long");
	}

	@Test
	void aSlotGoesCompactOnlyOnceItHoldsTheMinimumSoSparseSlotsStayInTheSchedule() {
		DelayQueueEngine engine = build(
				DelayQueueEngine.builder(this.connectionFactory).compactAfter(Duration.ofSeconds(2)).compactMinimum(5));
		long slot = (Instant.now().plusSeconds(6).toEpochMilli() / 1000) * 1000;
		// one message in each of three slots (sparse): all stay in the schedule
		for (int i = 0; i < 3; i++) {
			engine.template()
				.send(DelayMessage.builder("p")
					.queue(this.queue)
					.id("sparse-" + i)
					.deliverAt(Instant.ofEpochMilli(slot + 2000 + i * 1000L))
					.build());
		}
		assertThat(farCount()).isZero();
		assertThat(scheduleSize()).isEqualTo(3);
		// eight into one slot, four of them in one call: the first four stay, the fifth
		// and those after go compact
		for (int i = 0; i < 4; i++) {
			engine.template()
				.send(DelayMessage.builder("p")
					.queue(this.queue)
					.id("dense-" + i)
					.deliverAt(Instant.ofEpochMilli(slot + 100 + i))
					.build());
		}
		List<DelayMessage<?>> more = new ArrayList<>();
		for (int i = 4; i < 8; i++) {
			more.add(DelayMessage.builder("p")
				.queue(this.queue)
				.id("dense-" + i)
				.deliverAt(Instant.ofEpochMilli(slot + 100 + i))
				.build());
		}
		engine.template().sendAll(more);
		assertThat(scheduleSize()).isEqualTo(3 + 4);
		assertThat(farCount()).isEqualTo(4);
		// a reschedule into the compact slot goes compact; into a sparse one, to the
		// schedule
		assertThat(engine.template().reschedule(this.queue, "sparse-0", Instant.ofEpochMilli(slot + 900))).isTrue();
		assertThat(farCount()).isEqualTo(5);
		assertThat(engine.template().reschedule(this.queue, "dense-7", Instant.ofEpochMilli(slot + 6000))).isTrue();
		assertThat(farCount()).isEqualTo(4);
		assertThat(scheduleSize()).isEqualTo(3 + 4);
		Map<String, List<Delivered>> delivered = listen(engine);
		await().atMost(WAIT).until(() -> delivered.size() == 11);
		sleep(500);
		assertThat(delivered.values()).allSatisfy((deliveries) -> assertThat(deliveries).hasSize(1)
			.allSatisfy((one) -> assertThat(one.at()).isAfterOrEqualTo(one.due())));
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayQueueEngine.builder(this.connectionFactory).compactMinimum(0))
			.withMessage("Compact minimum must be from 1 to 100000 messages per slot, but was 0");
	}

	@Test
	void compactAfterRefusesNegativeAndSubSecondValues() {
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayQueueEngine.builder(this.connectionFactory).compactAfter(Duration.ofMillis(500)))
			.withMessage("Compact after must be zero or from 1 second to 1 day, but was PT0.5S");
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayQueueEngine.builder(this.connectionFactory).compactAfter(Duration.ofHours(25)))
			.withMessage("Compact after must be zero or from 1 second to 1 day, but was PT25H");
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayQueueEngine.builder(this.connectionFactory).compactAfter(Duration.ofSeconds(-1)));
		org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayQueueEngine.builder(this.connectionFactory).compactAfter(null));
	}

	record Delivered(String payload, Instant at, Instant due) {
	}

}
