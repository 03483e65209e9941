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

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/**
 * The convention of the observations of handlers ({@link DelayQueueObservation#PROCESS},
 * {@link DelayQueueObservation#DEAD_LETTER}): implement it, or extend
 * {@link DefaultDelayQueueProcessObservationConvention}, and give it to
 * {@code DelayQueueEngineBuilder.processObservationConvention} (in Spring Boot: declare
 * it as a bean) to change their names or key values.
 */
public interface DelayQueueProcessObservationConvention extends ObservationConvention<DelayQueueProcessContext> {

	@Override
	default boolean supportsContext(Observation.Context context) {
		return context instanceof DelayQueueProcessContext;
	}

}
