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

import java.util.List;
import java.util.Map;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/**
 * Creates the observations an engine records (see {@link DelayQueueObservation}): in its
 * registry, with the conventions given to the engine, or the default ones.
 * <p>
 * The default conventions name each kind apart ({@code delayqueue.send},
 * {@code delayqueue.create}, {@code delayqueue.process}, {@code delayqueue.dead-letter});
 * a convention given to the engine applies to every observation of its context type, and
 * names them as it chooses.
 */
public final class DelayQueueObservations {

	/** The name of the send observation. */
	public static final String SEND = DelayQueueObservation.SEND.getName();

	/** The name of the processing observation. */
	public static final String PROCESS = DelayQueueObservation.PROCESS.getName();

	/**
	 * The name of the observation of a dead-letter handler ({@code @DeadLetterListener})
	 * running on a dead letter.
	 */
	public static final String DEAD_LETTER = DelayQueueObservation.DEAD_LETTER.getName();

	/** Records nothing. */
	public static final DelayQueueObservations NOOP = new DelayQueueObservations(ObservationRegistry.NOOP, null, null,
			true);

	private final ObservationRegistry registry;

	private final DelayQueueSendObservationConvention sendConvention;

	private final DelayQueueProcessObservationConvention processConvention;

	private final DelayQueueSendObservationConvention sendDefault;

	private final DelayQueueSendObservationConvention createDefault;

	private final DelayQueueProcessObservationConvention processDefault;

	private final DelayQueueProcessObservationConvention deadLetterDefault;

	private final DelayQueueProcessObservationConvention batchDefault;

	/**
	 * Creates the observations of an engine.
	 * @param registry the registry
	 * @param sendConvention the convention of sends, or {@code null} for the default
	 * @param processConvention the convention of handlers, or {@code null} for the
	 * default
	 * @param legacyKeyValues whether the default conventions add the key names of earlier
	 * releases
	 */
	public DelayQueueObservations(ObservationRegistry registry, DelayQueueSendObservationConvention sendConvention,
			DelayQueueProcessObservationConvention processConvention, boolean legacyKeyValues) {
		this.registry = registry;
		this.sendConvention = sendConvention;
		this.processConvention = processConvention;
		this.sendDefault = new DefaultDelayQueueSendObservationConvention(legacyKeyValues);
		this.createDefault = new DefaultDelayQueueSendObservationConvention(legacyKeyValues) {

			@Override
			public String getName() {
				return DelayQueueObservation.CREATE.getName();
			}

		};
		this.processDefault = new DefaultDelayQueueProcessObservationConvention(legacyKeyValues);
		this.batchDefault = new DefaultDelayQueueProcessObservationConvention(legacyKeyValues) {

			@Override
			public String getName() {
				return DelayQueueObservation.PROCESS_BATCH.getName();
			}

		};
		this.deadLetterDefault = new DefaultDelayQueueProcessObservationConvention(legacyKeyValues) {

			@Override
			public String getName() {
				return DelayQueueObservation.DEAD_LETTER.getName();
			}

		};
	}

	/**
	 * @return the registry
	 */
	public ObservationRegistry registry() {
		return this.registry;
	}

	/**
	 * @return whether nothing is recorded (a no-op registry)
	 */
	public boolean isNoop() {
		return this.registry.isNoop();
	}

	/**
	 * Creates (not started) the observation of one message's send; its start writes the
	 * trace context into {@code headers}.
	 * @param queue the queue
	 * @param messageId the message id
	 * @param headers the message's headers, mutable
	 * @return the observation, {@link Observation#NOOP} for a no-op registry
	 */
	public Observation send(String queue, String messageId, Map<String, String> headers) {
		return Observation.createNotStarted(this.sendConvention, this.sendDefault,
				() -> new DelayQueueSendContext(queue, messageId, headers), this.registry);
	}

	/**
	 * Creates (not started) the observation of a batch send.
	 * @param queue the queue of every message, or {@code null} when they go to several
	 * @param batchSize how many messages
	 * @return the observation
	 */
	public Observation batch(String queue, int batchSize) {
		return Observation.createNotStarted(this.sendConvention, this.sendDefault,
				() -> DelayQueueSendContext.batch(queue, batchSize), this.registry);
	}

	/**
	 * Creates (not started) the observation of the creation of one message of a batch, a
	 * child of the batch's; its start writes the trace context into {@code headers}.
	 * @param batch the batch's observation
	 * @param queue the queue
	 * @param messageId the message id
	 * @param headers the message's headers, mutable
	 * @return the observation
	 */
	public Observation create(Observation batch, String queue, String messageId, Map<String, String> headers) {
		return Observation
			.createNotStarted(this.sendConvention, this.createDefault,
					() -> DelayQueueSendContext.create(queue, messageId, headers), this.registry)
			.parentObservation(batch);
	}

	/**
	 * Creates (not started) the observation of one attempt.
	 * @param queue the queue
	 * @param group the group
	 * @param messageId the message id
	 * @param attempt the attempt
	 * @param headers the message's headers
	 * @return the observation, {@link Observation#NOOP} for a no-op registry
	 */
	public Observation process(String queue, String group, String messageId, int attempt, Map<String, String> headers) {
		return Observation.createNotStarted(this.processConvention, this.processDefault,
				() -> new DelayQueueProcessContext(queue, group, messageId, attempt, headers, false), this.registry);
	}

	/**
	 * Creates (not started) the observation of a batch listener's handler running on a
	 * batch: linked to each message's creation context (see
	 * {@link DelayQueueProcessContext#batch}).
	 * @param queue the queue
	 * @param group the group
	 * @param headers each message's headers, in the batch's order
	 * @return the observation, {@link Observation#NOOP} for a no-op registry
	 */
	public Observation processBatch(String queue, String group, List<Map<String, String>> headers) {
		return Observation.createNotStarted(this.processConvention, this.batchDefault,
				() -> DelayQueueProcessContext.batch(queue, group, headers), this.registry);
	}

	/**
	 * Creates (not started) the observation of a dead-letter handler running on a dead
	 * letter: a child of the trace the message's send started (its headers carry it), so
	 * the handler's lines and the library's line about its failure carry that trace.
	 * @param queue the queue
	 * @param group the consumer group whose dead letter it is
	 * @param messageId the message id
	 * @param attempts the attempts the message had
	 * @param headers the message's headers
	 * @return the observation
	 */
	public Observation deadLetter(String queue, String group, String messageId, int attempts,
			Map<String, String> headers) {
		return Observation.createNotStarted(this.processConvention, this.deadLetterDefault,
				() -> new DelayQueueProcessContext(queue, group, messageId, attempts, headers, true), this.registry);
	}

}
