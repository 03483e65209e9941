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
import io.micrometer.common.KeyValues;

/**
 * The default handler convention: spans {@code process <queue>} (one attempt, or a batch
 * listener's batch, with {@code messaging.batch.message_count}) and
 * {@code dead_letter <queue>} (a dead-letter handler), with the OpenTelemetry messaging
 * attributes ({@code error.type} is {@code none} when the handler did not fail, so that
 * the timers keep one set of tags). Built with legacy key values, it adds the key names
 * of the releases before 0.2 ({@link LegacyKeys}) to the same observations.
 */
public class DefaultDelayQueueProcessObservationConvention implements DelayQueueProcessObservationConvention {

	/** The value of {@code messaging.system}. */
	public static final String SYSTEM = "delayqueue";

	/** The convention with legacy key values, as this release records by default. */
	public static final DefaultDelayQueueProcessObservationConvention INSTANCE = new DefaultDelayQueueProcessObservationConvention(
			true);

	private final boolean legacyKeyValues;

	/**
	 * Creates the convention.
	 * @param legacyKeyValues whether to add the key names of earlier releases
	 */
	public DefaultDelayQueueProcessObservationConvention(boolean legacyKeyValues) {
		this.legacyKeyValues = legacyKeyValues;
	}

	@Override
	public String getName() {
		return DelayQueueObservation.PROCESS.getName();
	}

	@Override
	public String getContextualName(DelayQueueProcessContext context) {
		return operationName(context) + " " + context.getQueue();
	}

	@Override
	public KeyValues getLowCardinalityKeyValues(DelayQueueProcessContext context) {
		KeyValues keys = KeyValues.of(MessagingKeys.SYSTEM.withValue(SYSTEM),
				MessagingKeys.DESTINATION_NAME.withValue(context.getQueue()),
				MessagingKeys.OPERATION_TYPE.withValue("process"),
				MessagingKeys.OPERATION_NAME.withValue(operationName(context)),
				MessagingKeys.CONSUMER_GROUP_NAME.withValue(context.getGroup()));
		if (!context.isDeadLetter() && !context.isBatch()) {
			keys = keys.and(MessagingKeys.ATTEMPT.withValue(String.valueOf(context.getAttempt())));
		}
		keys = keys.and(MessagingKeys.ERROR_TYPE.withValue(errorType(context)));
		if (this.legacyKeyValues) {
			keys = keys.and(LegacyKeys.QUEUE.withValue(context.getQueue()),
					LegacyKeys.GROUP.withValue(context.getGroup()),
					LegacyKeys.OUTCOME.withValue((context.getError() != null) ? "failure" : "success"));
			if (!context.isDeadLetter() && !context.isBatch()) {
				keys = keys.and(LegacyKeys.ATTEMPT.withValue(String.valueOf(context.getAttempt())));
			}
		}
		return keys;
	}

	@Override
	public KeyValues getHighCardinalityKeyValues(DelayQueueProcessContext context) {
		if (context.isBatch()) {
			return KeyValues.of(MessagingKeys.BATCH_MESSAGE_COUNT.withValue(String.valueOf(context.getBatchSize())));
		}
		KeyValues keys = KeyValues.of(MessagingKeys.MESSAGE_ID.withValue(context.getMessageId()));
		return this.legacyKeyValues ? keys.and(LegacyKeys.MESSAGE_ID.withValue(context.getMessageId())) : keys;
	}

	/**
	 * The {@code error.type} of an observation: the failure's class, or {@code none}.
	 * @param context the observation's context
	 * @return the value
	 */
	static String errorType(io.micrometer.observation.Observation.Context context) {
		return (context.getError() != null) ? context.getError().getClass().getName() : "none";
	}

	private static String operationName(DelayQueueProcessContext context) {
		return context.isDeadLetter() ? "dead_letter" : "process";
	}

}
