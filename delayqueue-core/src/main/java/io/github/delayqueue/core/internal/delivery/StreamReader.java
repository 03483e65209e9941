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
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.SlotRetries;
import io.github.delayqueue.core.internal.redis.WireFormat;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.stream.ByteRecord;
import org.springframework.data.redis.connection.RedisStreamCommands.XClaimOptions;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;

/**
 * Reads a container's deliveries on a {@link SupervisedLoop} of its own, with a
 * connection of its own: {@code XREADGROUP ... BLOCK} over the queue's stream and the
 * group's retry stream at once, so a due retry is read as promptly as a new message,
 * never more than the capacity left. On every (re)connection it first re-reads its own
 * pending entries that it does not hold ({@code XREADGROUP ... 0}): a read whose reply
 * was lost in a connection drop is delivered after the outage, not after the visibility
 * timeout.
 */
final class StreamReader implements SupervisedLoop.Job {

	/** The most entries a read asks for: a batch listener may hold tens of thousands. */
	static final int MAX_READ = 1000;

	private static final Log logger = LogFactory.getLog(StreamReader.class);

	private static final long CHECK_PERIOD_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(1);

	private final ListenerContext context;

	private final Holdings holdings;

	private final LeaseKeeper leases;

	/** The container's concurrency slots: a read takes those of its deliveries. */
	private final ConcurrencySlots slots;

	private final Runnable onConnected;

	private final SupervisedLoop loop;

	/** How long a paused reader waits for the resume before it looks again. */
	private static final long PAUSED_WAIT_MILLIS = 100;

	/**
	 * How many readers (one per partition) share the holdings: it grows with old
	 * partitions.
	 */
	private final IntSupplier readers;

	/** Whether the last read returned all it asked for: the partition has a backlog. */
	private boolean backlog;

	/** Which streams the next read reads, and the fair-share fill before it. */
	private final ReadMix mix;

	private volatile RedisConnection connection;

	/**
	 * While this consumer's pending entries are read again (after a connection, a take
	 * over): the streams still to read, each with the last entry id read; {@code null}
	 * once all were read. New entries are read only then, so those pending go first.
	 */
	private Map<String, String> history;

	/** Set by another thread: read the pending entries again before new ones. */
	private volatile boolean historyWanted;

	/**
	 * Whether this reader may read now: an exclusive or ordered container's partition
	 * lease surely held.
	 */
	private final BooleanSupplier mayRead;

	/** When a connected reader runs the check of the queue again (System.nanoTime). */
	private long nextCheck;

	/** Why the last check of the queue refused this reader (a configuration error). */
	private volatile String refusal;

	/**
	 * @param slots the container's concurrency slots (a read takes those of its
	 * deliveries ahead, in one call)
	 * @param onConnected runs once a connection is ready, before the groups are created,
	 * and every second after (registers the queue, checks its partition count and, for a
	 * shared listener, that its group has no owners; when it throws, nothing is read)
	 * @param readers how many readers (one per partition) share the holdings, now
	 * @param mayRead whether the reader may read now (a partition lease surely held)
	 */
	StreamReader(ListenerContext context, Holdings holdings, LeaseKeeper leases, ConcurrencySlots slots,
			Runnable onConnected, IntSupplier readers, BooleanSupplier mayRead) {
		this.context = context;
		this.slots = slots;
		this.mayRead = mayRead;
		this.holdings = holdings;
		this.leases = leases;
		this.onConnected = onConnected;
		this.readers = readers;
		this.mix = new ReadMix(context, holdings);
		this.loop = new SupervisedLoop("reader of " + context.label(), context.threadName("reader"), this);
	}

	void start() {
		this.loop.start();
	}

	void stop(Duration timeout) {
		this.loop.stop(timeout);
	}

	/**
	 * Why the reader does not read, or {@code null}: its loop is not served (stopped,
	 * being replaced, failing for seconds), or the queue refused it (an engine declaring
	 * another partition count: it retries, but does not serve).
	 */
	String problem() {
		String problem = this.loop.problem();
		String refused = this.refusal;
		return (problem != null || refused == null) ? problem : "the queue refuses its reader: " + refused;
	}

	@Override
	public long runOnce() {
		RedisConnection current = this.connection;
		if (current == null) {
			// also while paused: the group and this consumer exist in Redis from the
			// start, so a queue paused before its first read shows its groups, their
			// ready counts and their consumers
			current = this.context.scripts().connectionFactory().getConnection();
			this.connection = current;
			// first: it checks the queue's partition count, and a refused listener
			// must not create its group
			check();
			ensureGroups(current);
			startHistory();
			if (this.mayRead.getAsBoolean()) {
				// at once, paused or not: the read makes this consumer a member of the
				// group, seen in the stats from the start
				readHistory(current);
			}
			if (!this.loop.isRunning()) {
				// stopped while connecting: interrupt() may have missed the connection
				closeConnection();
				return 0;
			}
			// on to a read in the same step: a connection that works but cannot read is
			// a step that fails, not one that works and one that fails, again and again
		}
		if (!this.context.gate().awaitOpen(PAUSED_WAIT_MILLIS)) {
			// paused: read nothing; what was read ahead stays held, unstarted
			return 0;
		}
		if (this.holdings.free() < 1) {
			this.holdings.awaitFree(1, 100);
			return 0;
		}
		if (!this.mayRead.getAsBoolean()) {
			// the partition's lease is not surely this container's: a read could take
			// entries from its new owner
			return java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(50);
		}
		if (this.historyWanted) {
			this.historyWanted = false;
			startHistory();
		}
		if (this.history != null) {
			readHistory(current);
			return 0;
		}
		if (System.nanoTime() - this.nextCheck >= 0) {
			// again every second: a shared listener stops reading once an exclusive or
			// ordered member of its group appears, a change of the partition count is
			// seen
			try {
				check();
			}
			catch (IllegalStateException ex) {
				// read nothing more: the next connection checks again, until accepted
				closeConnection();
				throw ex;
			}
		}
		read(current, this.context.readBlock());
		return 0;
	}

	private void check() {
		try {
			this.onConnected.run();
			this.refusal = null;
		}
		catch (IllegalStateException ex) {
			this.refusal = Failures.describe(ex);
			throw ex;
		}
		finally {
			this.nextCheck = System.nanoTime() + CHECK_PERIOD_NANOS;
		}
	}

	/**
	 * Reads this consumer's pending entries again, before any new entry: a read whose
	 * reply was lost in a connection drop, or what a take-over of the partition claimed,
	 * is delivered now, in entry order, not after the visibility timeout.
	 */
	void rereadPending() {
		this.historyWanted = true;
	}

	private void startHistory() {
		Map<String, String> cursors = new LinkedHashMap<>();
		List<String> streams = this.context.streams();
		// the urgent stream first, then the retry stream, as new entries are read
		for (int i = streams.size() - 1; i >= 0; i--) {
			cursors.put(streams.get(i), "0");
		}
		this.history = cursors;
	}

	/**
	 * Reads the next pending entries, as many as there is room for; each stream's cursor
	 * moves past what was held (or is held already, or was deleted), never past an entry
	 * left for lack of room, so each is read in a later step, in order.
	 */
	private void readHistory(RedisConnection connection) {
		int granted = this.holdings.reserve(wanted(true));
		if (granted == 0) {
			return;
		}
		try {
			List<String> streams = new ArrayList<>(this.history.keySet());
			// entries held already come back too
			int perStream = Math.max(1, granted / streams.size()) + this.holdings.size();
			@SuppressWarnings({ "unchecked", "rawtypes" })
			StreamOffset<byte[]>[] offsets = new StreamOffset[streams.size()];
			for (int i = 0; i < offsets.length; i++) {
				offsets[i] = StreamOffset.create(QueueKeys.bytes(streams.get(i)),
						ReadOffset.from(this.history.get(streams.get(i))));
			}
			long sent = System.nanoTime();
			List<ByteRecord> records = SlotRetries.call(() -> connection.streamCommands()
				.xReadGroup(Consumer.from(this.context.group(), this.context.consumer()),
						StreamReadOptions.empty().count(perStream), offsets));
			Map<String, Integer> read = new LinkedHashMap<>();
			java.util.Set<String> full = new java.util.HashSet<>();
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
					if (this.holdings.accept(delivery(stream, record, sent))) {
						accepted++;
					}
				}
				this.history.put(stream, entryId);
			}
			for (String stream : streams) {
				if (!full.contains(stream) && read.getOrDefault(stream, 0) < perStream) {
					this.history.remove(stream);
				}
			}
			if (this.history.isEmpty()) {
				this.history = null;
			}
		}
		finally {
			// the deliveries accepted are held now
			this.holdings.unreserve(granted);
		}
	}

	private Delivery delivery(String stream, ByteRecord record, long sent) {
		return new Delivery(this.context, this.leases, stream, record.getId().getValue(),
				WireFormat.fields(record.getValue()), 1, sent);
	}

	private void read(RedisConnection connection, Duration block) {
		int granted = this.holdings.reserve(wanted(false));
		if (granted == 0) {
			return;
		}
		try {
			read(connection, block, granted);
		}
		finally {
			// the deliveries accepted are held now
			this.holdings.unreserve(granted);
		}
	}

	/**
	 * What a read that may block reserves: at most the prefetch, so that idle partitions
	 * leave a busy one at least concurrency + prefetch, and at most half the capacity, so
	 * that recovery finds room while the read blocks.
	 */
	private int share() {
		return Math.max(1, Math.min(this.holdings.readAhead(), this.holdings.limit() / (2 * this.readers.getAsInt())));
	}

	/**
	 * While its partition has a backlog (the last read got all it asked for, or a history
	 * read), a reader asks for all that is free when it is alone, for half of it when
	 * other partitions' readers share the capacity. Otherwise the read is likely to block
	 * until entries arrive, and it asks for its share only: the slots it reserves stay
	 * taken while it blocks, and the rest stays free for recovery and for the other
	 * partitions. Never more than {@link #MAX_READ}: a backlog is read in several.
	 */
	private int wanted(boolean history) {
		if (!this.backlog && !history) {
			return Math.min(MAX_READ, share());
		}
		int free = this.holdings.free();
		return Math.min(MAX_READ, (this.readers.getAsInt() == 1) ? free : Math.max(share(), free / 2));
	}

	/**
	 * @param granted the slots reserved for this read: that many entries are accepted,
	 * more only if slots are free besides
	 */
	private void read(RedisConnection connection, Duration block, int granted) {
		ReadOffset offset = ReadOffset.lastConsumed();
		boolean mayBlock = this.mix.fillBefore(connection, false, this.backlog);
		List<String> streams = this.context.streams();
		if (this.mix.urgentAlone(false)) {
			// prioritized messages wait: they alone, at once, before anything else
			long sent = System.nanoTime();
			List<ByteRecord> urgent = readGroup(connection, StreamReadOptions.empty().count(granted), offset,
					streams.get(2));
			if (this.mix.urgentRead(urgent, granted)) {
				accept(connection, urgent, granted, sent);
				return;
			}
		}
		// COUNT applies per stream. While prioritized messages come, a third each: the
		// reply fits the slots granted, none is given back
		boolean threeStreams = this.mix.fullRead();
		int perStream = Math.max(1, granted / (threeStreams ? 3 : 2));
		StreamReadOptions options = StreamReadOptions.empty().count(perStream);
		if (mayBlock) {
			options = options.block(block);
		}
		// the urgent stream first, then the retry stream: a prioritized message, then a
		// due retry, go before the backlog
		long sent = System.nanoTime();
		List<ByteRecord> records = readGroup(connection, options, offset, streams.get(2), streams.get(1),
				streams.get(0));
		if (records == null) {
			this.backlog = false;
			return;
		}
		this.mix.readReturned(!records.isEmpty());
		this.backlog = records.size() >= perStream;
		if (accept(connection, records, granted, sent)) {
			this.mix.urgentAccepted();
		}
	}

	/**
	 * Reads a group's entries from streams in their order, waiting out a slot split
	 * between them (a cluster refuses a read of several streams, TRYAGAIN, while their
	 * slot is split).
	 */
	private List<ByteRecord> readGroup(RedisConnection connection, StreamReadOptions options, ReadOffset offset,
			String... streams) {
		@SuppressWarnings({ "unchecked", "rawtypes" })
		StreamOffset<byte[]>[] offsets = new StreamOffset[streams.length];
		for (int i = 0; i < streams.length; i++) {
			offsets[i] = StreamOffset.create(QueueKeys.bytes(streams[i]), offset);
		}
		return SlotRetries.call(() -> connection.streamCommands()
			.xReadGroup(Consumer.from(this.context.group(), this.context.consumer()), options, offsets));
	}

	/**
	 * Holds the entries read, in the order read, up to the slots granted (more while
	 * slots are free besides); gives back the rest.
	 * @param sent when the read was sent: the entries' leases last the visibility timeout
	 * from then at least (a read of this consumer's own pending entries renews them too)
	 */
	private boolean accept(RedisConnection connection, List<ByteRecord> records, int granted, long sent) {
		int accepted = 0;
		boolean urgent = false;
		String urgentStream = this.context.keys().urgent();
		Map<String, List<RecordId>> surplus = new LinkedHashMap<>();
		List<Delivery> deliveries = new ArrayList<>(records.size());
		for (ByteRecord record : records) {
			deliveries.add(delivery(new String(record.getStream(), StandardCharsets.UTF_8), record, sent));
		}
		// before they are held, where a worker would take each its own: the concurrency
		// slots of those surely held, in one call
		this.slots.takeAhead(deliveries.subList(0, Math.min(granted, deliveries.size())));
		for (Delivery delivery : deliveries) {
			urgent |= delivery.stream.equals(urgentStream);
			if (accepted < granted || this.holdings.free() > 0) {
				if (this.holdings.accept(delivery)) {
					accepted++;
					continue;
				}
			}
			else {
				// one entry of each stream when one slot was granted: the main stream's
				// goes back
				surplus.computeIfAbsent(delivery.stream, (key) -> new ArrayList<>()).add(RecordId.of(delivery.entryId));
			}
			// not held: a slot taken for it is freed
			this.slots.release(delivery, true);
		}
		surplus.forEach((stream, ids) -> giveBack(connection, stream, ids));
		if (!surplus.isEmpty()) {
			this.leases.recoverSoon();
		}
		return urgent;
	}

	/**
	 * Gives back entries read beyond the capacity: idle for the visibility timeout, so
	 * that recovery (anyone's) takes them at once, and not counted as a delivery.
	 */
	private void giveBack(RedisConnection connection, String stream, List<RecordId> ids) {
		connection.streamCommands()
			.xClaimJustId(QueueKeys.bytes(stream), this.context.group(), this.context.consumer(),
					XClaimOptions.minIdle(Duration.ZERO)
						.ids(ids)
						.idle(this.context.settings().visibilityTimeout())
						.retryCount(0));
	}

	private void ensureGroups(RedisConnection connection) {
		for (String stream : this.context.streams()) {
			try {
				connection.streamCommands()
					.xGroupCreate(QueueKeys.bytes(stream), this.context.group(), ReadOffset.from("0-0"), true);
			}
			catch (RuntimeException ex) {
				if (!Failures.hasMessage(ex, "BUSYGROUP")) {
					throw ex;
				}
			}
		}
	}

	/**
	 * Closes the connection: the read under way ends, and the next connection reaches the
	 * master the client finds now, where this consumer's pending entries are read again
	 * first.
	 */
	void reconnect() {
		closeConnection();
	}

	@Override
	public void failed(Throwable failure) {
		closeConnection();
	}

	@Override
	public void interrupt() {
		// ends a blocking read at once
		closeConnection();
	}

	@Override
	public void stopped() {
		closeConnection();
	}

	private void closeConnection() {
		RedisConnection current = this.connection;
		this.connection = null;
		if (current != null) {
			try {
				current.close();
			}
			catch (RuntimeException ex) {
				// already broken
			}
		}
	}

}
