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

package io.github.delayqueue.samples.ordertimeout;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * An order of the sample shop.
 *
 * @param id the order id
 * @param item what was ordered
 * @param amount the price
 * @param status where the order stands
 * @param createdAt when it was created
 * @param payBy when it is cancelled unless paid
 * @param closedAt when it was paid or cancelled, or {@code null}
 */
public record Order(String id, String item, BigDecimal amount, Status status, Instant createdAt, Instant payBy,
		Instant closedAt) {

	Order withStatus(Status status, Instant at) {
		return new Order(this.id, this.item, this.amount, status, this.createdAt, this.payBy, at);
	}

	/**
	 * Where an order stands. Only an unpaid order can be paid or cancelled.
	 */
	public enum Status {

		/** Created, waiting for payment. */
		UNPAID,
		/** Paid in time. */
		PAID,
		/** Not paid in time: cancelled by the timeout. */
		CANCELLED

	}

}
