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

package io.github.delayqueue.core.config;

import io.github.delayqueue.core.listener.ListenerSetters;
import io.github.delayqueue.core.listener.ListenerSettings;

/**
 * Sets settings of an endpoint's container over the factory's defaults, e.g. from
 * per-queue configuration. The endpoint's own settings (the {@code @DelayListener}
 * attributes) are applied after, so what the listener declares wins.
 */
@FunctionalInterface
public interface EndpointCustomizer {

	/**
	 * Customizes the settings of an endpoint's container.
	 * @param endpoint the endpoint (its queue, group, id)
	 * @param settings the settings, holding the factory's defaults and earlier
	 * customizers'
	 */
	void customize(DelayListenerEndpoint endpoint, ListenerSetters<?> settings);

}
