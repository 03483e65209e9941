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

package io.github.delayqueue.core;

import java.time.Duration;

import io.github.delayqueue.core.internal.outbox.OutboxSettings;

/**
 * How an engine's transactional outbox works, through
 * {@link DelayQueueEngineBuilder#outbox(javax.sql.DataSource, java.util.function.Consumer)}:
 * <pre class="code">
 * DelayQueueEngine engine = DelayQueueEngine.builder(connectionFactory)
 * 	.outbox(dataSource, (outbox) -> outbox.table("app.outbox").relayWorkers(4).sendThroughOutbox(true))
 * 	.build();
 * </pre> See {@link DelayQueueOutbox} and {@code docs/outbox.md}.
 */
public final class OutboxDeclaration {

	private final OutboxSettings settings;

	OutboxDeclaration(OutboxSettings settings) {
		this.settings = settings;
	}

	/**
	 * The outbox table (default {@value DelayQueueOutbox#DEFAULT_TABLE}).
	 * @param table letters, digits and '_', optionally {@code schema.table}
	 * @return this declaration
	 */
	public OutboxDeclaration table(String table) {
		this.settings.setTable(DelayQueueOutbox.checkTable(table));
		return this;
	}

	/**
	 * Whether the engine creates a missing outbox table (default off: migrations do).
	 * @param initialize whether to create it
	 * @return this declaration
	 */
	public OutboxDeclaration initializeSchema(boolean initialize) {
		this.settings.setInitializeSchema(initialize);
		return this;
	}

	/**
	 * How long the relay waits between two looks at an empty outbox (default 500 ms).
	 * @param interval at least 1 ms
	 * @return this declaration
	 */
	public OutboxDeclaration pollInterval(Duration interval) {
		this.settings.setPollInterval(interval);
		return this;
	}

	/**
	 * How many relay workers move the outbox's rows on this instance (default 2), each
	 * the rows of its share of the message ids (see {@code docs/outbox.md}).
	 * @param workers from 1 to 16
	 * @return this declaration
	 */
	public OutboxDeclaration relayWorkers(int workers) {
		this.settings.setRelayWorkers(workers);
		return this;
	}

	/**
	 * The most rows the relay moves per database transaction (default 500).
	 * @param size from 1 to 10,000
	 * @return this declaration
	 */
	public OutboxDeclaration batchSize(int size) {
		this.settings.setBatchSize(size);
		return this;
	}

	/**
	 * Makes every send inside a transaction of the outbox's data source write to the
	 * outbox, as {@link DelayQueueOperations#sendWithOutbox(DelayMessage)} does (default
	 * off).
	 * @param throughOutbox whether sends in a transaction go through the outbox
	 * @return this declaration
	 */
	public OutboxDeclaration sendThroughOutbox(boolean throughOutbox) {
		this.settings.setSendThroughOutbox(throughOutbox);
		return this;
	}

}
