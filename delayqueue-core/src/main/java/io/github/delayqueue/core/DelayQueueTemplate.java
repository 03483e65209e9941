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

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

import org.springframework.transaction.support.TransactionSynchronizationManager;

import io.github.delayqueue.core.internal.redis.DueTimes;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.github.delayqueue.core.internal.redis.RedisCalls;
import io.github.delayqueue.core.internal.send.SendBatch;
import io.github.delayqueue.core.internal.send.SendBatch.Prepared;
import io.github.delayqueue.core.internal.send.SendContext;
import io.github.delayqueue.core.internal.send.Sends;

/**
 * The {@link DelayQueueOperations} of a {@link DelayQueueEngine}. Thread-safe; obtain it
 * with {@link DelayQueueEngine#template()}.
 * <p>
 * Every send is checked before it reaches Redis: queue name, id, payload size and headers
 * size (an {@link IllegalArgumentException} says what is wrong). Each message is
 * scheduled by one atomic script that also deduplicates by id;
 * {@link #sendAll(Collection)} sends up to {@code sendBatchSize} messages of a queue per
 * script call.
 * <p>
 * With {@code sendAfterCommit} set on the engine, every send inside a Spring transaction
 * waits for its commit: {@code send} and {@code sendAll} return {@code DEFERRED} results,
 * {@code sendAsync} and {@code sendAllAsync} futures complete once the messages were sent
 * after the commit (cancelled on rollback), as {@link #sendAfterCommit} does.
 */
public class DelayQueueTemplate implements DelayQueueOperations {

	private final DelayQueueEngine engine;

	private final SendContext context;

	private final Sends sends;

	DelayQueueTemplate(DelayQueueEngine engine, SendContext context) {
		this.engine = engine;
		this.context = context;
		this.sends = new Sends(context);
	}

	@Override
	public SendResult send(String queue, Object payload, Duration delay) {
		return send(DelayMessage.builder(payload).queue(queue).delay(delay).build());
	}

	@Override
	public SendResult send(String queue, Object payload, Instant at) {
		return send(DelayMessage.builder(payload).queue(queue).deliverAt(at).build());
	}

	@Override
	public SendResult send(DelayMessage<?> message) {
		return send(message, this.engine.sendDurability());
	}

	@Override
	public List<SendResult> sendAll(Collection<? extends DelayMessage<?>> messages) {
		return sendAll(messages, this.engine.sendDurability());
	}

	/**
	 * Sends a message and waits until Redis confirms it per {@code durability}.
	 * @param message the message
	 * @param durability what to wait for
	 * @return what the send did
	 * @throws UnconfirmedSendException when the send took effect but was not confirmed in
	 * time
	 */
	public SendResult send(DelayMessage<?> message, Durability durability) {
		return send(new SendBatch(this.context, List.of(message), true), durability).get(0);
	}

	/**
	 * Sends messages and waits until Redis confirms them per {@code durability}: the
	 * scripts and the {@code WAIT} (or {@code WAITAOF}) run pipelined on a connection of
	 * their own, so the wait covers exactly these writes and blocks no other user of the
	 * connection factory.
	 * @param messages the messages
	 * @param durability what to wait for, or {@code null} for nothing
	 * @return what each send did, in order
	 * @throws UnconfirmedSendException when the sends took effect but were not confirmed
	 * in time
	 */
	public List<SendResult> sendAll(Collection<? extends DelayMessage<?>> messages, Durability durability) {
		return send(new SendBatch(this.context, messages, false), durability);
	}

	private List<SendResult> send(SendBatch batch, Durability durability) {
		DelayQueueOutbox outbox = this.engine.outboxOrNull();
		if (outbox != null && this.engine.sendThroughOutbox() && outbox.inTransaction()) {
			return writeToOutbox(outbox, batch);
		}
		refuseForeignTransaction(batch);
		if (this.sends.defersToCommit()) {
			this.sends.afterCommit(batch, durability, null);
			return batch.deferred();
		}
		return this.sends.send(batch, durability);
	}

	@Override
	public SendResult sendWithOutbox(DelayMessage<?> message) {
		return withOutbox(new SendBatch(this.context, List.of(message), true)).get(0);
	}

	@Override
	public List<SendResult> sendAllWithOutbox(Collection<? extends DelayMessage<?>> messages) {
		return withOutbox(new SendBatch(this.context, messages, false));
	}

	private List<SendResult> withOutbox(SendBatch batch) {
		DelayQueueOutbox outbox = this.engine.outboxOrNull();
		if (outbox == null) {
			batch.stop(null);
			throw new IllegalStateException("The engine has no outbox: build it with "
					+ "DelayQueueEngineBuilder.outbox(dataSource) (delayqueue.outbox.enabled=true)");
		}
		if (outbox.inTransaction()) {
			return writeToOutbox(outbox, batch);
		}
		if (TransactionSynchronizationManager.isActualTransactionActive()) {
			batch.stop(null);
			throw foreignTransaction();
		}
		return this.sends.send(batch, this.engine.sendDurability());
	}

	/**
	 * With {@code sendThroughOutbox}, a send inside a transaction that is not one of the
	 * outbox's data source (and that {@code sendAfterCommit} does not defer): refused, as
	 * {@code sendWithOutbox} is. Sent at once, it would stay when that transaction rolls
	 * back.
	 */
	private void refuseForeignTransaction(SendBatch batch) {
		if (inForeignTransaction()) {
			batch.stop(null);
			throw foreignTransaction();
		}
	}

	/**
	 * See {@link #refuseForeignTransaction}: the outbox's own transaction is checked
	 * first.
	 */
	private boolean inForeignTransaction() {
		return this.engine.sendThroughOutbox() && !this.sends.defersToCommit()
				&& TransactionSynchronizationManager.isActualTransactionActive();
	}

	private static IllegalStateException foreignTransaction() {
		return new IllegalStateException("A transaction is active, but not one of the outbox's data source: the "
				+ "outbox row would not commit with it. Send inside a transaction of the data source given to "
				+ "DelayQueueEngineBuilder.outbox, or use sendAfterCommit");
	}

	private static List<SendResult> writeToOutbox(DelayQueueOutbox outbox, SendBatch batch) {
		try {
			outbox.write(batch);
			batch.stop(null);
		}
		catch (RuntimeException ex) {
			batch.stop(ex);
			throw ex;
		}
		return batch.deferred();
	}

	/** Sends rows of the outbox (the relay). */
	List<SendResult> sendPrepared(List<Prepared> prepared) {
		return this.sends.send(new SendBatch(this.context, prepared), this.engine.sendDurability());
	}

	@Override
	public CompletableFuture<SendResult> sendAfterCommit(DelayMessage<?> message) {
		return Sends.first(this.sends.afterCommit(new SendBatch(this.context, List.of(message), true),
				this.engine.sendDurability(), null));
	}

	@Override
	public CompletableFuture<List<SendResult>> sendAllAfterCommit(Collection<? extends DelayMessage<?>> messages) {
		// checked now: bad input fails in the caller's transaction
		return this.sends.afterCommit(new SendBatch(this.context, messages, false), this.engine.sendDurability(), null);
	}

	@Override
	public CompletableFuture<SendResult> sendAsync(DelayMessage<?> message) {
		return Sends.first(sendAllAsync(List.of(message), true));
	}

	@Override
	public CompletableFuture<List<SendResult>> sendAllAsync(Collection<? extends DelayMessage<?>> messages) {
		return sendAllAsync(messages, false);
	}

	private CompletableFuture<List<SendResult>> sendAllAsync(Collection<? extends DelayMessage<?>> messages,
			boolean single) {
		DelayQueueOutbox outbox = this.engine.outboxOrNull();
		if (outbox != null && this.engine.sendThroughOutbox() && outbox.inTransaction()) {
			// written now, on the caller's thread: in its transaction
			try {
				return CompletableFuture
					.completedFuture(writeToOutbox(outbox, new SendBatch(this.context, messages, single)));
			}
			catch (RuntimeException ex) {
				return CompletableFuture.failedFuture(ex);
			}
		}
		if (inForeignTransaction()) {
			return CompletableFuture.failedFuture(foreignTransaction());
		}
		if (this.sends.defersToCommit()) {
			// checked on the caller's thread, sent on the async executor after the commit
			SendBatch batch;
			try {
				batch = new SendBatch(this.context, messages, single);
			}
			catch (RuntimeException ex) {
				// as without a transaction: bad input fails the future
				return CompletableFuture.failedFuture(ex);
			}
			return this.sends.afterCommit(batch, this.engine.sendDurability(), this.engine.asyncExecutor());
		}
		List<? extends DelayMessage<?>> copy = List.copyOf(messages);
		return CompletableFuture.supplyAsync(
				() -> send(new SendBatch(this.context, copy, single), this.engine.sendDurability()),
				this.engine.asyncExecutor());
	}

	@Override
	public boolean cancel(String queue, String id) {
		QueueNames.messageId(id);
		return RedisCalls.inRedis("cancel message '" + id + "' in queue '" + queue + "'",
				() -> inEachPartition(queue, id, (keys) -> ScriptRunner.asLong(this.context.scripts()
					.run(Scripts.CANCEL,
							List.of(keys.delayed(), keys.messages(), keys.schedules(), keys.far(), keys.farState()), id)
					.get(0)) == 1));
	}

	@Override
	public boolean reschedule(String queue, String id, Duration delay) {
		QueueNames.messageId(id);
		return reschedule(queue, id, WireFormat.DUE_IN, DueTimes.delayMillis(delay));
	}

	@Override
	public boolean reschedule(String queue, String id, Instant at) {
		QueueNames.messageId(id);
		return reschedule(queue, id, WireFormat.DUE_AT, DueTimes.epochMillis(at));
	}

	private boolean reschedule(String queue, String id, String kind, long value) {
		return RedisCalls.inRedis("reschedule message '" + id + "' in queue '" + queue + "'",
				() -> inEachPartition(queue, id,
						(keys) -> ScriptRunner.asLong(this.context.scripts()
							.run(Scripts.RESCHEDULE,
									List.of(keys.delayed(), keys.messages(), keys.stream(), keys.urgent(), keys.far(),
											keys.farState()),
									id, kind, value, keys.wakeChannel(), this.context.compactArgument())
							.get(0)) == 1));
	}

	/**
	 * Applies an operation on a scheduled message to the partition its id maps to, then,
	 * in a partitioned queue, to the others (a message sent with a key of its own may be
	 * in any), until one applies it.
	 */
	private boolean inEachPartition(String queue, String id, Predicate<QueueKeys> operation) {
		this.context.layouts().verifyPartitions(queue);
		QueueKeys first = this.context.layouts().keysFor(queue, id);
		if (operation.test(first)) {
			return true;
		}
		for (QueueKeys keys : this.context.layouts().partitionKeys(queue)) {
			if (!keys.equals(first) && operation.test(keys)) {
				return true;
			}
		}
		return false;
	}

	@Override
	public CompletableFuture<Boolean> cancelAsync(String queue, String id) {
		return CompletableFuture.supplyAsync(() -> cancel(queue, id), this.engine.asyncExecutor());
	}

	@Override
	public CompletableFuture<Boolean> rescheduleAsync(String queue, String id, Duration delay) {
		return CompletableFuture.supplyAsync(() -> reschedule(queue, id, delay), this.engine.asyncExecutor());
	}

}
