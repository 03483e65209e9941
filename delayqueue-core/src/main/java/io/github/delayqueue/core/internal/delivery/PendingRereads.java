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

package io.github.delayqueue.core.internal.delivery;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.SlotRetries;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.stream.ByteRecord;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;

/**
 * A {@link StreamReader}'s reads of this consumer's pending entries, before any new
 * entry: after a (re)connection (a read whose reply was lost in a connection drop) or a
 * take-over of the partition (what it claimed), they are delivered at once, in entry
 * order, not after the visibility timeout.
 */
final class PendingRereads {

	private final ListenerContext context;

	private final Holdings holdings;

	private final GroupReads reads;

	/**
	 * While the pending entries are read again: the streams still to read, each with the
	 * last entry id read; {@code null} once all were read. New entries are read only
	 * then, so those pending go first.
	 */
	private Map<String, String> cursors;

	PendingRereads(ListenerContext context, Holdings holdings, GroupReads reads) {
		this.context = context;
		this.holdings = holdings;
		this.reads = reads;
	}

	/**
	 * @return whether pending entries remain to be read again
	 */
	boolean underWay() {
		return this.cursors != null;
	}

	void start() {
		Map<String, String> cursors = new LinkedHashMap<>();
		List<String> streams = this.context.streams();
		// the urgent stream first, then the retry stream, as new entries are read
		for (int i = streams.size() - 1; i >= 0; i--) {
			cursors.put(streams.get(i), "0");
		}
		this.cursors = cursors;
	}

	/**
	 * Reads the next pending entries, as many as there is room for; each stream's cursor
	 * moves past what was held (or is held already, or was deleted), never past an entry
	 * left for lack of room, so each is read in a later step, in order.
	 */
	void read(RedisConnection connection) {
		int granted = this.holdings.reserve(this.reads.wanted(true));
		if (granted == 0) {
			return;
		}
		try {
			List<String> streams = new ArrayList<>(this.cursors.keySet());
			// entries held already come back too
			int perStream = Math.max(1, granted / streams.size()) + this.holdings.size();
			@SuppressWarnings({ "unchecked", "rawtypes" })
			StreamOffset<byte[]>[] offsets = new StreamOffset[streams.size()];
			for (int i = 0; i < offsets.length; i++) {
				offsets[i] = StreamOffset.create(QueueKeys.bytes(streams.get(i)),
						ReadOffset.from(this.cursors.get(streams.get(i))));
			}
			long sent = System.nanoTime();
			List<ByteRecord> records = SlotRetries.call(() -> connection.streamCommands()
				.xReadGroup(Consumer.from(this.context.group(), this.context.consumer()),
						StreamReadOptions.empty().count(perStream), offsets));
			Map<String, Integer> read = new LinkedHashMap<>();
			Set<String> full = new HashSet<>();
			int accepted = 0;
			for (ByteRecord record : (records != null) ? records : List.<ByteRecord>of()) {
				String stream = new String(record.getStream(), StandardCharsets.UTF_8);
				read.merge(stream, 1, Integer::sum);
				if (full.contains(stream)) {
					continue;
				}
				String entryId = record.getId().getValue();
				if (record.getValue() != null && !record.getValue().isEmpty()
						&& !this.holdings.holds(stream, entryId)) {
					if (accepted >= granted && this.holdings.free() <= 0) {
						// no room: read again from here once there is
						full.add(stream);
						continue;
					}
					if (this.holdings.accept(this.reads.delivery(stream, record, sent))) {
						accepted++;
					}
				}
				this.cursors.put(stream, entryId);
			}
			for (String stream : streams) {
				if (!full.contains(stream) && read.getOrDefault(stream, 0) < perStream) {
					this.cursors.remove(stream);
				}
			}
			if (this.cursors.isEmpty()) {
				this.cursors = null;
			}
		}
		finally {
			// the deliveries accepted are held now
			this.holdings.unreserve(granted);
		}
	}

}
