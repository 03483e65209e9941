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

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The observations delayqueue records, named and keyed as the OpenTelemetry messaging
 * semantic conventions give them: spans {@code <operation> <queue>} with the
 * {@code messaging.*} attributes. The observation names ({@code delayqueue.send},
 * {@code delayqueue.process}, ...) name the timers Micrometer derives from them.
 */
public enum DelayQueueObservation implements ObservationDocumentation {

	/**
	 * A send: one message ({@code send}), or the messages of one {@code sendAll}
	 * ({@code send} with {@code messaging.batch.message_count}), from the call to Redis's
	 * answer.
	 */
	SEND("delayqueue.send", DefaultDelayQueueSendObservationConvention.class, Keys.SEND,
			new KeyName[] { MessagingKeys.MESSAGE_ID, MessagingKeys.BATCH_MESSAGE_COUNT }),

	/**
	 * The creation of one message of a {@code sendAll} batch: its own context, carried in
	 * its headers, a child of the batch's send.
	 */
	CREATE("delayqueue.create", DefaultDelayQueueSendObservationConvention.class, Keys.SEND,
			new KeyName[] { MessagingKeys.MESSAGE_ID }),

	/** One attempt: the handler's run on a message, a child of its send (or create). */
	PROCESS("delayqueue.process", DefaultDelayQueueProcessObservationConvention.class, Keys.PROCESS,
			new KeyName[] { MessagingKeys.MESSAGE_ID }),

	/**
	 * A batch listener's handler running on a batch ({@code process} with
	 * {@code messaging.batch.message_count}): per the OpenTelemetry messaging
	 * conventions, not a child of any message's send, but linked to each message's
	 * creation context (the links are added by a tracing handler that reads
	 * {@link DelayQueueProcessContext#getLinkedHeaders()}, which the Spring Boot
	 * auto-configuration registers).
	 */
	PROCESS_BATCH("delayqueue.process.batch", DefaultDelayQueueProcessObservationConvention.class, Keys.DEAD_LETTER,
			new KeyName[] { MessagingKeys.BATCH_MESSAGE_COUNT }),

	/**
	 * A dead-letter handler ({@code @DeadLetterListener}) running on a dead letter: a
	 * child of the message's send.
	 */
	DEAD_LETTER("delayqueue.dead-letter", DefaultDelayQueueProcessObservationConvention.class, Keys.DEAD_LETTER,
			new KeyName[] { MessagingKeys.MESSAGE_ID });

	private final String name;

	private final Class<? extends ObservationConvention<? extends Observation.Context>> defaultConvention;

	private final KeyName[] lowCardinality;

	private final KeyName[] highCardinality;

	DelayQueueObservation(String name,
			Class<? extends ObservationConvention<? extends Observation.Context>> defaultConvention,
			KeyName[] lowCardinality, KeyName[] highCardinality) {
		this.name = name;
		this.defaultConvention = defaultConvention;
		this.lowCardinality = lowCardinality;
		this.highCardinality = highCardinality;
	}

	@Override
	public String getName() {
		return this.name;
	}

	@Override
	public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
		return this.defaultConvention;
	}

	@Override
	public KeyName[] getLowCardinalityKeyNames() {
		return this.lowCardinality.clone();
	}

	@Override
	public KeyName[] getHighCardinalityKeyNames() {
		return this.highCardinality.clone();
	}

	/** The low-cardinality keys of each kind. */
	private static final class Keys {

		static final KeyName[] SEND = { MessagingKeys.SYSTEM, MessagingKeys.DESTINATION_NAME,
				MessagingKeys.OPERATION_TYPE, MessagingKeys.OPERATION_NAME, MessagingKeys.ERROR_TYPE };

		static final KeyName[] PROCESS = { MessagingKeys.SYSTEM, MessagingKeys.DESTINATION_NAME,
				MessagingKeys.OPERATION_TYPE, MessagingKeys.OPERATION_NAME, MessagingKeys.CONSUMER_GROUP_NAME,
				MessagingKeys.ATTEMPT, MessagingKeys.ERROR_TYPE };

		static final KeyName[] DEAD_LETTER = { MessagingKeys.SYSTEM, MessagingKeys.DESTINATION_NAME,
				MessagingKeys.OPERATION_TYPE, MessagingKeys.OPERATION_NAME, MessagingKeys.CONSUMER_GROUP_NAME,
				MessagingKeys.ERROR_TYPE };

	}

	/** The OpenTelemetry messaging attributes, and delayqueue's own. */
	public enum MessagingKeys implements KeyName {

		/** {@code messaging.system}: always {@code delayqueue}. */
		SYSTEM("messaging.system"),

		/**
		 * {@code messaging.destination.name}: the queue ({@code several} for a batch to
		 * several queues).
		 */
		DESTINATION_NAME("messaging.destination.name"),

		/**
		 * {@code messaging.operation.type}: {@code send}, {@code create} or
		 * {@code process}.
		 */
		OPERATION_TYPE("messaging.operation.type"),

		/**
		 * {@code messaging.operation.name}: {@code send}, {@code create}, {@code process}
		 * or {@code dead_letter}.
		 */
		OPERATION_NAME("messaging.operation.name"),

		/** {@code messaging.consumer.group.name}: the consumer group. */
		CONSUMER_GROUP_NAME("messaging.consumer.group.name"),

		/** {@code messaging.message.id}: the message id (high cardinality). */
		MESSAGE_ID("messaging.message.id"),

		/** {@code messaging.batch.message_count}: the messages of a batch send. */
		BATCH_MESSAGE_COUNT("messaging.batch.message_count"),

		/**
		 * {@code error.type}: the class of the failure, only when the operation failed.
		 */
		ERROR_TYPE("error.type"),

		/** {@code messaging.delayqueue.attempt}: the attempt, from 1. */
		ATTEMPT("messaging.delayqueue.attempt");

		private final String value;

		MessagingKeys(String value) {
			this.value = value;
		}

		@Override
		public String asString() {
			return this.value;
		}

	}

	/**
	 * The key names of the releases before 0.2, kept by the default conventions beside
	 * the {@code messaging.*} ones while they are built with legacy key values (see
	 * {@code delayqueue.observation.legacy-key-values}); to be removed.
	 */
	public enum LegacyKeys implements KeyName {

		/** {@code delayqueue.queue}. */
		QUEUE("delayqueue.queue"),

		/** {@code delayqueue.group}. */
		GROUP("delayqueue.group"),

		/** {@code delayqueue.attempt}. */
		ATTEMPT("delayqueue.attempt"),

		/** {@code delayqueue.outcome}: {@code success} or {@code failure}. */
		OUTCOME("delayqueue.outcome"),

		/** {@code delayqueue.message.id} (high cardinality). */
		MESSAGE_ID("delayqueue.message.id");

		private final String value;

		LegacyKeys(String value) {
			this.value = value;
		}

		@Override
		public String asString() {
			return this.value;
		}

	}

}
