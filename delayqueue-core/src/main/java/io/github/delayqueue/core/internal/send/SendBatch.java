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
import java.util.Base64;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.QueueFullException;
import io.github.delayqueue.core.internal.redis.DueTimes;
import io.github.delayqueue.core.internal.redis.Envelope;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.github.delayqueue.core.observation.DelayQueueObservations;
import io.micrometer.observation.Observation;

/**
 * Messages checked, encoded and given their ids, by partition: the preparation of a send,
 * done on the caller's thread (so that bad input fails there, inside the caller's
 * transaction) before anything reaches Redis.
 * <p>
 * The size limits apply to what the caller gave: the payload, and the headers the caller
 * set. Headers the engine adds (the trace context an observation writes) are not counted.
 */
public final class SendBatch {

	private static final Base64.Encoder ID_ENCODER = Base64.getUrlEncoder().withoutPadding();

	/** By partition: one script call touches one slot. */
	final Map<QueueKeys, List<Prepared>> byPartition = new LinkedHashMap<>();

	final List<Prepared> all;

	private final Set<String> queueNames = new LinkedHashSet<>();

	/** One per message while a registry observes sends, started. */
	private final List<Observation> observations = new ArrayList<>();

	private final SendContext context;

	/**
	 * Whether the caller sent one message ({@code send}, not {@code sendAll}): a refusal
	 * throws rather than being reported in the result.
	 */
	final boolean single;

	/**
	 * Prepares messages a caller sends.
	 * @param context the send path's settings
	 * @param messages the messages
	 * @param single whether the caller sent one message: a refusal then throws
	 * @throws IllegalArgumentException when a message is over a size limit
	 */
	public SendBatch(SendContext context, Collection<? extends DelayMessage<?>> messages, boolean single) {
		this.context = context;
		this.single = single;
		this.all = new ArrayList<>(messages.size());
		DelayQueueObservations observations = context.observations();
		// a batch of several: one send observation for the batch, one create observation
		// per message (its context is the one the message carries)
		Observation batch = null;
		if (!observations.isNoop() && messages.size() > 1) {
			batch = observations.batch(commonQueue(messages), messages.size()).start();
			this.observations.add(batch);
		}
		for (DelayMessage<?> message : messages) {
			Prepared prepared;
			if (observations.isNoop()) {
				prepared = prepare(message, message.headers(), null);
			}
			else {
				// the id first: the observation names it; its start adds the trace
				// context
				// to the headers the message is encoded with
				String id = (message.id() != null) ? message.id() : generateId();
				Map<String, String> headers = new LinkedHashMap<>(message.headers());
				Observation observation = (batch != null) ? observations.create(batch, message.queue(), id, headers)
						: observations.send(message.queue(), id, headers);
				observation.start();
				try {
					prepared = prepare(message, headers, id);
				}
				catch (RuntimeException ex) {
					observation.error(ex);
					observation.stop();
					stop(ex);
					throw ex;
				}
				if (batch != null) {
					// created: the batch's observation covers the send
					observation.stop();
				}
				else {
					this.observations.add(observation);
				}
			}
			add(prepared);
		}
	}

	/** The queue of every message, or {@code null} when they go to several. */
	private static String commonQueue(Collection<? extends DelayMessage<?>> messages) {
		String queue = null;
		for (DelayMessage<?> message : messages) {
			if (queue != null && !queue.equals(message.queue())) {
				return null;
			}
			queue = message.queue();
		}
		return queue;
	}

	/**
	 * A batch of messages prepared before (rows of the outbox): no observation, refusals
	 * reported in the results.
	 */
	public SendBatch(SendContext context, List<Prepared> prepared) {
		this.context = context;
		this.single = false;
		this.all = new ArrayList<>(prepared.size());
		prepared.forEach(this::add);
	}

	private void add(Prepared prepared) {
		this.all.add(prepared);
		QueueKeys keys = this.context.layouts()
			.keysFor(prepared.queue, (prepared.partitionKey != null) ? prepared.partitionKey : prepared.id);
		this.byPartition.computeIfAbsent(keys, (partition) -> new ArrayList<>()).add(prepared);
		this.queueNames.add(prepared.queue);
	}

	/**
	 * Checks and encodes one message.
	 * @param headers the headers to encode: the caller's, plus what an observation added
	 * @param chosenId the id already chosen for it, or {@code null}
	 */
	private Prepared prepare(DelayMessage<?> message, Map<String, String> headers, String chosenId) {
		Duration expireAfter = (message.expireAfter() != null) ? message.expireAfter()
				: this.context.expireAfter().apply(message.queue());
		byte[] envelope = envelope(this.context, message.queue(), message.payload(), message.headers(), headers,
				message.maxAttempts(), expireAfter, message.key(), message.priority());
		// a generated id cannot collide with a scheduled one: the script skips the dedup
		// look-up
		String mode = (message.id() == null) ? "2" : (message.replaceExisting() ? "1" : "0");
		String id = (chosenId != null) ? chosenId : (message.id() != null) ? message.id() : generateId();
		if (message.deliverAt() != null) {
			return new Prepared(message.queue(), id, message.key(), envelope, WireFormat.DUE_AT,
					DueTimes.epochMillis(message.deliverAt()), mode);
		}
		return new Prepared(message.queue(), id, message.key(), envelope, WireFormat.DUE_IN,
				DueTimes.delayMillis(message.delay()), mode);
	}

	/**
	 * Encodes a message's envelope, checking the size limits.
	 * @param callerHeaders the headers the caller set (the limit applies to these)
	 * @param headers the headers to encode: the caller's, plus what an observation added
	 * @param expireAfter the time to live from the due time, or {@code null}
	 * @param priority 0 to 9
	 */
	public static byte[] envelope(SendContext context, String queue, Object payload, Map<String, String> callerHeaders,
			Map<String, String> headers, int maxAttempts, Duration expireAfter, String key, int priority) {
		byte[] encoded = context.codec().encode(payload);
		if (encoded.length > context.maxPayloadSize()) {
			throw new IllegalArgumentException("Payload for queue '" + queue + "' is " + encoded.length
					+ " bytes, over the limit of " + context.maxPayloadSize() + " bytes");
		}
		// the caller's headers only: the limit is the caller's, the engine's own are
		// extra
		int headersSize = Envelope.headersSize(callerHeaders);
		if (headersSize > context.maxHeadersSize()) {
			throw new IllegalArgumentException("Headers for queue '" + queue + "' are " + headersSize
					+ " bytes, over the limit of " + context.maxHeadersSize() + " bytes");
		}
		return new Envelope(headers, maxAttempts, (expireAfter != null) ? expireAfter.toMillis() : 0, key, encoded,
				priority)
			.encode();
	}

	static String generateId() {
		byte[] random = new byte[12];
		ThreadLocalRandom.current().nextBytes(random);
		return ID_ENCODER.encodeToString(random);
	}

	public String queues() {
		return String.join(", ", this.queueNames);
	}

	/** The results of a send that was deferred until a commit. */
	public List<SendResult> deferred() {
		return this.all.stream()
			.map((prepared) -> new SendResult(prepared.queue, prepared.id, SendResult.Status.DEFERRED, null))
			.toList();
	}

	/** Stops the observations of the sends, with the failure if they failed. */
	public void stop(Throwable failure) {
		for (Observation observation : this.observations) {
			if (failure != null) {
				observation.error(failure);
			}
			observation.stop();
		}
		this.observations.clear();
	}

	/**
	 * Returns the messages, in the order they were given.
	 * @return the prepared messages
	 */
	public List<Prepared> all() {
		return this.all;
	}

	/** One message, ready for the send script. */
	public static final class Prepared {

		final String queue;

		final String id;

		final byte[] envelope;

		final String kind;

		final long value;

		final String mode;

		/** The message's key, which picks its partition (the id when {@code null}). */
		final String partitionKey;

		SendResult result;

		/** Why the send script refused it (over the queue's size limit), or null. */
		QueueFullException refusal;

		/**
		 * A message ready for the send script.
		 * @param queue its queue
		 * @param id its id
		 * @param partitionKey its key, which picks its partition, or {@code null}
		 * @param envelope its encoded envelope
		 * @param kind {@link WireFormat#DUE_AT} or {@link WireFormat#DUE_IN}
		 * @param value the due time or delay in milliseconds
		 * @param mode the script's dedup mode: {@code 0} keep an existing message,
		 * {@code 1} replace it, {@code 2} a generated id
		 */
		public Prepared(String queue, String id, String partitionKey, byte[] envelope, String kind, long value,
				String mode) {
			this.queue = queue;
			this.id = id;
			this.partitionKey = partitionKey;
			this.envelope = envelope;
			this.kind = kind;
			this.value = value;
			this.mode = mode;
		}

		public String queue() {
			return this.queue;
		}

		public String id() {
			return this.id;
		}

		public String partitionKey() {
			return this.partitionKey;
		}

		public byte[] envelope() {
			return this.envelope;
		}

		public String kind() {
			return this.kind;
		}

		public long value() {
			return this.value;
		}

		public String mode() {
			return this.mode;
		}

	}

}
