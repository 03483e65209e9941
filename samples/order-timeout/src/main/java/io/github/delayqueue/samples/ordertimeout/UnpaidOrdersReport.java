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
import io.github.delayqueue.core.annotation.Recurring;
import io.github.delayqueue.core.listener.DelayMessageContext;

import org.springframework.stereotype.Component;

/**
 * A recurring message: every minute (sample.report-every), however many instances of the
 * application run, one of them logs how many orders are still unpaid. The schedule is
 * declared beside its listener and registered in Redis at start-up; the dashboard's
 * Recurring tab of queue order-reports shows it.
 */
@Component
class UnpaidOrdersReport {

	private static final Log logger = LogFactory.getLog(UnpaidOrdersReport.class);

	static final String QUEUE = "order-reports";

	private final Orders orders;

	UnpaidOrdersReport(Orders orders) {
		this.orders = orders;
	}

	@DelayListener(queue = QUEUE)
	@Recurring(name = "unpaid-orders", every = "${sample.report-every:1m}", payload = "unpaid")
	void report(String what, DelayMessageContext context) {
		logger.info(
				this.orders.countUnpaid() + " orders " + what + " at " + context.dueTime() + " (" + context.id() + ")");
	}

}
