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

package io.github.delayqueue.autoconfigure;

import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

import io.github.delayqueue.core.config.DelayListenerEndpoint;
import io.github.delayqueue.core.config.EndpointCustomizer;

/**
 * Applies {@code delayqueue.queues.<name>.*} to the endpoints of that queue, where the
 * {@code @DelayListener} annotation left a setting unset.
 */
class QueuePropertiesEndpointCustomizer implements EndpointCustomizer {

	private final Map<String, DelayQueueProperties.Queue> queues;

	QueuePropertiesEndpointCustomizer(Map<String, DelayQueueProperties.Queue> queues) {
		this.queues = queues;
	}

	@Override
	public void customize(DelayListenerEndpoint endpoint) {
		DelayQueueProperties.Queue queue = this.queues.get(endpoint.getQueue());
		if (queue == null) {
			return;
		}
		fill(endpoint::getConcurrency, queue.getConcurrency(), endpoint::setConcurrency);
		fill(endpoint::getVisibilityTimeout, queue.getVisibilityTimeout(), endpoint::setVisibilityTimeout);
		fill(endpoint::getMaxAttempts, queue.getMaxAttempts(), endpoint::setMaxAttempts);
		fill(endpoint::getAutoStartup, queue.getAutoStartup(), endpoint::setAutoStartup);
		fill(endpoint::getInitialBackoff, queue.getRetry().getInitialBackoff(), endpoint::setInitialBackoff);
		fill(endpoint::getBackoffMultiplier, queue.getRetry().getMultiplier(), endpoint::setBackoffMultiplier);
		fill(endpoint::getMaxBackoff, queue.getRetry().getMaxBackoff(), endpoint::setMaxBackoff);
		fill(endpoint::getJitter, queue.getRetry().getJitter(), endpoint::setJitter);
		fill(endpoint::getDeadLetterRetention, queue.getDeadLetter().getRetention(), endpoint::setDeadLetterRetention);
	}

	private static <T> void fill(Supplier<T> current, T configured, Consumer<T> setter) {
		if (current.get() == null && configured != null) {
			setter.accept(configured);
		}
	}

}
