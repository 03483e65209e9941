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
import java.util.function.Function;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.github.delayqueue.core.listener.RetryPolicy;
import io.github.delayqueue.test.RedisServer;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Changing the partition count of a queue that holds messages: nothing is lost, the old
 * partitions drain through listeners that declare the new count, engines that still
 * declare the old count keep sending until the change is finished (and are refused
 * after), and the change cannot be finished while an old partition holds anything.
 * Written once, run on a single server ({@link PartitionChangeTests}) and on a cluster
 * ({@link ClusterPartitionChangeTests}).
 */
abstract class PartitionChangeContract extends PartitionedQueueFixture {

	private final int changed;

	PartitionChangeContract(RedisConnectionFactory connectionFactory, Function<String, RedisServer> serverFor,
			int partitions, int changed) {
		super(connectionFactory, serverFor, partitions);
		this.changed = changed;
	}

	private DelayQueueEngine engine(int count) {
		return track(DelayQueueEngine.builder(this.connectionFactory).partitions(this.queue, count).build());
	}

	private DelayQueueListenerContainer listen(DelayQueueEngine engine, String name,
			DelayMessageHandler<String> handler, boolean ordered) {
		DelayQueueListenerContainer container = engine.listenerContainer(this.queue, "g", String.class, handler)
			.consumerName(name)
			.ordered(ordered)
			.visibilityTimeout(Duration.ofMillis(600))
			.retryPolicy(RetryPolicy.fixed(1, Duration.ofMillis(10)))
			.build();
		container.start();
		track(container::stop);
		return container;
	}

	private List<DelayMessage<?>> messages(String prefix, int count, Duration delay) {
		List<DelayMessage<?>> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			messages.add(DelayMessage.builder(prefix + i).queue(this.queue).id(prefix + i).delay(delay).build());
		}
		return messages;
	}

	private void drains(boolean ordered) {
		// before the change: scheduled messages, and due ones no listener has read yet
		this.engine.template().sendAll(messages("later-", 60, Duration.ofHours(1)));
		this.engine.template().sendAll(messages("due-", 60, Duration.ZERO));
		PartitionLayout layout = this.engine.admin().changePartitions(this.queue, this.changed);
		assertThat(layout.partitions()).isEqualTo(this.changed);
		assertThat(layout.previous()).isEqualTo(this.partitions);
		// an engine that runs with the old count keeps sending to the old layout
		this.engine.template().sendAll(messages("old-", 30, Duration.ZERO));
		// one started with the old count is refused
		DelayQueueEngine stale = engine(this.partitions);
		assertThatIllegalStateException().isThrownBy(() -> stale.template().send(this.queue, "x", Duration.ZERO))
			.withMessageContaining("is changing from " + this.partitions + " to " + this.changed
					+ " partitions, but the old count (" + this.partitions + ") is declared here");
		DelayQueueEngine current = engine(this.changed);
		current.template().sendAll(messages("new-", 30, Duration.ZERO));
		List<QueueKeys> draining = current.drainingPartitions(this.queue);
		assertThat(draining).isNotEmpty().allMatch((keys) -> keys.partition() >= this.changed);
		assertThat(current.admin().stats(this.queue).scheduled()).isEqualTo(60);
		assertThat(current.admin().partitionLayout(this.queue).held()).isNotEmpty();
		assertThatIllegalStateException().isThrownBy(() -> current.admin().finishPartitionChange(this.queue))
			.withMessageContaining("still holds messages in partitions of its old layout")
			.withMessageContaining("scheduled message(s)");

		Map<String, Integer> received = new ConcurrentHashMap<>();
		DelayMessageHandler<String> handler = (payload, context) -> received.merge(context.id(), 1, Integer::sum);
		DelayQueueListenerContainer a = listen(current, "a", handler, ordered);
		DelayQueueListenerContainer b = listen(current, "b", handler, ordered);
		// cancel and reschedule find an id in an old partition too
		for (int i = 0; i < 60; i++) {
			assertThat(current.template().reschedule(this.queue, "later-" + i, Duration.ZERO)).isTrue();
		}
		await().atMost(Duration.ofSeconds(20)).until(() -> received.size() == 180);
		assertThat(received.values()).allMatch((times) -> times == 1);
		if (ordered) {
			assertThat(current.admin().partitionOwners(this.queue, "g")).containsKey(this.changed);
		}
		else {
			assertThat(a.partitionsRead()).contains(this.changed);
			assertThat(b.partitionsRead()).contains(this.changed);
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> current.admin().partitionLayout(this.queue).held().isEmpty());
		layout = current.admin().finishPartitionChange(this.queue);
		assertThat(layout.changing()).isFalse();
		assertThat(current.admin().partitionLayout(this.queue))
			.isEqualTo(new PartitionLayout(this.queue, this.changed, 0, List.of()));

		// the engine still running with the old count is refused where nobody reads now
		int refused = 0;
		for (int i = 0; i < 40; i++) {
			try {
				this.engine.template().send(DelayMessage.builder("late").queue(this.queue).id("late-" + i).build());
			}
			catch (DelayQueueException ex) {
				assertThat(ex).hasMessageContaining("DQRETIRED")
					.hasMessageContaining("must be restarted with the new one");
				refused++;
			}
		}
		assertThat(refused).isPositive();
		int sent = 180 + 40 - refused;
		// and what it could send went to partitions that are read
		await().atMost(Duration.ofSeconds(10)).until(() -> received.size() == sent);
		assertThat(received.values()).allMatch((times) -> times == 1);
	}

	@Test
	void changingTheCountLosesNothingAndTheOldPartitionsDrain() {
		drains(false);
	}

	@Test
	void orderedListenersOwnTheOldPartitionsUntilTheyDrain() {
		drains(true);
	}

	@Test
	void aDeadLetterInAnOldPartitionHoldsTheChangeBack() {
		DelayQueueListenerContainer failing = listen(this.engine, "f", (payload, context) -> {
			throw new IllegalStateException("no");
		}, false);
		this.engine.template().sendAll(messages("m-", 20, Duration.ZERO));
		await().atMost(Duration.ofSeconds(10)).until(() -> this.engine.admin().stats(this.queue).dead() == 20);
		failing.stop();
		this.engine.admin().changePartitions(this.queue, this.changed);
		DelayQueueEngine current = engine(this.changed);
		assertThat(current.admin().deadLetters(this.queue, null, 100)).hasSize(20);
		assertThatIllegalStateException().isThrownBy(() -> current.admin().finishPartitionChange(this.queue))
			.withMessageContaining("dead letter(s) (replay or purge them)");
		assertThat(current.admin().purgeDeadLetters(this.queue)).isEqualTo(20);
		assertThat(current.admin().finishPartitionChange(this.queue).changing()).isFalse();
	}

	@Test
	void aChangeIsRefusedWhenItCannotBeMade() {
		// the first send stores the count
		this.engine.template()
			.send(DelayMessage.builder("x").queue(this.queue).id("only").delay(Duration.ofHours(1)).build());
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.engine.admin().changePartitions(this.queue, this.partitions))
			.withMessageContaining("already has " + this.partitions + " partition(s)");
		assertThatIllegalArgumentException().isThrownBy(() -> this.engine.admin().changePartitions(this.queue, 0))
			.withMessageContaining("must be between 1 and " + QueueKeys.MAX_PARTITIONS + ", but was 0");
		assertThatIllegalStateException().isThrownBy(() -> this.engine.admin().finishPartitionChange(this.queue))
			.withMessageContaining("has no change of its partition count in progress");
		this.engine.admin().changePartitions(this.queue, this.changed);
		assertThatIllegalStateException()
			.isThrownBy(() -> this.engine.admin().changePartitions(this.queue, this.changed + 1))
			.withMessageContaining("is already changing from " + this.partitions + " to " + this.changed);
		// back to the old count: the old layout's partitions are the new ones again
		DelayQueueEngine current = engine(this.changed);
		assertThat(current.template().cancel(this.queue, "only")).isTrue();
		assertThat(current.admin().finishPartitionChange(this.queue).changing()).isFalse();
		current.admin().changePartitions(this.queue, this.partitions);
		DelayQueueEngine back = engine(this.partitions);
		for (int i = 0; i < 20; i++) {
			// no partition of the layout in use again is still retired
			back.template().send(this.queue, "back", Duration.ofHours(1));
		}
		assertThat(back.admin().stats(this.queue).scheduled()).isEqualTo(20);
	}

	@Test
	void aQueueOfOnePartitionGrowsAtOnceAndShrinksBackByDraining() {
		String single = this.queue + "-single";
		DelayQueueEngine one = track(DelayQueueEngine.builder(this.connectionFactory).build());
		one.template().send(single, "first", Duration.ZERO);
		PartitionLayout grown = one.admin().changePartitions(single, this.changed);
		// partition 0 keeps its keys: nothing to drain
		assertThat(grown.changing()).isFalse();
		DelayQueueEngine many = track(
				DelayQueueEngine.builder(this.connectionFactory).partitions(single, this.changed).build());
		for (int i = 0; i < 30; i++) {
			many.template().send(DelayMessage.builder("m").queue(single).id("m-" + i).build());
		}
		assertThat(many.admin().stats(single).ready()).isEqualTo(31);
		assertThat(many.admin().changePartitions(single, 1).previous()).isEqualTo(this.changed);
		DelayQueueEngine shrunk = track(DelayQueueEngine.builder(this.connectionFactory).build());
		Map<String, Integer> received = new ConcurrentHashMap<>();
		DelayQueueListenerContainer container = shrunk
			.listenerContainer(single, "g", String.class,
					(payload, context) -> received.merge(context.id(), 1, Integer::sum))
			.build();
		container.start();
		track(container::stop);
		await().atMost(Duration.ofSeconds(15)).until(() -> received.size() == 31);
		await().atMost(Duration.ofSeconds(10)).until(() -> shrunk.admin().partitionLayout(single).held().isEmpty());
		assertThat(shrunk.admin().finishPartitionChange(single).partitions()).isEqualTo(1);
	}

}
