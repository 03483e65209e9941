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

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.redis.MasterWatch;
import io.github.delayqueue.core.internal.runtime.LoopRunner;
import io.github.delayqueue.core.listener.DelayBatchHandler;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.ListenerSettings;

/**
 * The machinery of one listener container: a {@link StreamReader} per partition of the
 * queue, and one {@link WorkerPool} running the {@link Processor}, one {@link Acker} and
 * one {@link LeaseKeeper} for all of them, sharing the container's {@link Holdings}. Each
 * background part runs on a supervised loop, so none can end silently while the container
 * runs.
 */
public final class ListenerRuntime implements MasterWatch.Listener {

	private static final Log logger = LogFactory.getLog(ListenerRuntime.class);

	/** The container's context: partition 0's. */
	private final ListenerContext context;

	private final List<ListenerContext> partitions;

	private final Holdings holdings;

	private final Acker acker;

	private final ConcurrencySlots slots;

	private final LeaseKeeper leases;

	private final Processor processor;

	/** How many messages each partition's reader reads ahead. */
	private final int readAhead;

	private final WorkerPool workers;

	/** Run when the gate opens: workers are handed over for what waited. */
	private final Runnable workersWanted;

	/** The readers of the partitions read now, by partition. */
	private final Map<Integer, StreamReader> readers = new ConcurrentHashMap<>();

	private final Runnable onConnected;

	/** The engine's loop runner: the readers run there. */
	private final LoopRunner loops;

	/** A shared container: whether its group has owners, which refuse its readers. */
	private final OwnerWatch owners;

	/** Checks the queue's partitions against Redis, adding old ones that drain. */
	private final Runnable layout;

	/** Who reads which partition, when the container is exclusive; else {@code null}. */
	private final PartitionOwnership ownership;

	/** Whether the readers may read: not while a failover is under way. */
	private volatile BooleanSupplier readsAllowed = () -> true;

	/**
	 * Creates the runtime of a listener of one message at a time, or of a batch listener;
	 * nothing runs until {@link #start()}.
	 * @param partitions the contexts of the queue's partitions, partition 0 first
	 * @param payloadType the type payloads are decoded to
	 * @param handler the handler of one message at a time, or {@code null}
	 * @param batchHandler the batch handler, or {@code null}
	 * @param onConnected runs each time a reader has connected, before it creates its
	 * groups, and every second while it reads
	 * @param workerThreads the engine's pool of worker threads, used unless the listener
	 * has an executor of its own
	 * @param loops the engine's loop runner
	 * @param heartbeats the engine's heartbeat, whose lapses recovery follows
	 */
	public ListenerRuntime(List<ListenerContext> partitions, Type payloadType, DelayMessageHandler<?> handler,
			DelayBatchHandler<?> batchHandler, InterceptorChain interceptors, Runnable onConnected,
			Executor workerThreads, LoopRunner loops, Heartbeats heartbeats) {
		if ((handler == null) == (batchHandler == null)) {
			throw new IllegalArgumentException("Give either a handler or a batch handler");
		}
		this.context = partitions.get(0);
		// grows when a change of the partition count leaves old partitions to drain
		this.partitions = new CopyOnWriteArrayList<>(partitions);
		this.layout = onConnected;
		ListenerSettings settings = this.context.settings();
		// a worker holds one message, or a batch; each partition's reader reads ahead
		// its prefetch, at least a batch, so that it fetches batches
		int perWorker = (batchHandler != null) ? settings.batchSize() : 1;
		this.readAhead = (batchHandler != null) ? Math.max(settings.prefetch(), settings.batchSize())
				: settings.prefetch();
		this.holdings = new Holdings(settings.concurrency() * perWorker + this.readAhead * this.partitions.size(),
				settings.ordered(), this.readAhead);
		this.slots = new ConcurrencySlots(this.context,
				TimeUnit.NANOSECONDS.toMillis(LeaseKeeper.renewEveryNanos(settings)), batchHandler != null,
				this::availableWorkers);
		this.loops = loops;
		this.acker = new Acker(this.context, this.holdings, this.slots, loops);
		this.leases = new LeaseKeeper(this.context, this.holdings, this::reading, loops);
		LeaseFence fence = new LeaseFence(this.context, this::partitionLease);
		this.processor = new Processor(this.context, this.holdings, this.acker, this.slots, fence, payloadType, handler,
				(handler != null) ? handler.acceptsNullPayload() : batchHandler.acceptsNullPayload(), interceptors);
		this.workers = new WorkerPool(this.context, this.holdings, this.processor, (batchHandler != null)
				? new BatchProcessor(this.context, this.processor, this.holdings, batchHandler, interceptors) : null,
				workerThreads);
		this.leases.bind(this.processor, this.workers);
		this.leases.heartbeats(heartbeats);
		this.workersWanted = this.workers::unserved;
		this.ownership = this.context.settings().exclusive() ? new PartitionOwnership(this, this.partitions) : null;
		this.owners = (this.ownership == null)
				? new OwnerWatch(this.context, () -> this.readers.values().forEach(StreamReader::checkNow)) : null;
		this.onConnected = (this.ownership != null) ? onConnected : () -> {
			onConnected.run();
			this.owners.refuseBesideOwners();
		};
	}

	/** How many deliveries held now would go to a worker at once. */
	private int availableWorkers() {
		return this.workers.available();
	}

	/** The lease of a partition: an exclusive container's own, always held otherwise. */
	private LeaseFence.Lease partitionLease(int partition) {
		return (this.ownership != null) ? this.ownership.lease(partition) : LeaseFence.Lease.HELD;
	}

	/**
	 * Starts every part. After a stop that timed out, handlers still running count
	 * against the concurrency.
	 */
	public void start() {
		this.processor.prepare();
		this.acker.start();
		this.leases.start();
		this.workers.start();
		this.context.gate().whenOpened(this.workersWanted);
		if (this.ownership != null) {
			// opens the partitions this member comes to own
			this.ownership.start();
		}
		else {
			this.owners.start();
			// the partitions known now: old ones added meanwhile (a change of the
			// partition count, learnt by the first reader) are opened by addPartition
			int known = this.partitions.size();
			for (int partition = 0; partition < known; partition++) {
				open(partition);
			}
		}
	}

	/**
	 * Stops reading, lets running handlers finish within the shutdown timeout, flushes
	 * acks, and gives back every held entry no handler runs, then removes this consumer
	 * from the group where it holds nothing. Handlers that outlive the timeout keep their
	 * entries; their acks are still sent when they return.
	 * @return whether every running handler finished within the shutdown timeout
	 */
	public boolean stop() {
		long deadline = System.nanoTime() + this.context.settings().shutdownTimeout().toNanos();
		// what it took over now it would not process: left to the consumers that go on
		this.leases.stopTaking();
		if (this.ownership != null) {
			this.ownership.stop();
		}
		else {
			this.owners.stop();
		}
		// one by one: a stop closes the reader's connection at once
		this.readers.values().forEach((reader) -> reader.stop(Duration.ofSeconds(10)));
		this.readers.clear();
		this.context.gate().noLongerWhenOpened(this.workersWanted);
		this.workers.stop();
		boolean finished = this.workers.awaitIdle(deadline);
		if (!finished) {
			logger.warn(this.workers.live() + " handler(s) of " + this.context.label()
					+ " still run after the shutdown timeout; their acks are sent when they return");
		}
		drop(this.holdings.drainWaiting());
		this.acker.stop(deadline);
		new ShutdownRelease(this.context, this.partitions, this.holdings).run(deadline);
		if (this.ownership != null) {
			this.ownership.leave();
		}
		this.leases.stop();
		return finished;
	}

	/**
	 * Tells which part does not serve: a reader, the ownership, the watchdog, the acker
	 * (each stopped, being replaced, or failing for seconds), or a worker missing.
	 * @return the first such part's problem, {@code null} while every part serves
	 */
	public String problem() {
		for (StreamReader reader : this.readers.values()) {
			String problem = reader.problem();
			if (problem != null) {
				return problem;
			}
		}
		String problem = (this.ownership != null) ? this.ownership.problem() : null;
		problem = (problem != null) ? problem : this.leases.problem();
		problem = (problem != null) ? problem : this.acker.problem();
		return (problem != null) ? problem : this.workers.problem();
	}

	/**
	 * @return how many messages are held: read, running, or awaiting their ack
	 */
	public int held() {
		return this.holdings.size();
	}

	/**
	 * @return how many hung handlers were abandoned to a replacement worker
	 */
	public long abandonedHandlers() {
		return this.workers.abandonedCount();
	}

	/**
	 * Starts reading a partition: pending entries of this consumer first, then new ones.
	 * @param partition the partition
	 */
	void open(int partition) {
		StreamReader reader = new StreamReader(this.partitions.get(partition), this.holdings, this.leases, this.slots,
				this.onConnected, this.partitions::size,
				() -> this.readsAllowed.getAsBoolean() && partitionLease(partition) == LeaseFence.Lease.HELD,
				this.loops);
		// never two readers of one partition: stopping one mid-read would leave what it
		// read pending with no holder until its lease expired
		if (this.readers.putIfAbsent(partition, reader) == null) {
			reader.start();
		}
	}

	/**
	 * Sets when the readers may read (see {@link MasterWatch#readsAllowed()}).
	 * @param readsAllowed whether they may now
	 */
	public void readWhile(BooleanSupplier readsAllowed) {
		this.readsAllowed = readsAllowed;
		// a concurrency slot taken then would go to the old master too
		this.slots.takeWhile(readsAllowed);
	}

	/**
	 * The master changed while the readers' connections still reach the old one: each
	 * connects again (to the master).
	 */
	@Override
	public void reconnect() {
		this.readers.values().forEach(StreamReader::reconnect);
	}

	/**
	 * The master is another server: the acknowledgements of the last seconds may be lost
	 * with the old one, and are sent to it again.
	 */
	@Override
	public void serverChanged() {
		this.acker.sendRecentAgain();
		this.slots.held().serverChanged();
		// what was read ahead may have been read from the old master after the promotion:
		// its lease is confirmed on this one before it starts
		this.holdings.all().forEach(Delivery::confirmLease);
	}

	/**
	 * Makes a partition's reader read this consumer's pending entries again before any
	 * new one: a take-over claimed entries for it.
	 * @param partition the partition
	 */
	void rereadPending(int partition) {
		StreamReader reader = this.readers.get(partition);
		if (reader != null) {
			reader.rereadPending();
		}
	}

	/**
	 * Adds a partition to read: an old one, left to drain by a change of the partition
	 * count. A shared container opens it at once; an exclusive one takes it when it is
	 * its share.
	 * @param partition the partition's context, numbered after the partitions known
	 */
	public void addPartition(ListenerContext partition) {
		int number = partition.keys().partition();
		if (number != this.partitions.size()) {
			throw new IllegalStateException("Partition " + number + " of " + this.context.label()
					+ " is not the next one (" + this.partitions.size() + ")");
		}
		this.partitions.add(partition);
		// its read-ahead, as for the partitions known at the start
		this.holdings.grow(this.readAhead);
		if (this.ownership == null) {
			open(number);
		}
	}

	/**
	 * Checks the queue's partition count against Redis and learns of old partitions that
	 * drain; an exclusive container's ownership does this before each heartbeat.
	 */
	void checkLayout() {
		this.layout.run();
	}

	/**
	 * Stops reading a partition, and drops its messages no handler took: they stay
	 * pending with this consumer, for the partition's next owner to take over (or for
	 * this one, should it read the partition again). Running handlers finish.
	 * @param partition the partition
	 */
	void close(int partition) {
		StreamReader reader = this.readers.remove(partition);
		if (reader != null) {
			reader.stop(Duration.ofSeconds(10));
		}
		drop(this.holdings.drainWaiting(partition));
	}

	/**
	 * Drops deliveries no handler took, pending with this consumer: a slot a read took
	 * for one is freed with the acknowledgements (else held, and renewed, for as long as
	 * this container runs).
	 */
	private void drop(List<Delivery> unstarted) {
		for (Delivery delivery : unstarted) {
			this.slots.release(delivery, true);
			if (delivery.settle()) {
				this.holdings.finished(delivery);
			}
		}
	}

	/**
	 * How many messages of a partition are held: read, running, or awaiting their ack.
	 */
	int heldIn(int partition) {
		return this.holdings.heldIn(partition);
	}

	/**
	 * @return the partitions this container reads: all of them, or those it owns when
	 * exclusive
	 */
	public Set<Integer> partitionsRead() {
		return new TreeSet<>(this.readers.keySet());
	}

	/**
	 * The group's live members at an exclusive container's last heartbeat; 0 if shared.
	 */
	public int members() {
		return (this.ownership != null) ? this.ownership.members() : 0;
	}

	/** The contexts of the partitions read now: those recovery and trimming cover. */
	private List<ListenerContext> reading() {
		return (this.ownership == null) ? this.partitions
				: this.readers.keySet().stream().map(this.partitions::get).toList();
	}

}
