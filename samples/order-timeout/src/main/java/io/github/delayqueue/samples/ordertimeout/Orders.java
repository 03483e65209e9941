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
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.springframework.stereotype.Repository;

/**
 * The sample's order store: in memory, with atomic status changes, so that a payment and
 * a timeout racing for the same order cannot both win.
 */
@Repository
public class Orders {

	private final Map<String, Order> orders = new ConcurrentHashMap<>();

	Order create(String item, BigDecimal amount, Instant payBy) {
		String id = UUID.randomUUID().toString().substring(0, 8);
		Order order = new Order(id, item, amount, Order.Status.UNPAID, Instant.now(), payBy, null);
		this.orders.put(id, order);
		return order;
	}

	Optional<Order> find(String id) {
		return Optional.ofNullable(this.orders.get(id));
	}

	/**
	 * Moves an unpaid order to a new status; does nothing to an order that is already
	 * paid or cancelled.
	 * @param id the order id
	 * @param status the new status
	 * @return the order after the call, or empty when there is none
	 */
	Optional<Order> closeIfUnpaid(String id, Order.Status status) {
		return Optional.ofNullable(this.orders.computeIfPresent(id, (key,
				order) -> (order.status() == Order.Status.UNPAID) ? order.withStatus(status, Instant.now()) : order));
	}

}
