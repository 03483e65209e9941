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
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The orders, in the application's database (an embedded H2 here; {@code schema.sql}).
 */
@Repository
public class Orders {

	private final JdbcTemplate jdbc;

	Orders(JdbcTemplate jdbc) {
		this.jdbc = jdbc;
	}

	Order create(String item, BigDecimal amount, Instant payBy) {
		String id = UUID.randomUUID().toString().substring(0, 8);
		Order order = new Order(id, item, amount, Order.Status.UNPAID, Instant.now(), payBy, null);
		this.jdbc.update("INSERT INTO orders (id, item, amount, status, created_at, pay_by) VALUES (?, ?, ?, ?, ?, ?)",
				order.id(), order.item(), order.amount(), order.status().name(), Timestamp.from(order.createdAt()),
				Timestamp.from(order.payBy()));
		return order;
	}

	Optional<Order> find(String id) {
		return this.jdbc.query("SELECT * FROM orders WHERE id = ?", Orders::order, id).stream().findFirst();
	}

	/**
	 * Moves an unpaid order to a new status; does nothing to an order that is already
	 * paid or cancelled.
	 * @param id the order id
	 * @param status the new status
	 * @return the order after the call, or empty when there is none
	 */
	Optional<Order> closeIfUnpaid(String id, Order.Status status) {
		this.jdbc.update("UPDATE orders SET status = ?, closed_at = ? WHERE id = ? AND status = 'UNPAID'",
				status.name(), Timestamp.from(Instant.now()), id);
		return find(id);
	}

	/**
	 * Counts the orders still unpaid.
	 * @return how many
	 */
	long countUnpaid() {
		Long count = this.jdbc.queryForObject("SELECT COUNT(*) FROM orders WHERE status = 'UNPAID'", Long.class);
		return (count != null) ? count : 0;
	}

	private static Order order(ResultSet row, int number) throws SQLException {
		Timestamp closedAt = row.getTimestamp("closed_at");
		return new Order(row.getString("id"), row.getString("item"), row.getBigDecimal("amount"),
				Order.Status.valueOf(row.getString("status")), row.getTimestamp("created_at").toInstant(),
				row.getTimestamp("pay_by").toInstant(), (closedAt != null) ? closedAt.toInstant() : null);
	}

}
