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

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.internal.runtime.LoopRunner;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;
import io.github.delayqueue.core.internal.redis.MasterWatch;

import org.springframework.data.redis.connection.ReactiveRedisConnection;
import org.springframework.data.redis.connection.ReactiveRedisConnectionFactory;
import org.springframework.data.redis.connection.RedisConnection;

/**
 * Reads a partition's deliveries for a container, on a {@link SupervisedLoop} of its own
 * with a connection of its own: it connects, checks the queue (its partition count and,
 * for a shared listener, that the group has no owners), creates the group, then reads
 * this consumer's pending entries again ({@link PendingRereads}: a read whose reply was
 * lost in a connection drop is delivered after the outage, not after the visibility
 * timeout) before new ones ({@link GroupReads}), while the gate is open, the holdings
 * have room and the partition's lease (exclusive or ordered) is surely held. A check told
 * to run now, or a take-over's claimed entries, break off a blocking read.
 */
final class StreamReader implements SupervisedLoop.Job {

	private static final Log logger = LogFactory.getLog(StreamReader.class);

	private static final long CHECK_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);

	private final ListenerContext context;

	private final Holdings holdings;

	private final Runnable onConnected;

	private final SupervisedLoop loop;

	/** How long a paused reader waits for the resume before it looks again. */
	private static final long PAUSED_WAIT_MILLIS = 100;

	/** How long a reader on the runner whose holdings are full waits before it looks. */
	private static final long FULL_WAIT_MILLIS = 10;

	private volatile RedisConnection connection;

	/**
	 * On the engine's loop runner, where the client has a reactive API: the connection of
	 * the reads that may block, sent without waiting (no thread blocks on them);
	 * {@code null} otherwise, and while not connected.
	 */
	private volatile ReactiveRedisConnection reactive;

	/** Whether reads that may block are sent without waiting ({@link #reactive}). */
	private final boolean onRunner;

	/** Run when the gate opens: a paused reader on the runner reads again. */
	private final Runnable opened;

	/** Reads the new entries. */
	private final GroupReads reads;

	/** Reads this consumer's pending entries again (after a connection, a take-over). */
	private final PendingRereads pending;

	/** Set by another thread: read the pending entries again before new ones. */
	private volatile boolean historyWanted;

	/**
	 * Whether this reader may read now: an exclusive or ordered container's partition
	 * lease surely held.
	 */
	private final BooleanSupplier mayRead;

	/** When a connected reader runs the check of the queue again (System.nanoTime). */
	private volatile long nextCheck;

	/**
	 * The connection {@link #breakOff} closed to break off its read: the read's failure
	 * is that, not a failure of Redis.
	 */
	private final AtomicReference<RedisConnection> brokenOff = new AtomicReference<>();

	/**
	 * Whether readers may run on the loop runner, a read sent on the reactive connection
	 * and not waited for: off until two stalls are understood. In full builds first
	 * deliveries after a start stalled over 10 s now and then (4 of 5 builds since
	 * 7f2a657, never alone); on a Cluster a hung master held up the reactive reads of the
	 * others' partitions for seconds (ClusterHungMasterTests).
	 */
	private static final boolean REACTIVE_READS = false;

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
	 * @param loops the engine's loop runner, where the reader runs when the client sends
	 * a blocking read without waiting; {@code null} for a thread of its own
	 */
	StreamReader(ListenerContext context, Holdings holdings, LeaseKeeper leases, ConcurrencySlots slots,
			Runnable onConnected, IntSupplier readers, BooleanSupplier mayRead, LoopRunner loops) {
		this.context = context;
		this.mayRead = mayRead;
		this.holdings = holdings;
		this.onConnected = onConnected;
		this.reads = new GroupReads(context, holdings, leases, slots, readers);
		this.pending = new PendingRereads(context, holdings, this.reads);
		// blocking reads on a thread of its own for now: see REACTIVE_READS
		this.onRunner = REACTIVE_READS && loops != null
				&& context.scripts().connectionFactory() instanceof ReactiveRedisConnectionFactory
				&& MasterWatch.isLettuceOnOneMaster(context.scripts().connectionFactory());
		this.loop = this.onRunner ? new SupervisedLoop("reader of " + context.label(), loops, this)
				: new SupervisedLoop("reader of " + context.label(), context.threadName("reader"), this);
		this.opened = this.loop::wake;
	}

	void start() {
		if (this.onRunner) {
			this.context.gate().whenOpened(this.opened);
		}
		this.loop.start();
	}

	void stop(Duration timeout) {
		this.loop.stop(timeout);
		this.context.gate().noLongerWhenOpened(this.opened);
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
		RedisConnection used = this.connection;
		RedisConnection stale = this.brokenOff.get();
		if (stale != null && stale != used) {
			// broken off before this step, which connects again
			this.brokenOff.compareAndSet(stale, null);
		}
		try {
			return step();
		}
		catch (RuntimeException ex) {
			if (this.brokenOff.getAndSet(null) == null) {
				throw ex;
			}
			// broken off on purpose (checkNow) during this step: the next one connects
			// again and checks first
			return 0;
		}
	}

	private long step() {
		RedisConnection current = this.connection;
		if (current == null) {
			// also while paused: the group and this consumer exist in Redis from the
			// start, so a queue paused before its first read shows its groups, their
			// ready counts and their consumers
			current = this.context.scripts().connectionFactory().getConnection();
			this.connection = current;
			if (this.onRunner) {
				ReactiveRedisConnection previous = this.reactive;
				this.reactive = ((ReactiveRedisConnectionFactory) this.context.scripts().connectionFactory())
					.getReactiveConnection();
				// one a close raced with the last connection left behind
				closeQuietly(previous);
			}
			// first: it checks the queue's partition count, and a refused listener
			// must not create its group
			check();
			this.reads.createGroups(current);
			this.pending.start();
			if (this.mayRead.getAsBoolean()) {
				// at once, paused or not: the read makes this consumer a member of the
				// group, seen in the stats from the start
				this.pending.read(current);
			}
			if (!this.loop.isRunning()) {
				// stopped while connecting: interrupt() may have missed the connection
				closeConnection();
				return 0;
			}
			// on to a read in the same step: a connection that works but cannot read is
			// a step that fails, not one that works and one that fails, again and again
		}
		ReactiveRedisConnection blocking = this.reactive;
		if (this.onRunner && blocking == null) {
			// closed meanwhile (a break-off, a stop): connect again, never block here
			return 0;
		}
		if (this.reads.awaiting()) {
			long unanswered = this.reads.untilAnswered();
			if (unanswered > 0) {
				// woken by the answer
				return unanswered;
			}
			return this.reads.finish(current);
		}
		if (this.onRunner) {
			if (!this.context.gate().isOpen()) {
				// paused: read nothing (woken when the gate opens, and looks again now
				// and
				// then); what was read ahead stays held, unstarted
				return TimeUnit.SECONDS.toNanos(1);
			}
			if (this.holdings.free() < 1) {
				return TimeUnit.MILLISECONDS.toNanos(FULL_WAIT_MILLIS);
			}
		}
		else {
			if (!this.context.gate().awaitOpen(PAUSED_WAIT_MILLIS)) {
				// paused: read nothing; what was read ahead stays held, unstarted
				return 0;
			}
			if (this.holdings.free() < 1) {
				this.holdings.awaitFree(1, 100);
				return 0;
			}
		}
		if (!this.mayRead.getAsBoolean()) {
			// the partition's lease is not surely this container's: a read could take
			// entries from its new owner
			return TimeUnit.MILLISECONDS.toNanos(50);
		}
		if (this.historyWanted) {
			this.historyWanted = false;
			this.pending.start();
		}
		if (this.pending.underWay()) {
			this.pending.read(current);
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
		this.reads.read(current, this.context.readBlock(), blocking, this.loop::wake);
		return 0;
	}

	/**
	 * Runs the check of the queue before the next read, breaking off a blocking read: the
	 * group may have new owners. What the read was sent for is this consumer's, pending:
	 * read again first on the next connection.
	 */
	void checkNow() {
		this.nextCheck = System.nanoTime();
		breakOff();
	}

	/**
	 * Ends a blocking read at once: the next step connects again (and reads this
	 * consumer's pending entries first, then checks the queue), as after a connection
	 * drop, but counted as no failure.
	 */
	private void breakOff() {
		RedisConnection current = this.connection;
		if (current != null) {
			this.brokenOff.set(current);
			closeConnection();
		}
		// a refused reader retries now, not after its backoff
		this.loop.wake();
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
		// not after the read under way: it may block for the poll timeout
		breakOff();
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
		ReactiveRedisConnection blocking = this.reactive;
		this.reactive = null;
		// what a read sent was given is this consumer's, pending: read first when
		// connected
		// again
		this.reads.abandon();
		closeQuietly(blocking);
		if (current != null) {
			try {
				current.close();
			}
			catch (RuntimeException ex) {
				// already broken
			}
		}
	}

	private static void closeQuietly(ReactiveRedisConnection connection) {
		if (connection != null) {
			try {
				connection.close();
			}
			catch (RuntimeException ex) {
				// already broken
			}
		}
	}

}
