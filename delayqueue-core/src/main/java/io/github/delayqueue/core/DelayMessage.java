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
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

import io.github.delayqueue.core.internal.redis.DueTimes;
import io.github.delayqueue.core.internal.redis.QueueNames;

/**
 * A message to schedule: queue, payload, when, and optionally a caller-chosen id (for
 * dedup, cancel and reschedule), headers and a per-message attempt limit.
 *
 * <pre class="code">
 * DelayMessage.builder(new OrderTimeout(orderId))
 *     .queue("order-timeout").id("order-" + orderId)
 *     .delay(Duration.ofMinutes(30)).header("tenant", "acme")
 *     .build();
 * </pre>
 *
 * @param <T> the payload type
 */
public final class DelayMessage<T> {

	private final String queue;

	private final String id;

	private final String key;

	private final T payload;

	private final Duration delay;

	private final Instant deliverAt;

	private final Map<String, String> headers;

	private final int maxAttempts;

	private final boolean replaceExisting;

	private final Duration expireAfter;

	private final int priority;

	private DelayMessage(Builder<T> builder) {
		this.queue = QueueNames.queue(builder.queue);
		this.id = (builder.id != null) ? sendableId(builder.id) : null;
		this.key = (builder.key != null) ? QueueNames.messageKey(builder.key) : null;
		this.payload = Objects.requireNonNull(builder.payload, "Payload must not be null");
		this.delay = builder.delay;
		this.deliverAt = builder.deliverAt;
		this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(builder.headers));
		this.maxAttempts = builder.maxAttempts;
		this.replaceExisting = builder.replaceExisting;
		this.expireAfter = builder.expireAfter;
		this.priority = builder.priority;
	}

	/** The highest priority. */
	public static final int MAX_PRIORITY = io.github.delayqueue.core.internal.redis.Envelope.MAX_PRIORITY;

	/** The longest expire-after: ten years. */

	/**
	 * An id a producer may choose: a valid id, outside the ids of recurring schedules.
	 */
	private static String sendableId(String id) {
		QueueNames.messageId(id);
		if (id.startsWith(io.github.delayqueue.core.internal.redis.WireFormat.TICK_PREFIX)) {
			throw new IllegalArgumentException("Message id '" + id + "' starts with '"
					+ io.github.delayqueue.core.internal.redis.WireFormat.TICK_PREFIX
					+ "', which is reserved for the messages of recurring schedules");
		}
		return id;
	}

	/**
	 * Starts building a message.
	 * @param payload the payload (not {@code null})
	 * @param <T> the payload type
	 * @return a builder
	 */
	public static <T> Builder<T> builder(T payload) {
		if (payload == null) {
			throw new IllegalArgumentException("Payload must not be null");
		}
		return new Builder<>(payload);
	}

	/**
	 * @return the queue
	 */
	public String queue() {
		return this.queue;
	}

	/**
	 * @return the caller-chosen id, or {@code null} to generate one
	 */
	public String id() {
		return this.id;
	}

	/**
	 * @return the key that chooses the partition of a partitioned queue, or {@code null}
	 * for the id
	 */
	public String key() {
		return this.key;
	}

	/**
	 * @return the payload
	 */
	public T payload() {
		return this.payload;
	}

	/**
	 * @return the delay from the moment Redis receives the message, or {@code null}
	 */
	public Duration delay() {
		return this.delay;
	}

	/**
	 * @return the absolute delivery time, or {@code null}
	 */
	public Instant deliverAt() {
		return this.deliverAt;
	}

	/**
	 * @return the headers
	 */
	public Map<String, String> headers() {
		return this.headers;
	}

	/**
	 * @return the per-message attempt limit, or 0 for the listener's
	 */
	public int maxAttempts() {
		return this.maxAttempts;
	}

	/**
	 * @return whether to replace a scheduled message with the same id (debounce)
	 */
	public boolean replaceExisting() {
		return this.replaceExisting;
	}

	/**
	 * @return how long after its due time the message expires, or {@code null} for the
	 * queue's default (none unless declared on the engine)
	 */
	public Duration expireAfter() {
		return this.expireAfter;
	}

	/**
	 * @return the message's priority, 0 (none) to {@value #MAX_PRIORITY}
	 */
	public int priority() {
		return this.priority;
	}

	/**
	 * Builds a {@link DelayMessage}.
	 *
	 * @param <T> the payload type
	 */
	public static final class Builder<T> {

		private final T payload;

		private String queue;

		private String id;

		private String key;

		private Duration delay = Duration.ZERO;

		private Instant deliverAt;

		private final Map<String, String> headers = new LinkedHashMap<>();

		private int maxAttempts;

		private boolean replaceExisting;

		private Duration expireAfter;

		private int priority;

		private Builder(T payload) {
			this.payload = payload;
		}

		/**
		 * Sets the queue.
		 * @param queue the queue name
		 * @return this builder
		 */
		public Builder<T> queue(String queue) {
			this.queue = queue;
			return this;
		}

		/**
		 * Sets the message id; sending an id that is still scheduled does nothing unless
		 * {@link #replaceExisting()} is set.
		 * @param id the id
		 * @return this builder
		 */
		public Builder<T> id(String id) {
			this.id = id;
			return this;
		}

		/**
		 * Sets the key that chooses the partition of a partitioned queue: messages with
		 * the same key go to the same partition (the queue's {@link Partitioner}).
		 * Without it, the id is the key. It has no effect on a queue of one partition.
		 * @param key the key (the rules of an id: at most 256 UTF-8 bytes, no control
		 * characters)
		 * @return this builder
		 */
		public Builder<T> key(String key) {
			this.key = key;
			return this;
		}

		/**
		 * Delivers after this delay, measured by the Redis clock from when Redis receives
		 * the message. Zero or negative delivers at once; a sub-millisecond part rounds
		 * up to the next millisecond.
		 * @param delay the delay
		 * @return this builder
		 * @throws IllegalArgumentException when it would end after
		 * 9999-12-31T23:59:59.999Z
		 */
		public Builder<T> delay(Duration delay) {
			DueTimes.delayMillis(delay); // checks the range
			this.delay = delay;
			this.deliverAt = null;
			return this;
		}

		/**
		 * Delivers at this instant (compared with the Redis clock). A past instant
		 * delivers at once; a sub-millisecond part rounds up to the next millisecond.
		 * @param deliverAt the instant, from 0000-01-01T00:00:00Z to
		 * 9999-12-31T23:59:59.999Z
		 * @return this builder
		 * @throws IllegalArgumentException when it is out of that range
		 */
		public Builder<T> deliverAt(Instant deliverAt) {
			DueTimes.epochMillis(deliverAt); // checks the range
			this.deliverAt = deliverAt;
			this.delay = null;
			return this;
		}

		/**
		 * Adds a header.
		 * @param name the name
		 * @param value the value
		 * @return this builder
		 * @throws IllegalArgumentException when the name or value has a lone UTF-16
		 * surrogate (UTF-8 cannot carry it)
		 */
		public Builder<T> header(String name, String value) {
			Objects.requireNonNull(name, "Header name must not be null");
			Objects.requireNonNull(value, "Header value must not be null");
			this.headers.put(QueueNames.utf16("Header name", name),
					QueueNames.utf16("Value of header '" + QueueNames.abbreviate(name) + "'", value));
			return this;
		}

		/**
		 * Limits the attempts of this message for every group, overriding the listener's
		 * limit.
		 * @param maxAttempts at least 1
		 * @return this builder
		 */
		public Builder<T> maxAttempts(int maxAttempts) {
			if (maxAttempts < 1) {
				throw new IllegalArgumentException("Max attempts must be at least 1, but was " + maxAttempts);
			}
			this.maxAttempts = maxAttempts;
			return this;
		}

		/**
		 * Makes the message expire if no handler has received it within this time after
		 * its due time (by the Redis clock): after that no handler of any group receives
		 * it, and it becomes a dead letter naming
		 * {@link io.github.delayqueue.core.listener.MessageExpiredException} (or is
		 * discarded, see
		 * {@link io.github.delayqueue.core.listener.ListenerSetters#discardExpired}).
		 * Counted from the due time, so that a message scheduled for tomorrow is not born
		 * expired; a reschedule moves it with the due time. Retries do not extend it: a
		 * retry that would be due at or after the expiry ends the message then. A
		 * replayed dead letter no longer expires. Overrides the queue's default
		 * ({@link DelayQueueEngineBuilder#expireAfter}).
		 * @param expireAfter at least 1 ms, at most
		 * {@value io.github.delayqueue.core.internal.redis.DueTimes#MAX_EXPIRE_AFTER_DAYS}
		 * days
		 * @return this builder
		 * @throws IllegalArgumentException when out of range
		 */
		public Builder<T> expireAfter(Duration expireAfter) {
			this.expireAfter = DueTimes.checkExpireAfter(expireAfter, "Expire-after of a message");
			return this;
		}

		/**
		 * Gives the message a priority: once due, it is handed to handlers before the due
		 * messages without one (it passes their backlog), and a container starts the
		 * higher priorities it holds first. Never before its due time. See
		 * {@code docs/priority.md}.
		 * @param priority 0 (none, the default) to {@value DelayMessage#MAX_PRIORITY}
		 * @return this builder
		 * @throws IllegalArgumentException when out of range
		 */
		public Builder<T> priority(int priority) {
			if (priority < 0 || priority > MAX_PRIORITY) {
				throw new IllegalArgumentException(
						"Priority must be from 0 to " + MAX_PRIORITY + ", but was " + priority);
			}
			this.priority = priority;
			return this;
		}

		/**
		 * Replaces a scheduled message with the same id (its payload and due time)
		 * instead of keeping it: a debounce.
		 * @return this builder
		 */
		public Builder<T> replaceExisting() {
			this.replaceExisting = true;
			return this;
		}

		/**
		 * Builds the message.
		 * @return the message
		 * @throws IllegalArgumentException when the queue or id is invalid
		 */
		public DelayMessage<T> build() {
			return new DelayMessage<>(this);
		}

	}

}
