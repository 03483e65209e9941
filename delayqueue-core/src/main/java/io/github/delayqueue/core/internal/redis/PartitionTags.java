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

import java.nio.charset.StandardCharsets;

/**
 * Chooses the hash tags of a partitioned queue's partitions so that they spread evenly
 * over Redis Cluster's 16384 slots, and so over the masters that own equal slot ranges
 * (as {@code redis-cli --cluster create} assigns them). Tags named after the partition
 * alone ({@code orders#1}, {@code orders#2}, …) land wherever CRC16 puts them: 12
 * partitions may well fall 3, 4 and 5 on three masters.
 * <p>
 * The slot space is cut into as many equal ranges as there are partitions. Partition 0
 * keeps the tag of an unpartitioned queue ({@code orders}, so existing data stays where
 * it is) and takes the range its slot falls in; partitions 1, 2, … take the other ranges
 * in order. Partition {@code n} gets the first of {@code orders#n}, {@code orders#n.1},
 * {@code orders#n.2}, … whose slot is in its range: about as many tries as partitions,
 * once per queue. Every client computes the same tags from the name and the count.
 */
public final class PartitionTags {

	/** The slots of Redis Cluster. */
	public static final int SLOTS = 16384;

	private PartitionTags() {
	}

	/**
	 * Returns the hash tag of a partition.
	 * @param queue the queue
	 * @param partition the partition, from 0
	 * @param partitions the queue's partition count
	 * @return the tag
	 */
	public static String tag(String queue, int partition, int partitions) {
		if (partition == 0) {
			return queue;
		}
		int taken = range(slot(queue), partitions);
		int range = (partition - 1 < taken) ? partition - 1 : partition;
		String base = queue + "#" + partition;
		if (range(slot(base), partitions) == range) {
			return base;
		}
		for (int attempt = 1;; attempt++) {
			String candidate = base + "." + attempt;
			if (range(slot(candidate), partitions) == range) {
				return candidate;
			}
		}
	}

	private static int range(int slot, int partitions) {
		return (int) ((long) slot * partitions / SLOTS);
	}

	/**
	 * Returns the cluster slot of a string: CRC16 (XMODEM) of its UTF-8 bytes, modulo
	 * 16384, as Redis computes it for a key's hash tag.
	 * @param text the string (a hash tag's content)
	 * @return its slot
	 */
	public static int slot(String text) {
		int crc = 0;
		for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
			crc ^= (b & 0xFF) << 8;
			for (int bit = 0; bit < 8; bit++) {
				crc = ((crc & 0x8000) != 0) ? ((crc << 1) ^ 0x1021) : (crc << 1);
				crc &= 0xFFFF;
			}
		}
		return crc % SLOTS;
	}

}
