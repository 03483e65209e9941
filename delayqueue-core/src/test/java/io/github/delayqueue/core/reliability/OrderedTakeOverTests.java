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
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.reliability.ReliabilitySupport.ChildJvm;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisServerExtension;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An ordered partition taken over from an owner killed with {@code SIGKILL}: the new
 * owner handles every entry its previous owner left pending (those read ahead, the one
 * waiting for its retry in place) before any newer entry of the partition, however little
 * room it has to hold them.
 */
@Tag("faults")
class OrderedTakeOverTests {

	@AutoClose
	private final Resources resources = new Resources();

	private <T extends AutoCloseable> T track(T resource) {
		return this.resources.track(resource);
	}

	@Test
	void theNewOwnerHandlesThePendingEntriesFirstWithLittleRoomToHoldThem() throws Exception {
		RedisServer redis = track(RedisServer.start());
		DelayQueueEngine engine = track(
				DelayQueueEngine.builder(RedisServerExtension.connectionFactory(redis)).partitions("taken", 2).build());
		// one handler, 200 ms each, fifty read ahead
		ChildJvm owner = track(new ChildJvm(OrderedConsumer.class, String.valueOf(redis.port()), "taken", "2", "200"));
		owner.awaitLine("STARTED", Duration.ofSeconds(30));
		Instant base = Instant.now().plusSeconds(1);
		for (int i = 0; i < 40; i++) {
			send(engine, "taken", String.format("m-%02d", i), base.plusMillis(i));
		}
		owner.awaitLine("HANDLING m-02", Duration.ofSeconds(10));
		owner.kill();
		for (int i = 40; i < 50; i++) {
			send(engine, "taken", String.format("m-%02d", i), base.plusMillis(i));
		}
		List<String> handled = new CopyOnWriteArrayList<>();
		// room for three: one running, two read ahead
		startOrdered(engine, "taken", handled, 2);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> new LinkedHashSet<>(handled).size() >= 47 && handled.contains("m-03")
					&& handled.contains("m-49"));
		List<String> firstTimes = new ArrayList<>(new LinkedHashSet<>(handled));
		System.out.println("The new owner handled " + firstTimes);
		// the previous owner acknowledged what it finished (m-00 and m-01 at least)
		assertThat(firstTimes).first().isIn("m-01", "m-02", "m-03");
		assertThat(firstTimes).as("in due order").isSorted().endsWith("m-49");
	}

	@Test
	void aMessageWaitingForItsRetryInPlaceGoesFirst() throws Exception {
		RedisServer redis = track(RedisServer.start());
		DelayQueueEngine engine = track(DelayQueueEngine.builder(RedisServerExtension.connectionFactory(redis))
			.partitions("retried", 2)
			.build());
		ChildJvm owner = track(new ChildJvm(OrderedConsumer.class, String.valueOf(redis.port()), "retried", "2", "50"));
		owner.awaitLine("STARTED", Duration.ofSeconds(30));
		Instant base = Instant.now().plusSeconds(1);
		send(engine, "retried", "fail-00", base);
		for (int i = 1; i < 20; i++) {
			send(engine, "retried", String.format("m-%02d", i), base.plusMillis(i));
		}
		owner.awaitLine("HANDLING fail-00 1", Duration.ofSeconds(10));
		// its first attempt failed: it waits 10 s to retry in place, the others behind it
		Thread.sleep(500);
		owner.kill();
		for (int i = 20; i < 30; i++) {
			send(engine, "retried", String.format("m-%02d", i), base.plusMillis(i));
		}
		List<String> handled = new CopyOnWriteArrayList<>();
		startOrdered(engine, "retried", handled, 2);
		await().atMost(Duration.ofSeconds(30)).until(() -> new LinkedHashSet<>(handled).size() == 30);
		List<String> firstTimes = new ArrayList<>(new LinkedHashSet<>(handled));
		System.out.println("The new owner handled " + firstTimes);
		assertThat(firstTimes).first().isEqualTo("fail-00");
		assertThat(firstTimes.subList(1, firstTimes.size())).as("in due order").isSorted().endsWith("m-29");
	}

	private static void send(DelayQueueEngine engine, String queue, String payload, Instant due) {
		engine.template().send(DelayMessage.builder(payload).queue(queue).key("k").deliverAt(due).build());
	}

	private void startOrdered(DelayQueueEngine engine, String queue, List<String> handled, int prefetch) {
		DelayQueueListenerContainer container = engine
			.listenerContainer(queue, "g", String.class, (payload, context) -> handled.add(payload))
			.ordered(true)
			.visibilityTimeout(Duration.ofSeconds(2))
			.concurrency(1)
			.prefetch(prefetch)
			.build();
		container.start();
		this.resources.track(container::stop);
	}

}
