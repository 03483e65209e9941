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

package io.github.delayqueue.core.listener;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.github.delayqueue.core.support.Envelope;

/**
 * One stream entry held by a container, from read (or recovery) to ack or nack; the
 * handler's {@link DelayMessageContext}.
 */
final class Delivery implements DelayMessageContext {

	final String stream;

	final String entryId;

	final String messageId;

	final byte[] envelopeBytes;

	final long dueMillis;

	final int attempt;

	/**
	 * The entry's delivery count in the group's pending list once this delivery took it.
	 */
	private final DelayQueueListenerContainer container;

	Envelope envelope;

	int maxAttempts;

	long startedNanos;

	volatile long keepAliveUntilNanos;

	volatile boolean leaseLost;

	Delivery(DelayQueueListenerContainer container, String stream, String entryId, Map<String, byte[]> fields,
			long deliveries) {
		this.container = container;
		this.stream = stream;
		this.entryId = entryId;
		this.messageId = text(fields.get("i"), "");
		this.envelopeBytes = (fields.get("e") != null) ? fields.get("e") : new byte[0];
		this.dueMillis = parseLong(text(fields.get("d"), "0"));
		this.attempt = (int) (parseLong(text(fields.get("a"), "1")) + deliveries - 1);
	}

	private static String text(byte[] value, String fallback) {
		return (value != null) ? new String(value, StandardCharsets.UTF_8) : fallback;
	}

	private static long parseLong(String value) {
		try {
			return (long) Double.parseDouble(value);
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	@Override
	public String queue() {
		return this.container.queue();
	}

	@Override
	public String group() {
		return this.container.group();
	}

	@Override
	public String id() {
		return this.messageId;
	}

	@Override
	public int attempt() {
		return this.attempt;
	}

	@Override
	public int maxAttempts() {
		return this.maxAttempts;
	}

	@Override
	public Instant dueTime() {
		return Instant.ofEpochMilli(this.dueMillis);
	}

	@Override
	public Map<String, String> headers() {
		return (this.envelope != null) ? this.envelope.headers() : Map.of();
	}

	@Override
	public boolean extendLease(Duration duration) {
		long until = System.nanoTime() + duration.toNanos();
		if (until - this.keepAliveUntilNanos > 0) {
			this.keepAliveUntilNanos = until;
		}
		return this.container.renewNow(this);
	}

	@Override
	public String toString() {
		return "message '" + this.messageId + "' (entry " + this.entryId + ", attempt " + this.attempt + ") of queue '"
				+ queue() + "', group '" + group() + "'";
	}

}
