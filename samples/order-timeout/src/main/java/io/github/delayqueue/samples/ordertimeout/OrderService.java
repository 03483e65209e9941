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
import java.time.Duration;
import java.time.Instant;

import io.github.delayqueue.core.DelayMessage;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.SendResult;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Creates orders: the order row and its payment timeout belong to one transaction. With
 * {@code delayqueue.outbox.enabled}, the timeout is a row of the outbox table written in
 * that transaction: it exists exactly when the order does (never for an order that rolled
 * back), and the relay moves it to Redis after the commit. A crash between the commit and
 * the send cannot leave an order that never times out.
 */
@Service
class OrderService {

	private static final Log logger = LogFactory.getLog(OrderService.class);

	private final Orders orders;

	private final DelayQueueTemplate delayQueue;

	private final Duration paymentTimeout;

	OrderService(Orders orders, DelayQueueTemplate delayQueue,
			@Value("${sample.payment-timeout:30s}") Duration paymentTimeout) {
		this.orders = orders;
		this.delayQueue = delayQueue;
		this.paymentTimeout = paymentTimeout;
	}

	/**
	 * Creates an order and its timeout, in one transaction.
	 * @param item the item
	 * @param amount the amount
	 * @return the order, and what the send of its timeout did (written to the outbox:
	 * {@code DEFERRED})
	 */
	@Transactional
	public Created create(String item, BigDecimal amount) {
		Order order = this.orders.create(item, amount, Instant.now().plus(this.paymentTimeout));
		logger.info("Order " + order.id() + " created; cancelled unless paid by " + order.payBy());
		SendResult timeout = this.delayQueue.sendWithOutbox(DelayMessage.builder(new OrderTimeout(order.id()))
			.queue(OrderTimeout.QUEUE)
			.id(OrderTimeout.messageId(order.id()))
			.deliverAt(order.payBy())
			.build());
		return new Created(order, timeout);
	}

	record Created(Order order, SendResult timeout) {
	}

}
