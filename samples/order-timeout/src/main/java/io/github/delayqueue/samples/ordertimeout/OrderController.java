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
import java.net.URI;

import io.github.delayqueue.core.DelayQueueTemplate;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders} creates an order and schedules its timeout; {@code POST
 * /orders/{id}/pay} pays it and cancels the timeout; {@code GET /orders/{id}} shows it.
 */
@RestController
@RequestMapping("/orders")
class OrderController {

	private final Orders orders;

	private final OrderService orderService;

	private final DelayQueueTemplate delayQueue;

	OrderController(Orders orders, OrderService orderService, DelayQueueTemplate delayQueue) {
		this.orders = orders;
		this.orderService = orderService;
		this.delayQueue = delayQueue;
	}

	@PostMapping
	ResponseEntity<Order> create(@RequestBody(required = false) NewOrder request) {
		NewOrder order = (request != null) ? request : new NewOrder("coffee", new BigDecimal("3.50"));
		OrderService.Created created = this.orderService.create(order.item(), order.amount());
		// the order committed; if its timeout could not be sent after that, the request
		// fails (the failure is logged with the order's id)
		created.timeout().join();
		return ResponseEntity.created(URI.create("/orders/" + created.order().id())).body(created.order());
	}

	@PostMapping("/{id}/pay")
	ResponseEntity<Order> pay(@PathVariable String id) {
		Order order = this.orders.closeIfUnpaid(id, Order.Status.PAID).orElse(null);
		if (order == null) {
			return ResponseEntity.notFound().build();
		}
		if (order.status() != Order.Status.PAID) {
			return ResponseEntity.status(HttpStatus.CONFLICT).body(order);
		}
		// best effort: if the timeout is already being delivered, the listener finds the
		// order paid and leaves it alone
		this.delayQueue.cancel(OrderTimeout.QUEUE, OrderTimeout.messageId(id));
		return ResponseEntity.ok(order);
	}

	@GetMapping("/{id}")
	ResponseEntity<Order> get(@PathVariable String id) {
		return ResponseEntity.of(this.orders.find(id));
	}

	record NewOrder(String item, BigDecimal amount) {
	}

}
