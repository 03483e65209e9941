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
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;
import static org.awaitility.Awaitility.await;

/**
 * Recurring schedules ({@link DelaySchedules}): one message per tick whatever the number
 * of engines, atomic update and delete, pause, trigger, missed ticks, bad input. Run on a
 * single server and on a Redis Cluster, with partitions.
 */
abstract class ScheduleContract extends QueueTestFixture {

	private static final Duration WAIT = Duration.ofSeconds(15);

	ScheduleContract(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private DelayQueueEngine engine() {
		return build(DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, 3));
	}

	private DelaySchedule.Builder every(String name, long millis) {
		return DelaySchedule.builder(name, this.queue).every(Duration.ofMillis(millis)).payload("tick");
	}

	/** Tick times delivered, by message id, with how often each was delivered. */
	private Map<String, AtomicInteger> listen(DelayQueueEngine engine, List<Long> lateness) {
		Map<String, AtomicInteger> delivered = new ConcurrentHashMap<>();
		start(engine.listenerContainer(this.queue, "g", String.class, (payload, context) -> {
			delivered.computeIfAbsent(context.id(), (id) -> new AtomicInteger()).incrementAndGet();
			long tick = tickOf(context.id());
			if (tick > 0) {
				lateness.add(System.currentTimeMillis() - tick);
			}
		}).build());
		return delivered;
	}

	private static long tickOf(String id) {
		String last = id.substring(id.lastIndexOf('/') + 1);
		return last.chars().allMatch(Character::isDigit) ? Long.parseLong(last) : -1;
	}

	@Test
	void everyTickIsOneMessageWhateverTheNumberOfEnginesThatRegisterAndServeTheSchedule() {
		List<DelayQueueEngine> engines = List.of(engine(), engine(), engine());
		List<Long> lateness = new CopyOnWriteArrayList<>();
		List<Map<String, AtomicInteger>> deliveries = new ArrayList<>();
		for (DelayQueueEngine engine : engines) {
			deliveries.add(listen(engine, lateness));
		}
		DelaySchedule schedule = every("pulse", 200).build();
		engines.parallelStream().forEach((engine) -> engine.admin().schedules().register(schedule));
		await().atMost(WAIT).until(() -> deliveries.stream().mapToInt(Map::size).sum() >= 12);
		engines.get(0).admin().schedules().delete(this.queue, "pulse");
		sleep(300);
		Map<String, Integer> all = new java.util.TreeMap<>();
		deliveries.forEach((delivered) -> delivered.forEach((id, count) -> all.merge(id, count.get(), Integer::sum)));
		assertThat(all.values()).as("deliveries per tick %s", all).containsOnly(1);
		List<Long> ticks = all.keySet().stream().map(ScheduleContract::tickOf).sorted().toList();
		for (int i = 1; i < ticks.size(); i++) {
			assertThat(ticks.get(i) - ticks.get(i - 1)).as("ticks %s", ticks).isEqualTo(200);
		}
		assertThat(ticks).allSatisfy((tick) -> assertThat(tick % 200).isZero());
		assertThat(lateness).as("never early").allSatisfy((late) -> assertThat(late).isGreaterThanOrEqualTo(0));
	}

	@Test
	void anOrderedListenerOfAPartitionedQueueHandlesTheTicksOneAfterAnotherInTickOrder() {
		DelayQueueEngine engine = engine();
		List<Long> handled = new CopyOnWriteArrayList<>();
		AtomicInteger running = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		start(engine.listenerContainer(this.queue, "ordered", String.class, (payload, context) -> {
			if (running.incrementAndGet() > 1) {
				overlaps.incrementAndGet();
			}
			sleep(150);
			handled.add(tickOf(context.id()));
			running.decrementAndGet();
		}).ordered(true).concurrency(4).build());
		// a tick every 100 ms, handled in 150 ms: they queue up, never overlap
		engine.admin().schedules().register(every("ordered-ticks", 100).build());
		await().atMost(WAIT).until(() -> handled.size() >= 6);
		engine.admin().schedules().delete(this.queue, "ordered-ticks");
		assertThat(handled).isSorted();
		assertThat(overlaps.get()).isZero();
	}

	@Test
	void anUnchangedRegistrationChangesNothingAndAChangedOneReplacesThePendingTickAtOnce() {
		DelayQueueEngine engine = engine();
		DelaySchedules schedules = engine.admin().schedules();
		ScheduleInfo first = schedules.register(every("hourly", 3_600_000).header("h", "1").build());
		assertThat(first.nextTick()).isAfter(Instant.now().minusSeconds(1));
		assertThat(first.nextTick().toEpochMilli() % 3_600_000).isZero();
		assertThat(first.interval()).isEqualTo(Duration.ofHours(1));
		assertThat(first.headers()).containsEntry("h", "1");
		assertThat(first.description()).isEqualTo("every PT1H");
		String tickId = first.tickId(first.nextTick());
		assertThat(engine.admin().scheduledMessage(this.queue, tickId)).isPresent();
		ScheduleInfo again = schedules.register(every("hourly", 3_600_000).header("h", "1").build());
		assertThat(again.nextTick()).isEqualTo(first.nextTick());
		assertThat(again.updated()).isEqualTo(first.updated());

		ScheduleInfo newPayload = schedules.register(every("hourly", 3_600_000).payload("other").build());
		assertThat(newPayload.nextTick()).isEqualTo(first.nextTick());
		assertThat(new String(engine.admin().scheduledMessage(this.queue, tickId).orElseThrow().payload(),
				StandardCharsets.UTF_8))
			.isEqualTo("other");

		ScheduleInfo cron = schedules.register(DelaySchedule.builder("hourly", this.queue)
			.cron("0 30 3 * * *", ZoneId.of("Asia/Tokyo"))
			.payload("cron")
			.build());
		assertThat(cron.cron()).isEqualTo("0 30 3 * * *");
		assertThat(cron.zone()).isEqualTo(ZoneId.of("Asia/Tokyo"));
		assertThat(cron.nextTick().atZone(ZoneId.of("Asia/Tokyo")).getHour()).isEqualTo(3);
		assertThat(engine.admin().scheduledMessage(this.queue, tickId)).as("the old tick is gone").isEmpty();
		assertThat(engine.admin().scheduled(this.queue, null, 100)).extracting(ScheduledMessage::id)
			.containsExactly(cron.tickId(cron.nextTick()));
		assertThat(schedules.list(this.queue)).extracting(ScheduleInfo::name).containsExactly("hourly");
	}

	@Test
	void aDeletedScheduleNeverFiresAgain() {
		DelayQueueEngine engine = engine();
		Map<String, AtomicInteger> delivered = listen(engine, new CopyOnWriteArrayList<>());
		engine.admin().schedules().register(every("short", 100).build());
		await().atMost(WAIT).until(() -> delivered.size() >= 2);
		assertThat(engine.admin().schedules().delete(this.queue, "short")).isTrue();
		sleep(100);
		int count = delivered.size();
		sleep(500);
		assertThat(delivered).hasSize(count);
		assertThat(engine.admin().scheduled(this.queue, null, 10)).isEmpty();
		assertThat(engine.admin().stats(this.queue).scheduled()).isZero();
		assertThat(engine.admin().schedules().find(this.queue, "short")).isEmpty();
		assertThat(engine.admin().schedules().delete(this.queue, "short")).isFalse();
	}

	@Test
	void everyTriggerHasAnIdOfItsOwnHoweverCloseTogetherTheyCome() throws Exception {
		DelayQueueEngine engine = engine();
		Map<String, AtomicInteger> delivered = listen(engine, new CopyOnWriteArrayList<>());
		DelaySchedules schedules = engine.admin().schedules();
		schedules.register(every("racing", 3_600_000).build());
		int triggers = 16;
		java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newFixedThreadPool(triggers);
		try {
			java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
			List<java.util.concurrent.Future<String>> ids = new ArrayList<>();
			for (int i = 0; i < triggers; i++) {
				ids.add(threads.submit(() -> {
					go.await();
					return schedules.trigger(this.queue, "racing").orElseThrow();
				}));
			}
			go.countDown();
			java.util.Set<String> distinct = new java.util.HashSet<>();
			for (java.util.concurrent.Future<String> id : ids) {
				distinct.add(id.get());
			}
			assertThat(distinct).hasSize(triggers).allMatch((id) -> id.startsWith("schedule/racing/now-"));
			await().atMost(WAIT).until(() -> delivered.keySet().containsAll(distinct));
			assertThat(delivered).as("each trigger one message").hasSize(triggers);
			sleep(300);
			assertThat(delivered.values()).as("each delivered once").allMatch((count) -> count.get() == 1);
		}
		finally {
			threads.shutdownNow();
		}
	}

	@Test
	void aPausedScheduleHasNoPendingTickATriggerSendsOnceAndResumeGoesOnFromNow() {
		DelayQueueEngine engine = engine();
		Map<String, AtomicInteger> delivered = listen(engine, new CopyOnWriteArrayList<>());
		DelaySchedules schedules = engine.admin().schedules();
		schedules.register(every("slow", 3_600_000).build());
		assertThat(schedules.pause(this.queue, "slow")).isTrue();
		ScheduleInfo paused = schedules.find(this.queue, "slow").orElseThrow();
		assertThat(paused.paused()).isTrue();
		assertThat(paused.nextTick()).isNull();
		assertThat(engine.admin().scheduled(this.queue, null, 10)).isEmpty();
		assertThat(schedules.register(every("slow", 3_600_000).build()).paused()).as("registering keeps the pause")
			.isTrue();
		String id = schedules.trigger(this.queue, "slow").orElseThrow();
		assertThat(id).startsWith("schedule/slow/now-");
		await().atMost(WAIT).until(() -> delivered.containsKey(id));
		assertThat(schedules.resume(this.queue, "slow")).isTrue();
		ScheduleInfo resumed = schedules.find(this.queue, "slow").orElseThrow();
		assertThat(resumed.paused()).isFalse();
		assertThat(resumed.nextTick()).isAfter(Instant.now());
		assertThat(schedules.pause(this.queue, "none")).isFalse();
		assertThat(schedules.resume(this.queue, "none")).isFalse();
		assertThat(schedules.trigger(this.queue, "none")).isEmpty();
	}

	@Test
	void cancellingThePendingTickSkipsItAndTheScheduleGoesOn() {
		DelayQueueEngine engine = engine();
		DelaySchedules schedules = engine.admin().schedules();
		ScheduleInfo info = schedules.register(every("skippable", 3_600_000).build());
		assertThat(engine.template().cancel(this.queue, info.tickId(info.nextTick()))).isTrue();
		ScheduleInfo after = schedules.find(this.queue, "skippable").orElseThrow();
		assertThat(after.nextTick()).isEqualTo(info.nextTick().plus(Duration.ofHours(1)));
		assertThat(after.skipped()).isEqualTo(1);
		assertThat(after.lastTick()).isEqualTo(info.nextTick());
		assertThat(engine.template().cancel(this.queue, "schedule/skippable/plan")).isFalse();
	}

	@Test
	void ticksMissedWhileNothingRanFireOnceUnderFireOnce() {
		List<Long> ticks = missedTicks(DelaySchedule.MissedTicks.FIRE_ONCE);
		// the pending tick, more than a second late, fires: it stands for the missed ones
		assertThat(ticks.get(0)).isEqualTo(this.firstTick);
		assertThat(ticks.get(1)).as("no other missed tick, %s", ticks).isGreaterThanOrEqualTo(this.listenedAt - 400);
	}

	@Test
	void ticksMissedWhileNothingRanAreDroppedUnderSkip() {
		List<Long> ticks = missedTicks(DelaySchedule.MissedTicks.SKIP);
		assertThat(ticks.get(0)).as("no missed tick, %s", ticks).isGreaterThanOrEqualTo(this.listenedAt - 400);
		assertThat(this.engineUsed.admin().schedules().find(this.queue, "missed").orElseThrow().skipped())
			.isGreaterThanOrEqualTo(1);
	}

	private long firstTick;

	private long listenedAt;

	private DelayQueueEngine engineUsed;

	/**
	 * A 100 ms schedule registered while no listener runs (nothing fires it) for 1.5 s,
	 * then listened to: the tick times delivered.
	 */
	private List<Long> missedTicks(DelaySchedule.MissedTicks policy) {
		DelayQueueEngine engine = engine();
		this.engineUsed = engine;
		ScheduleInfo info = engine.admin()
			.schedules()
			.register(every("missed", 100).missedTicks(policy).missedAfter(Duration.ofMillis(200)).build());
		this.firstTick = info.nextTick().toEpochMilli();
		sleep(1500);
		this.listenedAt = System.currentTimeMillis();
		List<Long> lateness = new CopyOnWriteArrayList<>();
		Map<String, AtomicInteger> delivered = listen(engine, lateness);
		await().atMost(WAIT).until(() -> delivered.size() >= 4);
		return delivered.keySet().stream().map(ScheduleContract::tickOf).sorted().toList();
	}

	@Test
	void aScheduleWhoseUpcomingTicksAreLostIsPlannedAgain() {
		DelayQueueEngine engine = engine();
		Map<String, AtomicInteger> delivered = listen(engine, new CopyOnWriteArrayList<>());
		engine.admin().schedules().register(every("replanned", 100).build());
		// as if every planner died: the upcoming ticks gone, only the pending one left
		engine.admin().schedules().find(this.queue, "replanned").orElseThrow();
		try (var connection = this.connectionFactory.getConnection()) {
			connection.hashCommands()
				.hDel(engine.keys(this.queue).schedules().getBytes(StandardCharsets.UTF_8),
						"q:replanned".getBytes(StandardCharsets.UTF_8));
		}
		await().atMost(WAIT).until(() -> delivered.size() >= 5);
		assertThat(delivered.values()).extracting(AtomicInteger::get).containsOnly(1);
	}

	@Test
	void aScheduleWhoseExpressionStopsMatchingEndsAndCostsNothing() {
		DelayQueueEngine engine = engine();
		listen(engine, new CopyOnWriteArrayList<>());
		DelaySchedules schedules = engine.admin().schedules();
		schedules.register(every("ending", 3_600_000).build());
		byte[] sched = engine.keys(this.queue).schedules().getBytes(StandardCharsets.UTF_8);
		byte[] delayed = engine.keys(this.queue).delayed().getBytes(StandardCharsets.UTF_8);
		byte[] marker = "schedule/ending/plan".getBytes(StandardCharsets.UTF_8);
		// as a stored cron expression whose zone's rules changed: it matched when it was
		// registered, and matches no time any more; its pending tick has fired
		try (var connection = this.connectionFactory.getConnection()) {
			long tick = schedules.find(this.queue, "ending").orElseThrow().nextTick().toEpochMilli();
			connection.zSetCommands().zRem(delayed, ("schedule/ending/" + tick).getBytes(StandardCharsets.UTF_8));
			connection.hashCommands()
				.hSet(sched, "d:ending".getBytes(StandardCharsets.UTF_8),
						"cron Europe/Berlin 0 30 2 25-31 3 SUN".getBytes(StandardCharsets.UTF_8));
			connection.hashCommands()
				.hDel(sched, "n:ending".getBytes(StandardCharsets.UTF_8), "q:ending".getBytes(StandardCharsets.UTF_8));
			long now = System.currentTimeMillis();
			connection.zSetCommands().zAdd(delayed, now, marker);
			// the wake-up a script publishes for a new head of the schedule
			connection.publish(engine.keys(this.queue).wakeChannel().getBytes(StandardCharsets.UTF_8),
					String.valueOf(now).getBytes(StandardCharsets.UTF_8));
		}
		await().atMost(WAIT).until(() -> {
			try (var connection = this.connectionFactory.getConnection()) {
				return connection.zSetCommands().zScore(delayed, marker) == null;
			}
		});
		sleep(2500);
		try (var connection = this.connectionFactory.getConnection()) {
			assertThat(connection.zSetCommands().zScore(delayed, marker)).as("not planned every second any more")
				.isNull();
		}
		ScheduleInfo ended = schedules.find(this.queue, "ending").orElseThrow();
		assertThat(ended.nextTick()).isNull();
		assertThat(ended.paused()).isFalse();
	}

	@Test
	void aRegistrationRacingADeleteReturnsWhatItRegistered() throws Exception {
		DelayQueueEngine engine = engine();
		DelaySchedules schedules = engine.admin().schedules();
		DelaySchedule schedule = every("raced", 3_600_000).build();
		java.util.concurrent.atomic.AtomicBoolean racing = new java.util.concurrent.atomic.AtomicBoolean(true);
		Thread deleter = new Thread(() -> {
			while (racing.get()) {
				schedules.delete(this.queue, "raced");
			}
		});
		deleter.start();
		try {
			for (int i = 0; i < 300; i++) {
				ScheduleInfo registered = schedules.register(schedule);
				assertThat(registered.name()).isEqualTo("raced");
				assertThat(registered.interval()).isEqualTo(Duration.ofHours(1));
				assertThat(registered.nextTick()).isNotNull();
			}
		}
		finally {
			racing.set(false);
			deleter.join();
		}
		assertThat(schedules.register(schedule).nextTick()).isNotNull();
		assertThat(schedules.find(this.queue, "raced")).isPresent();
	}

	@Test
	void theOperatorsActionsAreOneCallEachAndAnUnknownActionIsRefusedNamingTheOthers() {
		DelayQueueEngine engine = engine();
		DelaySchedules schedules = engine.admin().schedules();
		schedules.register(every("acted", 3_600_000).build());
		assertThat(schedules.apply(this.queue, "acted", DelaySchedules.Action.parse("pause"))).contains("acted");
		assertThat(schedules.find(this.queue, "acted").orElseThrow().paused()).isTrue();
		assertThat(schedules.apply(this.queue, "acted", DelaySchedules.Action.parse("RESUME"))).contains("acted");
		assertThat(schedules.find(this.queue, "acted").orElseThrow().paused()).isFalse();
		assertThat(schedules.apply(this.queue, "acted", DelaySchedules.Action.TRIGGER))
			.hasValueSatisfying((id) -> assertThat(id).startsWith("schedule/acted/now-"));
		assertThat(schedules.apply(this.queue, "acted", DelaySchedules.Action.DELETE)).contains("acted");
		assertThat(schedules.find(this.queue, "acted")).isEmpty();
		assertThat(schedules.apply(this.queue, "acted", DelaySchedules.Action.PAUSE)).isEmpty();
		assertThatIllegalArgumentException().isThrownBy(() -> DelaySchedules.Action.parse("stop"))
			.withMessage("Schedule action must be 'pause', 'resume', 'trigger' or 'delete', but was 'stop'");
	}

	@Test
	void badSchedulesAreRefusedBeforeAnythingIsWritten() {
		DelayQueueEngine engine = engine();
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelaySchedule.builder("s", this.queue).cron("0 * * * *").payload("x").build())
			.withMessageContaining("Invalid cron expression '0 * * * *' of schedule 's'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelaySchedule.builder("s", this.queue).cron("0 0 0 30 2 *").payload("x").build())
			.withMessageContaining("it matches no time from now on");
		// 02:30 on the last Sunday of March is skipped by summer time in Berlin: it
		// matched in
		// 1970, never again
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelaySchedule.builder("s", this.queue)
				.cron("0 30 2 25-31 3 SUN", ZoneId.of("Europe/Berlin"))
				.payload("x")
				.build())
			.withMessageContaining("it matches no time from now on in time zone Europe/Berlin");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelaySchedule.builder("s", this.queue).cron("61 * * * * *").payload("x").build())
			.withMessageContaining("Invalid cron expression '61 * * * * *' of schedule 's'");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelaySchedule.builder("s", this.queue).every(Duration.ZERO))
			.withMessage("Interval of schedule 's' must be a positive whole number of milliseconds, but was PT0S");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelaySchedule.builder("s", this.queue).every(Duration.ofNanos(1500)))
			.withMessageContaining("whole number of milliseconds");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelaySchedule.builder("s", this.queue).payload("x").build())
			.withMessageContaining("needs a cron expression");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelaySchedule.builder("s", this.queue)
				.cron("0 * * * * *")
				.every(Duration.ofSeconds(1))
				.payload("x")
				.build())
			.withMessageContaining("both");
		assertThatIllegalArgumentException().isThrownBy(() -> DelaySchedule.builder("a/b", this.queue))
			.withMessageContaining("Schedule name 'a/b'");
		assertThatIllegalArgumentException().isThrownBy(() -> DelaySchedule.builder("s", "bad queue"))
			.withMessageContaining("Queue name 'bad queue'");
		assertThatNullPointerException()
			.isThrownBy(() -> DelaySchedule.builder("s", this.queue).every(Duration.ofSeconds(1)).build())
			.withMessageContaining("Payload of schedule 's'");
		DelaySchedule tooBig = DelaySchedule.builder("s", this.queue)
			.every(Duration.ofSeconds(1))
			.payload(new byte[2 * 1024 * 1024])
			.build();
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().schedules().register(tooBig))
			.withMessageContaining("over the limit");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> DelayMessage.builder("x").queue(this.queue).id("schedule/s/1700000000000").build())
			.withMessage("Message id 'schedule/s/1700000000000' starts with 'schedule/', which is reserved for the "
					+ "messages of recurring schedules");
		assertThat(engine.admin().schedules().list(this.queue)).isEmpty();
		assertThat(engine.admin().stats(this.queue).scheduled()).isZero();
	}

	@Test
	void aScheduleWhoseDefinitionCannotBeReadIsLeftAloneAndTheQueueKeepsMoving() {
		DelayQueueEngine engine = engine();
		Map<String, AtomicInteger> delivered = listen(engine, new CopyOnWriteArrayList<>());
		engine.admin().schedules().register(every("future", 100).build());
		// as if a newer version wrote a definition this one cannot read, and its ticks
		// ran out
		try (var connection = this.connectionFactory.getConnection()) {
			byte[] key = engine.keys(this.queue).schedules().getBytes(StandardCharsets.UTF_8);
			connection.hashCommands()
				.hSet(key, "d:future".getBytes(StandardCharsets.UTF_8), "lunar 29.5d".getBytes(StandardCharsets.UTF_8));
			connection.hashCommands().hDel(key, "q:future".getBytes(StandardCharsets.UTF_8));
		}
		engine.template().send(this.queue, "after", Duration.ofMillis(500));
		await().atMost(WAIT).until(() -> delivered.keySet().stream().anyMatch((id) -> !id.startsWith("schedule/")));
		ScheduleInfo stalled = engine.admin().schedules().list(this.queue).get(0);
		assertThat(stalled.name()).isEqualTo("future");
		assertThat(stalled.description()).isEqualTo("unreadable definition");
		assertThat(engine.admin().schedules().delete(this.queue, "future")).isTrue();
	}

}
