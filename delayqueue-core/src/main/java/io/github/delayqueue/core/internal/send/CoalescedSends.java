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
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.github.delayqueue.core.internal.send.SendBatch.Prepared;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.DelayQueueException;
import io.github.delayqueue.core.internal.redis.RedisCalls;

/**
 * Sends the single messages that threads send to one partition at the same time in one
 * script call (group commit): a thread that finds no call under way for the partition
 * leads, sending what is waiting (its own message with the others, up to
 * {@code sendBatchSize}); the threads that arrive meanwhile wait, and when the call is
 * done the first of them leads the next. A web application's request threads, each
 * sending one message, then cost Redis one call per round trip rather than one per
 * message.
 * <p>
 * Each message keeps the operation timeout: one that waited that long behind earlier
 * calls fails unsent, and a call is bounded by the earliest deadline of its messages. A
 * failed call fails only its own messages.
 */
final class CoalescedSends {

	private final SendContext context;

	private final Map<QueueKeys, Lane> lanes = new ConcurrentHashMap<>();

	CoalescedSends(SendContext context) {
		this.context = context;
	}

	/**
	 * Sends one message; returns once its result is set.
	 * @param keys the partition it goes to
	 * @param prepared the message
	 * @throws DelayQueueException when its call failed or did not answer in time, or it
	 * waited longer than the operation timeout for earlier calls (then unsent)
	 */
	void send(QueueKeys keys, Prepared prepared) {
		Duration bound = this.context.scripts().bound();
		Waiter waiter = new Waiter(prepared, (bound != null) ? System.nanoTime() + bound.toNanos() : 0, bound);
		Lane lane = this.lanes.computeIfAbsent(keys, Lane::new);
		try {
			List<Waiter> batch = lane.join(waiter);
			if (batch == null) {
				batch = lane.await(waiter);
			}
			if (batch != null) {
				lead(lane, batch);
			}
		}
		finally {
			if (waiter.interrupted) {
				Thread.currentThread().interrupt();
			}
		}
		Throwable failure = waiter.failure;
		if (failure != null) {
			if (failure.getClass() == DelayQueueException.class) {
				// thrown anew on each caller's thread: its own stack, the call's cause
				throw new DelayQueueException(failure.getMessage(), failure.getCause());
			}
			// what a lone send throws (e.g. the IllegalStateException of a partition
			// count that does not match), as it is
			if (failure instanceof RuntimeException ex) {
				throw ex;
			}
			throw (Error) failure;
		}
	}

	private void lead(Lane lane, List<Waiter> batch) {
		try {
			List<Prepared> messages = new ArrayList<>(batch.size());
			long deadline = 0;
			for (Waiter waiter : batch) {
				messages.add(waiter.prepared);
				if (waiter.bound != null && (deadline == 0 || waiter.deadline - deadline < 0)) {
					deadline = waiter.deadline;
				}
			}
			// what the earliest deadline leaves, in whole milliseconds (as the timeout
			// names it)
			Duration bound = (deadline != 0)
					? Duration.ofMillis(Math.max(1, (deadline - System.nanoTime() + 999_999) / 1_000_000)) : null;
			SendChunk chunk = SendChunk.of(this.context, lane.keys, messages);
			try {
				RedisCalls.inRedis("send to queue(s) " + lane.keys.queue(), () -> this.context.scripts()
					.executeUnbounded((connection) -> ScriptRunner.bounded(bound, () -> {
						chunk.send(this.context.layouts(), connection);
						return null;
					})));
			}
			catch (RuntimeException ex) {
				batch.forEach((waiter) -> waiter.failure = ex);
			}
		}
		catch (RuntimeException | Error ex) {
			// before or around the call: fails every message of the batch
			batch.forEach((waiter) -> {
				if (waiter.failure == null) {
					waiter.failure = ex;
				}
			});
			throw ex;
		}
		finally {
			lane.done(batch);
		}
	}

	/** A message waiting for its call. */
	private static final class Waiter {

		final Prepared prepared;

		/** When the operation timeout ends ({@code System.nanoTime()}). */
		final long deadline;

		final Duration bound;

		/**
		 * Completes with the batch this waiter leads, or {@code null} once it was sent.
		 */
		final CompletableFuture<List<Waiter>> turn = new CompletableFuture<>();

		volatile Throwable failure;

		/** Whether the waiting thread was interrupted (its own field). */
		boolean interrupted;

		Waiter(Prepared prepared, long deadline, Duration bound) {
			this.prepared = prepared;
			this.deadline = deadline;
			this.bound = bound;
		}

	}

	/** The messages waiting for one partition, and whether a call is under way. */
	private final class Lane {

		final QueueKeys keys;

		private final ArrayDeque<Waiter> pending = new ArrayDeque<>();

		private boolean leading;

		Lane(QueueKeys keys) {
			this.keys = keys;
		}

		/** Queues a waiter; returns the batch it leads at once, or {@code null}. */
		synchronized List<Waiter> join(Waiter waiter) {
			this.pending.add(waiter);
			if (this.leading) {
				return null;
			}
			this.leading = true;
			return take();
		}

		/**
		 * Waits for the waiter's call, or its turn to lead; returns the batch it leads,
		 * or {@code null} once it was sent (or failed).
		 */
		List<Waiter> await(Waiter waiter) {
			try {
				return (waiter.bound != null)
						? waiter.turn.get(Math.max(0, waiter.deadline - System.nanoTime()), TimeUnit.NANOSECONDS)
						: waiter.turn.get();
			}
			catch (TimeoutException | InterruptedException ex) {
				boolean interrupted = ex instanceof InterruptedException;
				// restored once the waiter is done: it may still lead a call
				waiter.interrupted |= interrupted;
				if (withdraw(waiter)) {
					waiter.failure = new DelayQueueException("Cannot send to queue(s) " + this.keys.queue() + ": "
							+ (interrupted ? "interrupted while earlier sends to it were under way"
									: "earlier sends to it took the whole operation timeout (" + waiter.bound.toMillis()
											+ " ms)")
							+ "; it was not sent", ex);
					return null;
				}
				// in a call already (bounded by this deadline), or leading: wait for the
				// outcome
				return waitUninterruptibly(waiter);
			}
			catch (ExecutionException ex) {
				throw new IllegalStateException(ex);
			}
		}

		private List<Waiter> waitUninterruptibly(Waiter waiter) {
			while (true) {
				try {
					return waiter.turn.get();
				}
				catch (InterruptedException ex) {
					waiter.interrupted = true;
				}
				catch (ExecutionException ex) {
					throw new IllegalStateException(ex);
				}
			}
		}

		private synchronized boolean withdraw(Waiter waiter) {
			return this.pending.remove(waiter);
		}

		/** Ends a call: releases its waiters, and hands the next batch to its first. */
		void done(List<Waiter> batch) {
			List<Waiter> next;
			synchronized (this) {
				if (this.pending.isEmpty()) {
					this.leading = false;
					next = null;
				}
				else {
					next = take();
				}
			}
			// the next call first: Redis works on it while the senders of this one wake
			// up
			if (next != null) {
				next.get(0).turn.complete(next);
			}
			for (Waiter waiter : batch) {
				waiter.turn.complete(null);
			}
		}

		private List<Waiter> take() {
			int size = Math.min(this.pending.size(), CoalescedSends.this.context.sendBatchSize());
			List<Waiter> batch = new ArrayList<>(size);
			for (int i = 0; i < size; i++) {
				batch.add(this.pending.poll());
			}
			return batch;
		}

	}

}
