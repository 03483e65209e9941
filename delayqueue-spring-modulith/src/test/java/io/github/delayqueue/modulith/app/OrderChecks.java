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

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.core.listener.DelayMessageContext;

import org.springframework.stereotype.Component;

/**
 * Receives the externalized {@link OrderPlaced} and {@link PaymentDue} events from
 * delayqueue.
 */
@Component
public class OrderChecks {

	/** What every instance in this JVM received. */
	public static final List<Check> RECEIVED = new CopyOnWriteArrayList<>();

	/** The payment checks every instance in this JVM received. */
	public static final List<Check> PAYMENTS = new CopyOnWriteArrayList<>();

	@DelayListener(queue = "payment-checks", group = "checks")
	void checkPayment(PaymentDue event, DelayMessageContext context) {
		PAYMENTS.add(
				new Check(event.orderId(), context.id(), context.dueTime().toEpochMilli(), System.currentTimeMillis()));
	}

	@DelayListener(queue = "order-checks", group = "checks")
	void check(OrderPlaced event, DelayMessageContext context) {
		RECEIVED.add(
				new Check(event.orderId(), context.id(), context.dueTime().toEpochMilli(), System.currentTimeMillis()));
	}

	/**
	 * One received event.
	 *
	 * @param orderId the order
	 * @param messageId the message id
	 * @param dueAt the message's due time, epoch milliseconds
	 * @param receivedAt when, epoch milliseconds
	 */
	public record Check(String orderId, String messageId, long dueAt, long receivedAt) {
	}

}
