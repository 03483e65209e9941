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
package io.github.delayqueue.core.internal.redis;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.test.RedisCluster;
import io.github.delayqueue.test.RedisClusterTest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The key layout of queues and their partitions: partition 0 keeps the keys of an
 * unpartitioned queue, every other partition has a hash tag (and so a slot) of its own.
 */
@RedisClusterTest(masters = 3)
class QueueKeysTests {

	@Test
	void partitionZeroKeepsTheKeysOfAnUnpartitionedQueue() {
		QueueKeys queue = new QueueKeys("dq", "orders");
		assertThat(queue.partition()).isZero();
		assertThat(queue.partition(0, 12)).isEqualTo(queue);
		assertThat(queue.tag()).isEqualTo("orders");
		assertThat(queue.delayed()).isEqualTo("dq:{orders}:delayed");
		assertThat(queue.stream()).isEqualTo("dq:{orders}:stream");
		assertThat(queue.retryStream("g")).isEqualTo("dq:{orders}:retry:g");
		assertThat(queue.wakeChannel()).isEqualTo("dq:{orders}:wake");
	}

	@Test
	void everyOtherPartitionHasAHashTagOfItsOwn() {
		QueueKeys third = new QueueKeys("dq", "orders").partition(3, 12);
		assertThat(third.tag()).startsWith("orders#3");
		assertThat(third.queue()).isEqualTo("orders");
		assertThat(third.partition()).isEqualTo(3);
		assertThat(third.delayed()).isEqualTo("dq:{" + third.tag() + "}:delayed");
		assertThat(third.retryDelayed("g")).isEqualTo("dq:{" + third.tag() + "}:retry-delayed:g");
		assertThat(third.meta()).isEqualTo("dq:{orders}:meta");
		assertThat(third.registry()).isEqualTo("dq:queues");
		assertThatIllegalArgumentException().isThrownBy(() -> third.partition(-1, 12))
			.withMessage("Partition of queue 'orders' must be between 0 and 11, but was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> third.partition(12, 12));
		assertThatIllegalArgumentException().isThrownBy(() -> new QueueKeys("dq", "orders#3"))
			.withMessageContaining("may only contain");
	}

	@Test
	void partitionsSpreadEvenlyOverTheMastersOfACluster(RedisCluster cluster) {
		for (String name : new String[] { "orders", "bench", "a", "invoices.v2" }) {
			for (int partitions : new int[] { 3, 12, 30 }) {
				QueueKeys queue = new QueueKeys("dq", name);
				Map<Integer, Integer> perMaster = new HashMap<>();
				Set<Integer> slots = new HashSet<>();
				for (int partition = 0; partition < partitions; partition++) {
					String key = queue.partition(partition, partitions).stream();
					int slot = cluster.slotOf(key);
					assertThat(PartitionTags.slot(queue.partition(partition, partitions).tag())).as("CRC16 of " + key)
						.isEqualTo(slot);
					slots.add(slot);
					perMaster.merge(cluster.masterOf(slot), 1, Integer::sum);
				}
				assertThat(slots).as("%s, %d partitions: a slot each", name, partitions).hasSize(partitions);
				// the 3 masters own thirds of the slots, give or take one slot at a
				// border
				assertThat(perMaster.values()).as("%s, %d partitions per master", name, partitions)
					.allMatch((count) -> Math.abs(count - partitions / 3) <= 1);
			}
		}
	}

}
