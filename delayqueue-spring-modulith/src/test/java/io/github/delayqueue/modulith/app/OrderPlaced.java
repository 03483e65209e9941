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

package io.github.delayqueue.modulith.app;

import java.time.Duration;

import io.github.delayqueue.modulith.DelayedEvent;

import org.springframework.modulith.events.Externalized;

/**
 * An order was placed: checked a second later (its queue {@code order-checks}, its key
 * the order id).
 *
 * @param orderId the order
 */
@Externalized("order-checks::#{orderId()}")
public record OrderPlaced(String orderId) implements DelayedEvent {

	/** How long after the order its check runs. */
	public static final Duration CHECK_AFTER = Duration.ofSeconds(1);

	@Override
	public Duration delay() {
		return CHECK_AFTER;
	}

}
