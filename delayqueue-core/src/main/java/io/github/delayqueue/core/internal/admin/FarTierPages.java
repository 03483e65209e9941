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
package io.github.delayqueue.core.internal.admin;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BiPredicate;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.redis.WireFormat;

import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.Limit;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.stream.ByteRecord;

/**
 * Reads the first messages of the far tier in due order
 * ({@code DelayQueueAdmin.scheduled}): a node's entries are in the order they were
 * written, so every entry of each node that may hold one of them is read, newest first,
 * 1,000 per {@code XREVRANGE} of a page's stream (no script: Redis is never held for
 * long). Nodes are read in the order they start: where a slot is dense, its nodes are
 * narrow (a binary tree cut by due time, see {@code prelude.lua}), so the first messages
 * are in the first node of each level. Only the entries that would enter the page are
 * checked against the id index (one script call per read, for those that do), so that
 * cancelled and replaced entries are left out.
 */
final class FarTierPages {

	private static final int READ = 1000;

	/** The widest far-tier node: half the largest {@code compactAfter}, a day. */
	private static final long SLOT_MAX_MILLIS = 43_200_000;

	/** Far-tier nodes listed per script call. */
	private static final int NODES_PER_CALL = 64;

	private static final Comparator<Entry> DUE_ORDER = Comparator.comparingLong(Entry::due)
		.thenComparing(Entry::idBytes, Arrays::compareUnsigned);

	private FarTierPages() {
	}

	/**
	 * The first {@code count} live far-tier messages of a partition after a position.
	 * @param after whether a message (due, id bytes) comes after the page's start
	 * @param from the least due time the page can hold
	 * @param until the greatest (the caller has a page of its own up to it)
	 * @return id, due, envelope of each, in due order
	 */
	static List<Entry> page(RedisConnection connection, QueueKeys keys, long from, long until,
			BiPredicate<Long, byte[]> after, int count) {
		List<String> scriptKeys = List.of(keys.far(), keys.farState());
		TreeSet<Entry> kept = new TreeSet<>(DUE_ORDER);
		int offset = 0;
		while (true) {
			// a node may hold messages due from 'from' on when it starts up to its width
			// before
			List<Object> nodes = ScriptRunner.run(connection, Scripts.FAR_READ, scriptKeys, "slots",
					Math.max(0, from - SLOT_MAX_MILLIS), offset, NODES_PER_CALL);
			for (int i = 0; i + 4 < nodes.size(); i += 5) {
				long start = ScriptRunner.asLong(nodes.get(i));
				// a node starts no later than its entries are due: once enough are found
				// before it, or it starts after the bound, done
				if (start > until || (kept.size() >= count && start > kept.last().due())) {
					return List.copyOf(kept);
				}
				// a node whose entries are all due before the page starts: passed over
				if (ScriptRunner.asLong(nodes.get(i + 4)) <= from) {
					continue;
				}
				String member = ScriptRunner.asString(nodes.get(i + 1));
				long level = ScriptRunner.asLong(nodes.get(i + 2));
				for (long page = ScriptRunner.asLong(nodes.get(i + 3)); page >= 0; page--) {
					readPage(connection, keys, scriptKeys, new Page(member, level, page), new Window(from, until),
							after, count, kept);
				}
			}
			if (nodes.size() < 5 * NODES_PER_CALL) {
				return List.copyOf(kept);
			}
			offset += NODES_PER_CALL;
		}
	}

	/** How many entries a position reads at most, of the nodes around its time. */
	static final int POSITION_READ = 20_000;

	/**
	 * How many of a partition's far-tier messages are due before a time, at least and at
	 * most: every node that ends by the time counts its length, a node that starts before
	 * it and ends after it is read (at most {@link #POSITION_READ} entries, then the rest
	 * of such nodes count as unknown), and the entries of cancelled or replaced messages
	 * the nodes still hold (their lengths less the messages the far tier holds) are the
	 * most the count can be too high. Equal bounds: exact.
	 * @param held how many messages the far tier holds ({@code far-state n})
	 * @return the least and the most
	 */
	static long[] before(RedisConnection connection, QueueKeys keys, long at, long held) {
		List<String> scriptKeys = List.of(keys.far(), keys.farState());
		// every page of every node, with the node's bounds
		List<long[]> bounds = new ArrayList<>();
		List<byte[]> streams = new ArrayList<>();
		int offset = 0;
		while (true) {
			List<Object> nodes = ScriptRunner.run(connection, Scripts.FAR_READ, scriptKeys, "slots", 0, offset,
					NODES_PER_CALL);
			for (int i = 0; i + 4 < nodes.size(); i += 5) {
				long start = ScriptRunner.asLong(nodes.get(i));
				String member = ScriptRunner.asString(nodes.get(i + 1));
				long end = ScriptRunner.asLong(nodes.get(i + 4));
				for (long page = ScriptRunner.asLong(nodes.get(i + 3)); page >= 0; page--) {
					bounds.add(new long[] { start, end });
					streams.add(QueueKeys.bytes(keys.far() + ":" + member + ((page > 0) ? ":" + page : "")));
				}
			}
			if (nodes.size() < 5 * NODES_PER_CALL) {
				break;
			}
			offset += NODES_PER_CALL;
		}
		// their lengths, in one pipeline
		List<Object> lengths = List.of();
		if (!streams.isEmpty()) {
			connection.openPipeline();
			try {
				for (byte[] stream : streams) {
					connection.streamCommands().xLen(stream);
				}
			}
			finally {
				lengths = connection.closePipeline();
			}
		}
		long all = 0;
		long counted = 0;
		long unknown = 0;
		long budget = POSITION_READ;
		List<byte[]> around = new ArrayList<>();
		for (int i = 0; i < streams.size(); i++) {
			long len = (lengths.get(i) instanceof Number number) ? number.longValue() : 0;
			all += len;
			if (bounds.get(i)[1] <= at) {
				counted += len;
			}
			else if (bounds.get(i)[0] < at) {
				if (len <= budget) {
					budget -= len;
					around.add(streams.get(i));
				}
				else {
					unknown += len;
				}
			}
		}
		counted += dueBefore(connection, around, at);
		long stale = Math.max(0, all - held);
		return new long[] { Math.max(0, counted - stale), counted + unknown };
	}

	/**
	 * How many entries of these pages' streams are due before a time: each page (at most
	 * 2,000 entries) read whole, all in one pipeline.
	 */
	private static long dueBefore(RedisConnection connection, List<byte[]> streams, long at) {
		if (streams.isEmpty()) {
			return 0;
		}
		List<Object> pages;
		connection.openPipeline();
		try {
			for (byte[] stream : streams) {
				connection.streamCommands().xRange(stream, Range.unbounded(), Limit.limit().count(PAGE_MAX + 1));
			}
		}
		finally {
			pages = connection.closePipeline();
		}
		long count = 0;
		for (int i = 0; i < streams.size(); i++) {
			List<?> records = (pages.get(i) instanceof List<?> list) ? list : null;
			if (records == null || records.size() > PAGE_MAX
					|| !records.stream().allMatch((record) -> record instanceof ByteRecord)) {
				// not what a page holds: read as a stream of any length
				count += dueBefore(connection, streams.get(i), at);
				continue;
			}
			for (Object record : records) {
				Entry entry = Entry.of(((ByteRecord) record).getValue(), 0);
				if (entry != null && entry.due() < at) {
					count++;
				}
			}
		}
		return count;
	}

	/** The most entries a page of a far-tier node holds. */
	private static final int PAGE_MAX = 2000;

	/** How many entries of a page's stream are due before a time. */
	private static long dueBefore(RedisConnection connection, byte[] stream, long at) {
		long count = 0;
		String after = null;
		while (true) {
			// from the last entry read on, which is passed over
			Range<String> range = (after != null) ? Range.rightUnbounded(Range.Bound.inclusive(after))
					: Range.unbounded();
			List<ByteRecord> records = connection.streamCommands().xRange(stream, range, Limit.limit().count(READ));
			if (records == null || records.isEmpty()) {
				return count;
			}
			for (ByteRecord record : records) {
				if (record.getId().getValue().equals(after)) {
					continue;
				}
				Entry entry = Entry.of(record.getValue(), 0);
				if (entry != null && entry.due() < at) {
					count++;
				}
			}
			if (records.size() < READ) {
				return count;
			}
			after = records.get(records.size() - 1).getId().getValue();
		}
	}

	private static void readPage(RedisConnection connection, QueueKeys keys, List<String> scriptKeys, Page page,
			Window window, BiPredicate<Long, byte[]> after, int count, TreeSet<Entry> kept) {
		byte[] stream = QueueKeys
			.bytes(keys.far() + ":" + page.member() + ((page.page() > 0) ? ":" + page.page() : ""));
		String before = null;
		while (true) {
			Range<String> range = (before != null) ? Range.leftUnbounded(Range.Bound.inclusive(before))
					: Range.unbounded();
			List<ByteRecord> records = connection.streamCommands().xRevRange(stream, range, Limit.limit().count(READ));
			if (records == null || records.isEmpty()) {
				return;
			}
			List<Entry> candidates = new ArrayList<>();
			for (ByteRecord record : records) {
				String entryId = record.getId().getValue();
				if (entryId.equals(before)) {
					continue;
				}
				Entry entry = Entry.of(record.getValue(), page.number());
				if (entry != null && window.holds(entry.due()) && after.test(entry.due(), entry.idBytes())
						&& (kept.size() < count || DUE_ORDER.compare(entry, kept.last()) < 0)) {
					candidates.add(entry);
				}
			}
			// newest first: of an id written twice in a page, the later counts
			for (Entry live : live(connection, scriptKeys, candidates)) {
				if (kept.stream().noneMatch((other) -> other.id().equals(live.id()))) {
					kept.add(live);
					if (kept.size() > count) {
						kept.pollLast();
					}
				}
			}
			if (records.size() < READ) {
				return;
			}
			before = records.get(records.size() - 1).getId().getValue();
		}
	}

	/** The candidates the id index holds with their due time and page. */
	private static List<Entry> live(RedisConnection connection, List<String> scriptKeys, List<Entry> candidates) {
		if (candidates.isEmpty()) {
			return candidates;
		}
		Object[] args = new Object[1 + 3 * candidates.size()];
		args[0] = "live";
		for (int i = 0; i < candidates.size(); i++) {
			Entry entry = candidates.get(i);
			args[1 + 3 * i] = entry.id();
			args[2 + 3 * i] = entry.due();
			args[3 + 3 * i] = entry.page();
		}
		List<Object> flags = ScriptRunner.run(connection, Scripts.FAR_READ, scriptKeys, args);
		List<Entry> live = new ArrayList<>();
		for (int i = 0; i < candidates.size(); i++) {
			if (ScriptRunner.asLong(flags.get(i)) == 1) {
				live.add(candidates.get(i));
			}
		}
		return live;
	}

	/** A page of a far-tier node: its member in the far ZSET, level and page. */
	private record Page(String member, long level, long page) {

		/**
		 * The page number an entry's index score holds (only the last level has pages).
		 */
		long number() {
			return this.level + this.page;
		}

	}

	/** The due times a page can hold. */
	private record Window(long from, long until) {

		boolean holds(long due) {
			return due >= this.from && due <= this.until;
		}

	}

	/** A far-tier entry. */
	record Entry(String id, byte[] idBytes, long due, long page, byte[] envelope) {

		/** The entry of a stream record's fields, or {@code null} when one is missing. */
		static Entry of(Map<byte[], byte[]> fields, long page) {
			byte[] id = null;
			byte[] envelope = null;
			byte[] due = null;
			for (Map.Entry<byte[], byte[]> field : fields.entrySet()) {
				String name = new String(field.getKey(), StandardCharsets.UTF_8);
				if (WireFormat.ID.equals(name)) {
					id = field.getValue();
				}
				else if (WireFormat.ENVELOPE.equals(name)) {
					envelope = field.getValue();
				}
				else if (WireFormat.DUE.equals(name)) {
					due = field.getValue();
				}
			}
			if (id == null || envelope == null || due == null) {
				return null;
			}
			return new Entry(new String(id, StandardCharsets.UTF_8), id,
					Long.parseLong(new String(due, StandardCharsets.US_ASCII)), page, envelope);
		}

	}

}
