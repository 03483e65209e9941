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
import java.util.Map;

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
		assertThat(queue.partition(0)).isEqualTo(queue);
		assertThat(queue.tag()).isEqualTo("orders");
		assertThat(queue.delayed()).isEqualTo("dq:{orders}:delayed");
		assertThat(queue.stream()).isEqualTo("dq:{orders}:stream");
		assertThat(queue.retryStream("g")).isEqualTo("dq:{orders}:retry:g");
		assertThat(queue.wakeChannel()).isEqualTo("dq:{orders}:wake");
	}

	@Test
	void everyOtherPartitionHasAHashTagOfItsOwn() {
		QueueKeys third = new QueueKeys("dq", "orders").partition(3);
		assertThat(third.tag()).isEqualTo("orders#3");
		assertThat(third.queue()).isEqualTo("orders");
		assertThat(third.delayed()).isEqualTo("dq:{orders#3}:delayed");
		assertThat(third.retryDelayed("g")).isEqualTo("dq:{orders#3}:retry-delayed:g");
		assertThat(third.dead()).isEqualTo("dq:{orders#3}:dead");
		assertThat(third.registry()).isEqualTo("dq:queues");
		assertThatIllegalArgumentException().isThrownBy(() -> third.partition(-1))
			.withMessage("Partition of queue 'orders' must be between 0 and 1023, but was -1");
		assertThatIllegalArgumentException().isThrownBy(() -> third.partition(QueueKeys.MAX_PARTITIONS));
		assertThatIllegalArgumentException().isThrownBy(() -> new QueueKeys("dq", "orders#3"))
			.withMessageContaining("may only contain");
	}

	@Test
	void twelvePartitionsSpreadOverTheMastersOfACluster(RedisCluster cluster) {
		QueueKeys queue = new QueueKeys("dq", "orders");
		Map<Integer, Integer> perMaster = new HashMap<>();
		for (int partition = 0; partition < 12; partition++) {
			int master = cluster.masterOf(cluster.slotOf(queue.partition(partition).stream()));
			perMaster.merge(master, 1, Integer::sum);
		}
		assertThat(perMaster).as("partitions per master").hasSize(3);
		// 4, 4 and 4 for this name: CRC16 spreads consecutive tags well
		assertThat(perMaster.values()).allMatch((count) -> count >= 3 && count <= 5);
	}

}
