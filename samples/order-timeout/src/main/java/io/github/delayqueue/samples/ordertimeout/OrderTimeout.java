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

/**
 * The delayed message: "this order's payment time is up".
 *
 * @param orderId the order
 */
public record OrderTimeout(String orderId) {

	static final String QUEUE = "order-timeout";

	/**
	 * The message id of an order's timeout: known from the order id, so that paying can
	 * cancel it and a repeated schedule is deduplicated.
	 * @param orderId the order id
	 * @return the message id
	 */
	static String messageId(String orderId) {
		return "order-" + orderId;
	}

}
