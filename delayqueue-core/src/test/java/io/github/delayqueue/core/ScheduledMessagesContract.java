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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Browsing a queue's schedule ({@link DelayQueueAdmin#scheduled},
 * {@link DelayQueueAdmin#scheduledMessage}): run on a single server and on a Redis
 * Cluster, with partitions.
 */
abstract class ScheduledMessagesContract extends QueueTestFixture {

	ScheduledMessagesContract(RedisConnectionFactory connectionFactory) {
		super(connectionFactory);
	}

	private DelayQueueEngine engine() {
		return build(DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, 3));
	}

	@Test
	void pagesGoThroughEveryScheduledMessageOnceInDueOrderAcrossPartitions() {
		DelayQueueEngine engine = engine();
		// a whole millisecond: a due time is rounded up to one (never early)
		Instant base = Instant.ofEpochMilli(System.currentTimeMillis() + Duration.ofHours(1).toMillis());
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			messages.add(DelayMessage.builder("p-" + i)
				.queue(this.queue)
				.id(String.format("m-%02d", i))
				.deliverAt(base.plusMillis(i * 10L))
				.build());
		}
		for (int i = 0; i < 7; i++) {
			// ties: due the same millisecond, in every partition
			messages.add(DelayMessage.builder("t-" + i)
				.queue(this.queue)
				.id("tie-" + i)
				.deliverAt(base.plusMillis(55))
				.build());
		}
		engine.template().sendAll(messages);
		List<ScheduledMessage> seen = new ArrayList<>();
		String after = null;
		int pages = 0;
		while (true) {
			List<ScheduledMessage> page = engine.admin().scheduled(this.queue, after, 4);
			pages++;
			seen.addAll(page);
			if (page.size() < 4) {
				break;
			}
			after = page.get(page.size() - 1).cursor();
		}
		assertThat(seen).hasSize(27);
		assertThat(seen).extracting(ScheduledMessage::id).doesNotHaveDuplicates();
		assertThat(seen)
			.isSortedAccordingTo(Comparator.comparing((ScheduledMessage message) -> message.dueTime().toEpochMilli())
				.thenComparing(ScheduledMessage::id));
		assertThat(seen).extracting(ScheduledMessage::partition).contains(0, 1, 2);
		assertThat(pages).isEqualTo(7);
		ScheduledMessage first = seen.get(0);
		assertThat(first.id()).isEqualTo("m-00");
		assertThat(first.dueTime()).isEqualTo(base);
		assertThat(new String(first.payload(), StandardCharsets.UTF_8)).isEqualTo("p-0");
	}

	@Test
	void aMessageIsFoundByIdWhereCancelLooksWithItsKeyHeadersAndPayload() {
		DelayQueueEngine engine = engine();
		engine.template()
			.send(DelayMessage.builder("hello")
				.queue(this.queue)
				.id("order-42")
				.key("tenant-7")
				.header("tenant", "acme")
				.delay(Duration.ofMinutes(30))
				.expireAfter(Duration.ofMinutes(10))
				.maxAttempts(3)
				.build());
		ScheduledMessage found = engine.admin().scheduledMessage(this.queue, "order-42").orElseThrow();
		assertThat(found.expiresAt()).isEqualTo(found.dueTime().plus(Duration.ofMinutes(10)));
		assertThat(found.maxAttempts()).isEqualTo(3);
		assertThat(found.key()).isEqualTo("tenant-7");
		assertThat(found.headers()).containsEntry("tenant", "acme");
		assertThat(found.dueTime()).isAfter(Instant.now().plus(Duration.ofMinutes(29)));
		assertThat(engine.admin().scheduledMessage(this.queue, "order-43")).isEmpty();
		assertThat(engine.template().cancel(this.queue, "order-42")).isTrue();
		assertThat(engine.admin().scheduledMessage(this.queue, "order-42")).isEmpty();
	}

	@Test
	void aTimeHasAPositionAndACursorThatStartsThePageOfTheFirstMessagesDueFromIt() {
		DelayQueueEngine engine = engine();
		Instant base = Instant.ofEpochMilli(System.currentTimeMillis() + Duration.ofHours(1).toMillis());
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			messages.add(DelayMessage.builder("p-" + i)
				.queue(this.queue)
				.id(String.format("m-%02d", i))
				.deliverAt(base.plusMillis(i * 10L))
				.build());
		}
		engine.template().sendAll(messages);
		// due at 100 ms: m-10 is the first at or after it, ten come before
		Instant at = base.plusMillis(100);
		ScheduledPosition position = engine.admin().scheduledPosition(this.queue, at);
		assertThat(position).isEqualTo(new ScheduledPosition(10, 30, true));
		List<ScheduledMessage> page = engine.admin().scheduled(this.queue, at.toEpochMilli() + ":", 5);
		assertThat(page).extracting(ScheduledMessage::id).containsExactly("m-10", "m-11", "m-12", "m-13", "m-14");
		assertThat(engine.admin().scheduledPosition(this.queue, base.minusSeconds(1)).before()).isZero();
		assertThat(engine.admin().scheduledPosition(this.queue, base.plusSeconds(60)).before()).isEqualTo(30);
	}

	@Test
	void aPositionInALargeFarTierIsCountedInItsNodesAndBoundedByTheEntriesNotYetRemoved() {
		DelayQueueEngine engine = build(
				DelayQueueEngine.builder(this.connectionFactory).compactAfter(Duration.ofSeconds(1)).compactMinimum(1));
		Instant base = Instant.ofEpochMilli(System.currentTimeMillis() + Duration.ofHours(1).toMillis());
		List<DelayMessage<?>> messages = new ArrayList<>();
		// 6,000 far-tier messages: more than 64 index buckets of about 32 ids (a sample
		// of 64 was off by up to about 1.5 % of them)
		for (int i = 0; i < 6000; i++) {
			messages
				.add(DelayMessage.builder("p").queue(this.queue).id("f-" + i).deliverAt(base.plusMillis(i)).build());
		}
		engine.template().sendAll(messages);
		for (int at : new int[] { 0, 1, 999, 1000, 1500, 2001, 3333, 5999, 6000, 7000 }) {
			assertThat(engine.admin().scheduledPosition(this.queue, base.plusMillis(at)))
				.isEqualTo(new ScheduledPosition(Math.min(at, 6000), 6000, true, 0));
		}
		List<ScheduledMessage> page = engine.admin()
			.scheduled(this.queue, base.plusMillis(1500).toEpochMilli() + ":", 3);
		assertThat(page).extracting(ScheduledMessage::id).containsExactly("f-1500", "f-1501", "f-1502");
		// cancelled messages leave their node's entry until the node is moved: the count
		// is within the margin, which is at most the number of such entries
		for (int i = 0; i < 100; i++) {
			assertThat(engine.template().cancel(this.queue, "f-" + (i * 10))).isTrue();
		}
		for (int at : new int[] { 500, 1500, 3333 }) {
			long truth = at - Math.min(100, (at + 9) / 10);
			ScheduledPosition bounded = engine.admin().scheduledPosition(this.queue, base.plusMillis(at));
			assertThat(bounded.total()).isEqualTo(5900);
			assertThat(bounded.margin()).isBetween(1L, 100L);
			assertThat(bounded.exact()).isFalse();
			assertThat(bounded.before()).isBetween(truth - bounded.margin(), truth + bounded.margin());
		}
	}

	@Test
	void badPagesAreRefusedNamingTheInput() {
		DelayQueueEngine engine = engine();
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().scheduled(this.queue, null, 0))
			.withMessageContaining("Page size must be from 1 to 1000");
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().scheduled(this.queue, null, 1001));
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().scheduled(this.queue, "yesterday", 10))
			.withMessageContaining("Cursor 'yesterday' is not <due epoch ms>:<id>");
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().scheduled("bad{queue}", null, 10));
		assertThatIllegalArgumentException().isThrownBy(() -> engine.admin().scheduledMessage(this.queue, ""));
		assertThat(engine.admin().scheduled(this.queue, null, 10)).isEmpty();
	}

}
