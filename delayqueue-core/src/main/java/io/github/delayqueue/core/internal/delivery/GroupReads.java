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
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntSupplier;

import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.SlotRetries;
import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.internal.redis.WireFormat;

import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStreamCommands.XClaimOptions;
import org.springframework.data.redis.connection.stream.ByteRecord;
import org.springframework.data.redis.connection.stream.Consumer;
import org.springframework.data.redis.connection.stream.ReadOffset;
import org.springframework.data.redis.connection.stream.RecordId;
import org.springframework.data.redis.connection.stream.StreamOffset;
import org.springframework.data.redis.connection.stream.StreamReadOptions;

/**
 * A {@link StreamReader}'s reads of new entries: {@code XREADGROUP ... BLOCK} over the
 * queue's stream, the group's retry stream and the urgent stream at once, so a due retry
 * is read as promptly as a new message, never more than the capacity reserved; what it
 * asks for (its share of the holdings, all that is free while its partition has a
 * backlog), and holding what came, giving back what has no room.
 */
final class GroupReads {

	/** The most entries a read asks for: a batch listener may hold tens of thousands. */
	static final int MAX_READ = 1000;

	private final ListenerContext context;

	private final Holdings holdings;

	private final LeaseKeeper leases;

	/** The container's concurrency slots: a read takes those of its deliveries. */
	private final ConcurrencySlots slots;

	/**
	 * How many readers (one per partition) share the holdings: it grows with old
	 * partitions.
	 */
	private final IntSupplier readers;

	/** Which streams the next read reads, and the fair-share fill before it. */
	private final ReadMix mix;

	/** Whether the last read returned all it asked for: the partition has a backlog. */
	private boolean backlog;

	/** How long past its block time a read sent may go unanswered. */
	private static final long UNANSWERED_MARGIN_NANOS = TimeUnit.SECONDS.toNanos(30);

	/** The read sent on the reactive connection, awaiting its answer or its handling. */
	private final AtomicReference<SentRead> sent = new AtomicReference<>();

	/**
	 * The pause before a read sent again after a momentary refusal (a slot split, a
	 * failover), doubling as {@link SlotRetries} does: no read sent again at once, over
	 * and over, while a migration lasts.
	 */
	private long refusedPauseNanos = SlotRetries.FIRST_PAUSE_NANOS;

	GroupReads(ListenerContext context, Holdings holdings, LeaseKeeper leases, ConcurrencySlots slots,
			IntSupplier readers) {
		this.context = context;
		this.holdings = holdings;
		this.leases = leases;
		this.slots = slots;
		this.readers = readers;
		this.mix = new ReadMix(context, holdings);
	}

	Delivery delivery(String stream, ByteRecord record, long sent) {
		return new Delivery(this.context, this.leases, stream, record.getId().getValue(),
				WireFormat.fields(record.getValue()), 1, sent);
	}

	void read(RedisConnection connection, Duration block) {
		read(connection, block, null, null);
	}

	/**
	 * Reads new entries; a read that may block is sent on the reactive connection when
	 * one is given, and not waited for: {@link #finish} handles its answer.
	 * @param reactive the reactive connection for a read that may block, or {@code null}
	 * to wait for it here
	 * @param answered run (on the client's thread) once such a read is answered
	 * @return whether a read was sent and awaits its answer
	 */
	boolean read(RedisConnection connection, Duration block, ReactiveRedisConnection reactive, Runnable answered) {
		int granted = this.holdings.reserve(wanted(false));
		if (granted == 0) {
			return false;
		}
		boolean awaiting = false;
		try {
			awaiting = read(connection, block, granted, reactive, answered);
			return awaiting;
		}
		finally {
			// the deliveries accepted are held now; a read awaiting its answer keeps its
			// slots until then
			if (!awaiting) {
				this.holdings.unreserve(granted);
			}
		}
	}

	/**
	 * @return whether a read sent on the reactive connection awaits its answer (or its
	 * handling)
	 */
	boolean awaiting() {
		return this.sent.get() != null;
	}

	/**
	 * @return how long the read sent awaits its answer yet before it is given up, in
	 * nanoseconds: 0 once it is answered (or none awaits)
	 */
	long untilAnswered() {
		SentRead read = this.sent.get();
		if (read == null || read.done) {
			return 0;
		}
		return Math.max(1, read.deadline - System.nanoTime());
	}

	/**
	 * Handles the answer of the read sent: holds what came, as a read waited for does.
	 * @return how long to wait before the next read, in nanoseconds: a pause after a
	 * momentary refusal, else 0
	 * @throws IllegalStateException when it was not answered in time
	 */
	long finish(RedisConnection connection) {
		SentRead read = this.sent.getAndSet(null);
		if (read == null) {
			return 0;
		}
		try {
			if (!read.done) {
				read.subscription.dispose();
				throw new IllegalStateException("A blocking read of " + this.context.label()
						+ " was not answered within its block time and 30 s");
			}
			if (read.failure != null) {
				if (SlotRetries.isMomentary(read.failure)) {
					// a slot being split or a failover: read again, after a pause
					this.backlog = false;
					long pause = this.refusedPauseNanos;
					this.refusedPauseNanos = Math.min(pause * 2, SlotRetries.MAX_PAUSE_NANOS);
					return pause;
				}
				throw (read.failure instanceof RuntimeException runtime) ? runtime
						: new IllegalStateException(read.failure);
			}
			this.refusedPauseNanos = SlotRetries.FIRST_PAUSE_NANOS;
			readReturned(connection, read.records, read.granted, read.perStream, read.sentNanos);
			return 0;
		}
		finally {
			this.holdings.unreserve(read.granted);
		}
	}

	/**
	 * Gives up the read sent, unanswered or not: its connection is closed. What Redis
	 * gave it is this consumer's, pending: read again first on the next connection.
	 */
	void abandon() {
		SentRead read = this.sent.getAndSet(null);
		if (read != null) {
			read.subscription.dispose();
			this.holdings.unreserve(read.granted);
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
	int wanted(boolean history) {
		if (!this.backlog && !history) {
			return Math.min(MAX_READ, share());
		}
		int free = this.holdings.free();
		return Math.min(MAX_READ, (this.readers.getAsInt() == 1) ? free : Math.max(share(), free / 2));
	}

	/**
	 * @param granted the slots reserved for this read: that many entries are accepted,
	 * more only if slots are free besides
	 * @return whether the read was sent on the reactive connection and awaits its answer
	 */
	private boolean read(RedisConnection connection, Duration block, int granted, ReactiveRedisConnection reactive,
			Runnable answered) {
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
				return false;
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
		if (mayBlock && reactive != null) {
			this.sent.set(SentRead.send(reactive, this.context, options, granted, perStream, sent,
					sent + block.toNanos() + UNANSWERED_MARGIN_NANOS, answered, streams.get(2), streams.get(1),
					streams.get(0)));
			return true;
		}
		List<ByteRecord> records = readGroup(connection, options, offset, streams.get(2), streams.get(1),
				streams.get(0));
		readReturned(connection, records, granted, perStream, sent);
		return false;
	}

	private void readReturned(RedisConnection connection, List<ByteRecord> records, int granted, int perStream,
			long sent) {
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

	/**
	 * Creates the group on each stream of the partition, from the start, where it has
	 * none.
	 */
	void createGroups(RedisConnection connection) {
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

}
