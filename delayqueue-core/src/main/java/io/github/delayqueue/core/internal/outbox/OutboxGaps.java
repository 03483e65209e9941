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
package io.github.delayqueue.core.internal.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.delayqueue.core.internal.send.SendBatch.Prepared;

/**
 * How a relay step keeps the rows of one message id in their commit order when another
 * relay holds some of them ({@link OutboxRelay}).
 */
final class OutboxGaps {

	private OutboxGaps() {
	}

	/**
	 * Leaves out of this step the rows of a message that come after one of its rows this
	 * step did not take: a row {@code SKIP LOCKED} passed over because another relay held
	 * it (on another instance, or, on MariaDB and MySQL, whose locking read locks each
	 * row it scans before it filters, a worker of another share), or one waiting for its
	 * retry. Sent now, they would reach Redis before that row, which would then overwrite
	 * them; left, they go in a later step. The rows before the first such gap are sent,
	 * so the relay holding a message's oldest row always moves it on: two relays that
	 * took alternate rows of one message never hold each other up. The check is a plain
	 * read (no lock): a row it still sees may be deleted by now, and the rows behind it
	 * merely wait one step.
	 */
	static void holdBehindGaps(Connection connection, OutboxDialect dialect, String table, List<Long> seqs,
			List<Prepared> prepared) throws SQLException {
		if (prepared.isEmpty()) {
			return;
		}
		Map<String, Long> newestTaken = new LinkedHashMap<>();
		Set<Long> taken = new HashSet<>(seqs);
		for (int i = 0; i < prepared.size(); i++) {
			newestTaken.merge(rowKey(prepared.get(i).queue(), prepared.get(i).id()), seqs.get(i), Math::max);
		}
		// per message, its oldest row not taken here that is older than one taken here
		Map<String, Long> firstGap = new HashMap<>();
		List<String> ids = new ArrayList<>(new LinkedHashSet<>(prepared.stream().map(Prepared::id).toList()));
		for (int from = 0; from < ids.size(); from += 500) {
			List<String> slice = ids.subList(from, Math.min(ids.size(), from + 500));
			// by message_id alone, so that the database looks the ids up in their index
			// (no range of seq to scan instead): which rows are older is sorted out here
			try (PreparedStatement older = connection.prepareStatement("SELECT seq, queue_name, message_id FROM "
					+ table + " WHERE " + dialect.inList("message_id", slice.size()))) {
				older.setQueryTimeout(OutboxRelay.QUERY_TIMEOUT_SECONDS);
				dialect.bindList(older, 1, slice);
				try (ResultSet rs = older.executeQuery()) {
					while (rs.next()) {
						long seq = rs.getLong(1);
						String key = rowKey(rs.getString(2), rs.getString(3));
						Long last = newestTaken.get(key);
						if (last != null && seq < last && !taken.contains(seq)) {
							firstGap.merge(key, seq, Math::min);
						}
					}
				}
			}
		}
		if (firstGap.isEmpty()) {
			return;
		}
		for (int i = prepared.size() - 1; i >= 0; i--) {
			Long gap = firstGap.get(rowKey(prepared.get(i).queue(), prepared.get(i).id()));
			if (gap != null && seqs.get(i) > gap) {
				prepared.remove(i);
				seqs.remove(i);
			}
		}
	}

	/** The {@code ?, ?, ...} of an {@code IN} list of {@code count} values. */
	static String placeholders(int count) {
		return String.join(", ", Collections.nCopies(count, "?"));
	}

	private static String rowKey(String queue, String id) {
		return queue + '\u0000' + id;
	}

}
