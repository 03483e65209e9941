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

import io.github.delayqueue.core.observation.DelayQueueObservation.LegacyKeys;
import io.github.delayqueue.core.observation.DelayQueueObservation.MessagingKeys;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;

/**
 * The default send convention: spans {@code send <queue>} (a batch to several queues:
 * {@code send}) and {@code create <queue>}, with the OpenTelemetry messaging attributes.
 * Every observation carries the same keys: {@code error.type} is {@code none} when the
 * send did not fail, and a batch to several queues has the destination
 * {@value #SEVERAL_DESTINATIONS}, so that the timers keep one set of tags. Built with
 * legacy key values, it adds the key names of the releases before 0.2
 * ({@link LegacyKeys}) to the same observations.
 */
public class DefaultDelayQueueSendObservationConvention implements DelayQueueSendObservationConvention {

	/** The convention with legacy key values, as this release records by default. */
	public static final DefaultDelayQueueSendObservationConvention INSTANCE = new DefaultDelayQueueSendObservationConvention(
			true);

	/** The destination of a batch sent to several queues. */
	public static final String SEVERAL_DESTINATIONS = "several";

	private final boolean legacyKeyValues;

	/**
	 * Creates the convention.
	 * @param legacyKeyValues whether to add the key names of earlier releases
	 */
	public DefaultDelayQueueSendObservationConvention(boolean legacyKeyValues) {
		this.legacyKeyValues = legacyKeyValues;
	}

	@Override
	public String getName() {
		return DelayQueueObservation.SEND.getName();
	}

	@Override
	public String getContextualName(DelayQueueSendContext context) {
		String operation = operation(context);
		return (context.getQueue() != null) ? operation + " " + context.getQueue() : operation;
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(DelayQueueSendContext context) {
		String operation = operation(context);
		KeyValues keys = KeyValues.of(
				MessagingKeys.SYSTEM.withValue(DefaultDelayQueueProcessObservationConvention.SYSTEM),
				MessagingKeys.OPERATION_TYPE.withValue(operation), MessagingKeys.OPERATION_NAME.withValue(operation));
		// the same keys on every observation, so that the timers keep one set of tags (a
		// Prometheus registry drops a meter whose tag keys differ)
		keys = keys.and(
				MessagingKeys.DESTINATION_NAME
					.withValue((context.getQueue() != null) ? context.getQueue() : SEVERAL_DESTINATIONS),
				MessagingKeys.ERROR_TYPE.withValue(DefaultDelayQueueProcessObservationConvention.errorType(context)));
		if (this.legacyKeyValues) {
			keys = keys.and(LegacyKeys.QUEUE
				.withValue((context.getQueue() != null) ? context.getQueue() : SEVERAL_DESTINATIONS));
		}
		return keys;
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(DelayQueueSendContext context) {
		if (context.isBatch()) {
			return KeyValues.of(MessagingKeys.BATCH_MESSAGE_COUNT.withValue(String.valueOf(context.getBatchSize())));
		}
		KeyValue id = MessagingKeys.MESSAGE_ID.withValue(context.getMessageId());
		return this.legacyKeyValues ? KeyValues.of(id, LegacyKeys.MESSAGE_ID.withValue(context.getMessageId()))
				: KeyValues.of(id);
	}

	private static String operation(DelayQueueSendContext context) {
		return context.isCreate() ? "create" : "send";
	}

}
