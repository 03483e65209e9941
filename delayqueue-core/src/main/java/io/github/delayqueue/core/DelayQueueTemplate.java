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
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Predicate;
import java.util.function.Supplier;

import io.github.delayqueue.core.internal.runtime.BoundedCalls;
import io.github.delayqueue.core.internal.runtime.Failures;
import io.github.delayqueue.core.internal.redis.DueTimes;
import io.github.delayqueue.core.internal.redis.Envelope;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.github.delayqueue.core.observation.DelayQueueObservations;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The {@link DelayQueueOperations} of a {@link DelayQueueEngine}. Thread-safe; obtain it
 * with {@link DelayQueueEngine#template()}.
 * <p>
 * Every send is checked before it reaches Redis: queue name, id, payload size and headers
 * size (an {@link IllegalArgumentException} says what is wrong). Each message is
 * scheduled by one atomic script that also deduplicates by id;
 * {@link #sendAll(Collection)} sends up to {@code sendBatchSize} messages of a queue per
 * script call.
 */
public class DelayQueueTemplate implements DelayQueueOperations {

	private static final Log logger = LogFactory.getLog(DelayQueueTemplate.class);

	private static final Base64.Encoder ID_ENCODER = Base64.getUrlEncoder().withoutPadding();

	private final DelayQueueEngine engine;

	DelayQueueTemplate(DelayQueueEngine engine) {
		this.engine = engine;
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
		return sendAll(List.of(message)).get(0);
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
		return sendAll(List.of(message), durability).get(0);
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
		Batch batch = new Batch(messages);
		if (this.engine.sendAfterCommit() && TransactionSynchronizationManager.isSynchronizationActive()) {
			afterCommit(batch, durability);
			return batch.all.stream()
				.map((prepared) -> new SendResult(prepared.queue, prepared.id, SendResult.Status.DEFERRED, null))
				.toList();
		}
		return send(batch, durability);
	}

	@Override
	public CompletableFuture<SendResult> sendAfterCommit(DelayMessage<?> message) {
		CompletableFuture<SendResult> result = new CompletableFuture<>();
		// not thenApply: a rollback must cancel this future too, not fail it
		sendAllAfterCommit(List.of(message)).whenComplete((results, failure) -> {
			if (failure instanceof CancellationException) {
				result.cancel(false);
			}
			else if (failure != null) {
				result.completeExceptionally(failure);
			}
			else {
				result.complete(results.get(0));
			}
		});
		return result;
	}

	@Override
	public CompletableFuture<List<SendResult>> sendAllAfterCommit(Collection<? extends DelayMessage<?>> messages) {
		// checked now: bad input fails in the caller's transaction
		Batch batch = new Batch(messages);
		if (!TransactionSynchronizationManager.isSynchronizationActive()) {
			return CompletableFuture.completedFuture(send(batch, this.engine.sendDurability()));
		}
		return afterCommit(batch, this.engine.sendDurability());
	}

	/**
	 * Sends a batch once the current transaction committed; drops it when it rolls back
	 * (the future is then cancelled).
	 */
	private CompletableFuture<List<SendResult>> afterCommit(Batch batch, Durability durability) {
		CompletableFuture<List<SendResult>> result = new CompletableFuture<>();
		TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

			@Override
			public void afterCommit() {
				try {
					result.complete(send(batch, durability));
				}
				catch (RuntimeException | Error ex) {
					// the transaction committed: the caller may never look at the future
					logger.error("Could not send " + batch.all.size() + " message(s) to queue(s) " + batch.queues()
							+ " after the transaction committed; they are lost unless sent again", ex);
					result.completeExceptionally(ex);
				}
			}

			@Override
			public void afterCompletion(int status) {
				if (status != STATUS_COMMITTED) {
					batch.stop(new CancellationException("The transaction rolled back; nothing was sent"));
					result.cancel(false);
				}
			}

		});
		return result;
	}

	private List<SendResult> send(Batch batch, Durability durability) {
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

	private List<SendResult> sendNow(Batch batch, Durability durability) {
		Map<QueueKeys, List<Prepared>> byPartition = batch.byPartition;
		List<Prepared> all = batch.all;
		if (all.isEmpty()) {
			return List.of();
		}
		String queues = batch.queues();
		Duration bound = this.engine.scripts().bound();
		long[] confirmed = inRedis("send to queue(s) " + queues,
				() -> this.engine.scripts().executeUnbounded((connection) -> {
					List<Chunk> chunks = chunks(byPartition);
					if (durability != null) {
						// one pipeline: each chunk's bound, and the time the replicas may
						// take
						Duration total = (bound != null) ? bound.multipliedBy(chunks.size()).plus(durability.timeout())
								: null;
						return ScriptRunner.bounded(total,
								() -> DurableSends.send(this.engine, connection, chunks, durability));
					}
					for (Chunk chunk : chunks) {
						// each chunk bounded: a send of a million messages takes many of
						// them
						ScriptRunner.bounded(bound, () -> {
							this.engine.register(connection, chunk.keys);
							chunk.apply(ScriptRunner.run(connection, Scripts.SEND, chunk.scriptKeys(), chunk.args));
							return null;
						});
					}
					return null;
				}));
		List<SendResult> results = new ArrayList<>(all.size());
		for (Prepared prepared : all) {
			results.add(prepared.result);
			this.engine.observer().sent(prepared.result);
		}
		if (confirmed != null) {
			DurableSends.check(durability, confirmed, results, queues);
		}
		return results;
	}

	private List<Chunk> chunks(Map<QueueKeys, List<Prepared>> byPartition) {
		List<Chunk> chunks = new ArrayList<>();
		int size = this.engine.sendBatchSize();
		byPartition.forEach((keys, batch) -> {
			for (int from = 0; from < batch.size(); from += size) {
				chunks.add(new Chunk(keys, batch.subList(from, Math.min(batch.size(), from + size))));
			}
		});
		return chunks;
	}

	/** One script call's worth of messages of one queue. */
	static final class Chunk {

		final QueueKeys keys;

		final List<Prepared> messages;

		final Object[] args;

		Chunk(QueueKeys keys, List<Prepared> messages) {
			this.keys = keys;
			this.messages = messages;
			List<Object> args = new ArrayList<>(2 + messages.size() * 5);
			args.add(keys.wakeChannel());
			args.add(messages.size());
			for (Prepared prepared : messages) {
				args.add(prepared.id);
				args.add(prepared.envelope);
				args.add(prepared.kind);
				args.add(prepared.value);
				args.add(prepared.mode);
			}
			this.args = args.toArray();
		}

		List<String> scriptKeys() {
			return List.of(this.keys.delayed(), this.keys.messages(), this.keys.stream(), this.keys.retired());
		}

		void apply(List<Object> reply) {
			for (int i = 0; i < this.messages.size(); i++) {
				Prepared prepared = this.messages.get(i);
				SendResult.Status status = SendResult.Status.values()[(int) ScriptRunner.asLong(reply.get(2 * i)) - 1];
				Instant due = Instant.ofEpochMilli(ScriptRunner.asLong(reply.get(2 * i + 1)));
				prepared.result = new SendResult(this.keys.queue(), prepared.id, status, due);
			}
		}

	}

	private Prepared prepare(DelayMessage<?> message, Map<String, String> headers, String chosenId) {
		byte[] payload = this.engine.codec().encode(message.payload());
		if (payload.length > this.engine.maxPayloadSize()) {
			throw new IllegalArgumentException("Payload for queue '" + message.queue() + "' is " + payload.length
					+ " bytes, over the limit of " + this.engine.maxPayloadSize() + " bytes");
		}
		int headersSize = Envelope.headersSize(headers);
		if (headersSize > this.engine.maxHeadersSize()) {
			throw new IllegalArgumentException("Headers for queue '" + message.queue() + "' are " + headersSize
					+ " bytes, over the limit of " + this.engine.maxHeadersSize() + " bytes");
		}
		byte[] envelope = new Envelope(headers, message.maxAttempts(), payload).encode();
		// a generated id cannot collide with a scheduled one: the script skips the dedup
		// look-up
		String mode = (message.id() == null) ? "2" : (message.replaceExisting() ? "1" : "0");
		String id = (chosenId != null) ? chosenId : (message.id() != null) ? message.id() : generateId();
		if (message.deliverAt() != null) {
			return new Prepared(message.queue(), id, envelope, WireFormat.DUE_AT,
					DueTimes.epochMillis(message.deliverAt()), mode);
		}
		return new Prepared(message.queue(), id, envelope, WireFormat.DUE_IN, DueTimes.delayMillis(message.delay()),
				mode);
	}

	private static String generateId() {
		byte[] random = new byte[12];
		ThreadLocalRandom.current().nextBytes(random);
		return ID_ENCODER.encodeToString(random);
	}

	@Override
	public boolean cancel(String queue, String id) {
		QueueNames.messageId(id);
		return inRedis("cancel message '" + id + "' in queue '" + queue + "'",
				() -> inEachPartition(queue, id,
						(keys) -> ScriptRunner.asLong(this.engine.scripts()
							.run(Scripts.CANCEL, List.of(keys.delayed(), keys.messages()), id)
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
		return inRedis("reschedule message '" + id + "' in queue '" + queue + "'",
				() -> inEachPartition(queue, id,
						(keys) -> ScriptRunner.asLong(this.engine.scripts()
							.run(Scripts.RESCHEDULE, List.of(keys.delayed(), keys.messages(), keys.stream()), id, kind,
									value, keys.wakeChannel())
							.get(0)) == 1));
	}

	/**
	 * Applies an operation on a scheduled message to the partition its id maps to, then,
	 * in a partitioned queue, to the others (a message sent with a key of its own may be
	 * in any), until one applies it.
	 */
	private boolean inEachPartition(String queue, String id, Predicate<QueueKeys> operation) {
		this.engine.verifyPartitions(queue);
		QueueKeys first = this.engine.keysFor(queue, id);
		if (operation.test(first)) {
			return true;
		}
		for (QueueKeys keys : this.engine.partitionKeys(queue)) {
			if (!keys.equals(first) && operation.test(keys)) {
				return true;
			}
		}
		return false;
	}

	@Override
	public CompletableFuture<SendResult> sendAsync(DelayMessage<?> message) {
		return CompletableFuture.supplyAsync(() -> send(message), this.engine.asyncExecutor());
	}

	@Override
	public CompletableFuture<List<SendResult>> sendAllAsync(Collection<? extends DelayMessage<?>> messages) {
		List<? extends DelayMessage<?>> copy = List.copyOf(messages);
		return CompletableFuture.supplyAsync(() -> sendAll(copy), this.engine.asyncExecutor());
	}

	@Override
	public CompletableFuture<Boolean> cancelAsync(String queue, String id) {
		return CompletableFuture.supplyAsync(() -> cancel(queue, id), this.engine.asyncExecutor());
	}

	@Override
	public CompletableFuture<Boolean> rescheduleAsync(String queue, String id, Duration delay) {
		return CompletableFuture.supplyAsync(() -> reschedule(queue, id, delay), this.engine.asyncExecutor());
	}

	static <T> T inRedis(String what, Supplier<T> action) {
		try {
			return action.get();
		}
		catch (DataAccessException ex) {
			throw new DelayQueueException("Cannot " + what + ": " + Failures.describe(ex), ex);
		}
		catch (BoundedCalls.TimeoutException ex) {
			throw new DelayQueueException(
					"Cannot " + what + ": " + ex.getMessage() + " (the operation may or may not have taken effect)",
					ex);
		}
	}

	/** Messages checked, encoded and given their ids, by partition. */
	private final class Batch {

		/** By partition: one script call touches one slot. */
		final Map<QueueKeys, List<Prepared>> byPartition = new LinkedHashMap<>();

		final Set<String> queueNames = new LinkedHashSet<>();

		final List<Prepared> all;

		/** One per message while a registry observes sends, started. */
		final List<Observation> observations = new ArrayList<>();

		Batch(Collection<? extends DelayMessage<?>> messages) {
			this.all = new ArrayList<>(messages.size());
			ObservationRegistry registry = DelayQueueTemplate.this.engine.observationRegistry();
			for (DelayMessage<?> message : messages) {
				Prepared prepared;
				if (registry.isNoop()) {
					prepared = prepare(message, message.headers(), null);
				}
				else {
					// the id first: the observation names it; its start adds the trace
					// context to the headers the message is encoded with
					String id = (message.id() != null) ? message.id() : generateId();
					Map<String, String> headers = new LinkedHashMap<>(message.headers());
					Observation observation = DelayQueueObservations.send(registry, message.queue(), id, headers);
					observation.start();
					this.observations.add(observation);
					try {
						prepared = prepare(message, headers, id);
					}
					catch (RuntimeException ex) {
						stop(ex);
						throw ex;
					}
				}
				this.all.add(prepared);
				QueueKeys keys = DelayQueueTemplate.this.engine.keysFor(message.queue(),
						(message.key() != null) ? message.key() : prepared.id);
				this.byPartition.computeIfAbsent(keys, (partition) -> new ArrayList<>()).add(prepared);
				this.queueNames.add(message.queue());
			}
		}

		String queues() {
			return String.join(", ", this.queueNames);
		}

		/** Stops the observations of the sends, with the failure if they failed. */
		void stop(Throwable failure) {
			for (Observation observation : this.observations) {
				if (failure != null) {
					observation.error(failure);
				}
				observation.stop();
			}
			this.observations.clear();
		}

	}

	static final class Prepared {

		final String queue;

		final String id;

		final byte[] envelope;

		final String kind;

		final long value;

		final String mode;

		SendResult result;

		Prepared(String queue, String id, byte[] envelope, String kind, long value, String mode) {
			this.queue = queue;
			this.id = id;
			this.envelope = envelope;
			this.kind = kind;
			this.value = value;
			this.mode = mode;
		}

	}

}
