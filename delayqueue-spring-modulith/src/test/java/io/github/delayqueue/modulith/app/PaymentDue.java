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
 * A payment window opened with an order: checked 15 s later (queue
 * {@code payment-checks}), under a message id derived from the order, so that a second
 * externalization of the event while the first message is scheduled is deduplicated.
 *
 * @param orderId the order
 */
@Externalized("payment-checks::#{orderId()}")
public record PaymentDue(String orderId) implements DelayedEvent {

	/** How long after the order its payment is checked. */
	public static final Duration CHECK_AFTER = Duration.ofSeconds(15);

	@Override
	public Duration delay() {
		return CHECK_AFTER;
	}

	@Override
	public String messageId() {
		return "payment-" + this.orderId;
	}

}
