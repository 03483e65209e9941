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
import java.util.zip.CRC32;

/**
 * Chooses the partition of a message of a partitioned queue from its key
 * ({@link DelayMessage.Builder#key(String)}, by default its id). Messages with the same
 * key go to the same partition, as long as the queue's partition count stays the same.
 * Producers of one queue must all use the same partitioner: cancel and reschedule look
 * for an id in the partition it maps to first.
 */
@FunctionalInterface
public interface Partitioner {

	/**
	 * The default: CRC-32 of the key's UTF-8 bytes, modulo the partition count. Stable
	 * across JVMs, versions and languages.
	 */
	Partitioner CRC32 = (key, partitions) -> {
		CRC32 crc = new CRC32();
		crc.update(key.getBytes(StandardCharsets.UTF_8));
		return (int) (crc.getValue() % partitions);
	};

	/**
	 * Returns the partition of a key.
	 * @param key the message's key (its id when it has none)
	 * @param partitions the queue's partition count, at least 2
	 * @return the partition, from 0 to {@code partitions - 1}
	 */
	int partition(String key, int partitions);

}
