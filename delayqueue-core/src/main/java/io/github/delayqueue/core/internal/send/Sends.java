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

package io.github.delayqueue.core.internal.send;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import io.github.delayqueue.core.Durability;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.internal.send.SendBatch.Prepared;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.RedisCalls;
import io.github.delayqueue.core.internal.redis.ScriptRunner;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Runs prepared {@link SendBatch batches}: now, in script calls of at most
 * {@code sendBatchSize} messages of one partition each, or once the current Spring
 * transaction committed.
 */
public final class Sends {

	private static final Log logger = LogFactory.getLog(Sends.class);

	private final SendContext context;

	private final CoalescedSends coalesced;

	public Sends(SendContext context) {
		this.context = context;
		this.coalesced = new CoalescedSends(context);
	}

	/**
	 * Whether a send on this thread is to wait for the commit of the current transaction
	 * ({@code sendAfterCommit} for every send).
	 */
	public boolean defersToCommit() {
		return this.context.sendAfterCommit() && TransactionSynchronizationManager.isSynchronizationActive();
	}

	/** Sends a batch now; its observations stop with the outcome. */
	public List<SendResult> send(SendBatch batch, Durability durability) {
		try {
			List<SendResult> results = sendNow(batch, durability);
			batch.stop(null);
			return results;
		}
		catch (RuntimeException | Error ex) {
			batch.stop(ex);
			throw ex;
		}
	}

	/**
	 * Sends a batch once the current transaction committed (on {@code executor}, or on
	 * the committing thread when {@code null}); drops it when it rolls back (the future
	 * is then cancelled). Outside a transaction, sends it now (on {@code executor} when
	 * given).
	 */
	public CompletableFuture<List<SendResult>> afterCommit(SendBatch batch, Durability durability, Executor executor) {
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return (executor != null) ? CompletableFuture.supplyAsync(() -> send(batch, durability), executor)
					: CompletableFuture.completedFuture(send(batch, durability));
		}
		// get() or join() on the transaction's own thread before it ended fails at once:
		// it
		// could only wait forever
		AfterCommitFuture<List<SendResult>> result = new AfterCommitFuture<>();
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCommit() {
				if (executor == null) {
					sendCommitted(batch, durability, result);
					return;
				}
				try {
					executor.execute(() -> sendCommitted(batch, durability, result));
				}
				catch (RuntimeException ex) {
					// a rejecting executor (shut down): send on this thread rather than
					// lose it
					sendCommitted(batch, durability, result);
				}
			}

			@Override
			public void afterCompletion(int status) {
				result.transactionEnded();
				if (status != STATUS_COMMITTED) {
					batch.stop(new CancellationException("The transaction rolled back; nothing was sent"));
					result.cancel(false);
				}
			}

		});
		return result;
	}

	private void sendCommitted(SendBatch batch, Durability durability, CompletableFuture<List<SendResult>> result) {
		try {
			List<SendResult> results = send(batch, durability);
			long refused = results.stream().filter((sent) -> sent.status() == SendResult.Status.REFUSED).count();
			if (refused > 0) {
				// the caller may never look at the future: say it here too
				logger.warn(refused + " of " + results.size() + " message(s) sent to queue(s) " + batch.queues()
						+ " after the transaction committed were refused: over the queue's size limit; they are lost "
						+ "unless sent again");
			}
			result.complete(results);
		}
		catch (RuntimeException | Error ex) {
			// the transaction committed: the caller may never look at the future
			logger.error("Could not send " + batch.all.size() + " message(s) to queue(s) " + batch.queues()
					+ " after the transaction committed; they are lost unless sent again", ex);
			result.completeExceptionally(ex);
		}
	}

	/** The first result of a batch's future; cancelled (not failed) when it is. */
	public static CompletableFuture<SendResult> first(CompletableFuture<List<SendResult>> results) {
		// of the same kind: a deferred send's keeps refusing a wait inside its
		// transaction
		CompletableFuture<SendResult> result = results.newIncompleteFuture();
		// not thenApply: a rollback must cancel this future too, not fail it
		results.whenComplete((all, failure) -> {
			if (failure instanceof CancellationException) {
				result.cancel(false);
			}
			else if (failure != null) {
				result.completeExceptionally(failure);
			}
			else {
				result.complete(all.get(0));
			}
		});
		return result;
	}

	private List<SendResult> sendNow(SendBatch batch, Durability durability) {
		List<Prepared> all = batch.all;
		if (all.isEmpty()) {
			return List.of();
		}
		String queues = batch.queues();
		Duration bound = this.context.scripts().bound();
		long[] confirmed = (batch.single && durability == null) ? sendCoalesced(batch) : RedisCalls
			.inRedis("send to queue(s) " + queues, () -> this.context.scripts().executeUnbounded((connection) -> {
				List<SendChunk> chunks = chunks(batch.byPartition);
				if (durability != null) {
					// one pipeline: each chunk's bound, and the time the replicas may
					// take
					Duration total = (bound != null) ? bound.multipliedBy(chunks.size()).plus(durability.timeout())
							: null;
					return ScriptRunner.bounded(total,
							() -> DurableSends.send(this.context.layouts(), connection, chunks, durability));
				}
				if (PipelinedSends.applies(connection, chunks)) {
					PipelinedSends.send(this.context.layouts(), connection, chunks, bound);
					return null;
				}
				for (SendChunk chunk : chunks) {
					// each chunk bounded: a send of a million messages takes many of
					// them
					ScriptRunner.bounded(bound, () -> {
						chunk.send(this.context.layouts(), connection);
						return null;
					});
				}
				return null;
			}));
		List<SendResult> results = new ArrayList<>(all.size());
		for (Prepared prepared : all) {
			results.add(prepared.result);
			this.context.observer().sent(prepared.result);
		}
		batch.byPartition.forEach(this::tellScheduled);
		if (batch.single && all.get(0).refusal != null) {
			throw all.get(0).refusal;
		}
		if (confirmed != null) {
			DurableSends.check(durability, confirmed, results, queues);
		}
		return results;
	}

	/**
	 * Tells this engine's scheduler of the partition of the earliest due time sent to it.
	 */
	private void tellScheduled(QueueKeys keys, List<Prepared> sent) {
		long earliest = Long.MAX_VALUE;
		for (Prepared prepared : sent) {
			SendResult result = prepared.result;
			if (result != null && result.dueTime() != null && (result.status() == SendResult.Status.SCHEDULED
					|| result.status() == SendResult.Status.REPLACED)) {
				earliest = Math.min(earliest, result.dueTime().toEpochMilli());
			}
		}
		if (earliest != Long.MAX_VALUE) {
			this.context.scheduled().accept(keys, earliest);
		}
	}

	/** A single message, in one script call with those other threads send meanwhile. */
	private long[] sendCoalesced(SendBatch batch) {
		Map.Entry<QueueKeys, List<Prepared>> only = batch.byPartition.entrySet().iterator().next();
		this.coalesced.send(only.getKey(), only.getValue().get(0));
		return null;
	}

	private List<SendChunk> chunks(Map<QueueKeys, List<Prepared>> byPartition) {
		List<SendChunk> chunks = new ArrayList<>();
		int size = this.context.sendBatchSize();
		byPartition.forEach((keys, batch) -> {
			for (int from = 0; from < batch.size(); from += size) {
				chunks.add(SendChunk.of(this.context, keys, batch.subList(from, Math.min(batch.size(), from + size))));
			}
		});
		return chunks;
	}

}
