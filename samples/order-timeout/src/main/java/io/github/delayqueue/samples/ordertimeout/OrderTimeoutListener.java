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

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.core.listener.DelayMessageContext;

import org.springframework.stereotype.Component;

/**
 * Cancels orders whose payment time is up. Idempotent: a redelivered timeout (delivery is
 * at-least-once) finds the order already cancelled and changes nothing; a timeout that
 * loses the race with a payment finds it paid and changes nothing.
 */
@Component
class OrderTimeoutListener {

	private static final Log logger = LogFactory.getLog(OrderTimeoutListener.class);

	private final Orders orders;

	OrderTimeoutListener(Orders orders) {
		this.orders = orders;
	}

	@DelayListener(queue = OrderTimeout.QUEUE)
	void onTimeout(OrderTimeout timeout, DelayMessageContext context) {
		this.orders.closeIfUnpaid(timeout.orderId(), Order.Status.CANCELLED).ifPresentOrElse((order) -> {
			if (order.status() == Order.Status.CANCELLED) {
				logger.info("Order " + order.id() + " was not paid by " + order.payBy() + ": cancelled ("
						+ (context.dueTime().until(java.time.Instant.now(), java.time.temporal.ChronoUnit.MILLIS))
						+ " ms after its due time, attempt " + context.attempt() + ")");
			}
			else {
				logger.info("Order " + order.id() + " is " + order.status() + "; timeout ignored");
			}
		}, () -> logger.warn("Timeout for unknown order " + timeout.orderId() + "; ignored"));
	}

}
