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
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import io.github.delayqueue.core.DelayQueueTemplate;
import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Digits;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.MethodArgumentNotValidException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /orders} creates an order and schedules its timeout; {@code POST
 * /orders/{id}/pay} pays it and cancels the timeout; {@code GET /orders/{id}} shows it. A
 * request that is not a valid order is answered 400, naming each invalid field, before
 * anything reaches the database or Redis.
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
	ResponseEntity<Order> create(@Valid @RequestBody(required = false) NewOrder request) {
		NewOrder order = (request != null) ? request : new NewOrder("coffee", new BigDecimal("3.50"));
		// the order and its timeout committed together (the outbox's relay sends it)
		OrderService.Created created = this.orderService.create(order.item(), order.amount());
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
		// best effort: if the timeout is already being delivered (or still in the outbox,
		// an instant after the order was created), the listener finds the order paid and
		// leaves it alone
		this.delayQueue.cancel(OrderTimeout.QUEUE, OrderTimeout.messageId(id));
		return ResponseEntity.ok(order);
	}

	@GetMapping("/{id}")
	ResponseEntity<Order> get(@PathVariable String id) {
		return ResponseEntity.of(this.orders.find(id));
	}

	/**
	 * 400 with each invalid field: {@code {"error": "...", "fields": {"item": "..."}}}.
	 */
	@ExceptionHandler(MethodArgumentNotValidException.class)
	ResponseEntity<Map<String, Object>> invalidOrder(MethodArgumentNotValidException ex) {
		Map<String, String> fields = new TreeMap<>();
		ex.getBindingResult()
			.getFieldErrors()
			.forEach((error) -> fields.merge(error.getField(), String.valueOf(error.getDefaultMessage()),
					(a, b) -> a + "; " + b));
		String error = fields.entrySet()
			.stream()
			.map((field) -> field.getKey() + " " + field.getValue())
			.collect(Collectors.joining(", ", "Invalid order: ", ""));
		return ResponseEntity.badRequest().body(Map.of("error", error, "fields", fields));
	}

	/** 400 for a body that is not an order's JSON ({@code "amount": "lots"}). */
	@ExceptionHandler(HttpMessageNotReadableException.class)
	ResponseEntity<Map<String, Object>> unreadableOrder(HttpMessageNotReadableException ex) {
		return ResponseEntity.badRequest()
			.body(Map.of("error", "Unreadable order: send JSON such as {\"item\": \"coffee\", \"amount\": 3.50}"));
	}

	/**
	 * An order to create: the item and its amount, as the orders table holds them.
	 *
	 * @param item what is ordered, 1 to 100 characters
	 * @param amount its price, at least 0.01, two decimals at most
	 */
	record NewOrder(@NotBlank @Size(max = 100) String item,
			@NotNull @DecimalMin("0.01") @Digits(integer = 8, fraction = 2) BigDecimal amount) {
	}

}
