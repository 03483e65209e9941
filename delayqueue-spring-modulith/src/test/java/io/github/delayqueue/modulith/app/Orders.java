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

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Places an order and publishes its event in one transaction.
 */
@Service
public class Orders {

	private final JdbcTemplate jdbc;

	private final ApplicationEventPublisher events;

	Orders(JdbcTemplate jdbc, ApplicationEventPublisher events) {
		this.jdbc = jdbc;
		this.events = events;
	}

	/**
	 * Places an order whose payment is checked later ({@link PaymentDue}, with a message
	 * id).
	 * @param id the order id
	 */
	@Transactional
	public void placeWithPaymentCheck(String id) {
		this.jdbc.update("INSERT INTO orders (id) VALUES (?)", id);
		this.events.publishEvent(new PaymentDue(id));
	}

	/**
	 * Places an order.
	 * @param id the order id
	 * @param fail whether the transaction fails after the event was published
	 */
	@Transactional
	public void place(String id, boolean fail) {
		this.jdbc.update("INSERT INTO orders (id) VALUES (?)", id);
		this.events.publishEvent(new OrderPlaced(id));
		if (fail) {
			throw new IllegalStateException("Order " + id + " failed after its event was published");
		}
	}

}
