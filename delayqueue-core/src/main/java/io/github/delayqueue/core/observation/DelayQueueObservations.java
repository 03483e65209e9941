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

package io.github.delayqueue.core.observation;

import java.util.Map;

import io.micrometer.common.KeyValues;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;

/**
 * The observations delayqueue records, and their conventions:
 * <ul>
 * <li>{@code delayqueue.send} (contextual name {@code <queue> send}): one per message
 * sent, from the call to Redis's answer (for a send after commit: until the send after
 * the commit). Low cardinality: {@code delayqueue.queue}; high cardinality:
 * {@code delayqueue.message.id}.</li>
 * <li>{@code delayqueue.process} (contextual name {@code <queue> process}): one per
 * attempt, the handler's run. Low cardinality: {@code delayqueue.queue},
 * {@code delayqueue.group}, {@code delayqueue.attempt}, {@code delayqueue.outcome}
 * ({@code success} or {@code failure}); high cardinality:
 * {@code delayqueue.message.id}.</li>
 * </ul>
 */
public final class DelayQueueObservations {

	/** The name of the send observation. */
	public static final String SEND = "delayqueue.send";

	/** The name of the processing observation. */
	public static final String PROCESS = "delayqueue.process";

	/**
	 * The name of the observation of a dead-letter handler ({@code @DeadLetterListener})
	 * running on a dead letter.
	 */
	public static final String DEAD_LETTER = "delayqueue.dead-letter";

	private static final ObservationConvention<DelayQueueSendContext> SEND_CONVENTION = new ObservationConvention<>() {

		@Override
		public String getName() {
			return SEND;
		}

		@Override
		public String getContextualName(DelayQueueSendContext context) {
			return context.getQueue() + " send";
		}

		@Override
		public KeyValues getLowCardinalityKeyValues(DelayQueueSendContext context) {
			return KeyValues.of("delayqueue.queue", context.getQueue());
		}

		@Override
		public KeyValues getHighCardinalityKeyValues(DelayQueueSendContext context) {
			return KeyValues.of("delayqueue.message.id", context.getMessageId());
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof DelayQueueSendContext;
		}

	};

	private static final ObservationConvention<DelayQueueProcessContext> PROCESS_CONVENTION = new ReceiveConvention(
			PROCESS, "process", true);

	private static final ObservationConvention<DelayQueueProcessContext> DEAD_LETTER_CONVENTION = new ReceiveConvention(
			DEAD_LETTER, "dead-letter", false);

	private DelayQueueObservations() {
	}

	/**
	 * Creates (not started) the observation of a send; its start writes the trace context
	 * into {@code headers}.
	 * @param registry the registry
	 * @param queue the queue
	 * @param messageId the message id
	 * @param headers the message's headers, mutable
	 * @return the observation, {@link Observation#NOOP} for a no-op registry
	 */
	public static Observation send(ObservationRegistry registry, String queue, String messageId,
			Map<String, String> headers) {
		return Observation.createNotStarted(SEND_CONVENTION, () -> new DelayQueueSendContext(queue, messageId, headers),
				registry);
	}

	/**
	 * Creates (not started) the observation of one attempt.
	 * @param registry the registry
	 * @param queue the queue
	 * @param group the group
	 * @param messageId the message id
	 * @param attempt the attempt
	 * @param headers the message's headers
	 * @return the observation, {@link Observation#NOOP} for a no-op registry
	 */
	public static Observation process(ObservationRegistry registry, String queue, String group, String messageId,
			int attempt, Map<String, String> headers) {
		return Observation.createNotStarted(PROCESS_CONVENTION,
				() -> new DelayQueueProcessContext(queue, group, messageId, attempt, headers), registry);
	}

	/**
	 * Creates the observation of a dead-letter handler running on a dead letter: a child
	 * of the trace the message's send started (its headers carry it), so the handler's
	 * lines and the library's line about its failure carry that trace.
	 * @param registry the registry
	 * @param queue the queue
	 * @param group the consumer group whose dead letter it is
	 * @param messageId the message id
	 * @param attempts the attempts the message had
	 * @param headers the message's headers
	 * @return the observation, not started
	 */
	public static Observation deadLetter(ObservationRegistry registry, String queue, String group, String messageId,
			int attempts, Map<String, String> headers) {
		return Observation.createNotStarted(DEAD_LETTER_CONVENTION,
				() -> new DelayQueueProcessContext(queue, group, messageId, attempts, headers), registry);
	}

	/**
	 * The convention of a handler running on a message: an attempt's processing, or a
	 * dead-letter handler.
	 */
	private static final class ReceiveConvention implements ObservationConvention<DelayQueueProcessContext> {

		private final String name;

		private final String suffix;

		private final boolean attempt;

		ReceiveConvention(String name, String suffix, boolean attempt) {
			this.name = name;
			this.suffix = suffix;
			this.attempt = attempt;
		}

		@Override
		public String getName() {
			return this.name;
		}

		@Override
		public String getContextualName(DelayQueueProcessContext context) {
			return context.getQueue() + " " + this.suffix;
		}

		@Override
		public KeyValues getLowCardinalityKeyValues(DelayQueueProcessContext context) {
			KeyValues keys = KeyValues.of("delayqueue.queue", context.getQueue(), "delayqueue.group",
					context.getGroup());
			if (this.attempt) {
				keys = keys.and("delayqueue.attempt", String.valueOf(context.getAttempt()));
			}
			return keys.and("delayqueue.outcome", (context.getError() != null) ? "failure" : "success");
		}

		@Override
		public KeyValues getHighCardinalityKeyValues(DelayQueueProcessContext context) {
			return KeyValues.of("delayqueue.message.id", context.getMessageId());
		}

		@Override
		public boolean supportsContext(Observation.Context context) {
			return context instanceof DelayQueueProcessContext;
		}

	}

}
