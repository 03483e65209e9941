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

package io.github.delayqueue.core.internal.outbox;

import java.time.Duration;
import java.util.Objects;

import javax.sql.DataSource;

/**
 * An engine's outbox settings, with their defaults, checked as they are set (the table
 * name by its caller): part of the engine's settings, what its outbox and relay are built
 * from.
 */
public final class OutboxSettings {

	/** The outbox table unless set. */
	public static final String DEFAULT_TABLE = "delayqueue_outbox";

	private DataSource dataSource;

	private String table = DEFAULT_TABLE;

	private boolean initializeSchema;

	private Duration pollInterval = Duration.ofMillis(500);

	private int batchSize = 500;

	private int relayWorkers = 2;

	private boolean sendThroughOutbox;

	public void setDataSource(DataSource dataSource) {
		this.dataSource = Objects.requireNonNull(dataSource, "Outbox data source must not be null");
	}

	/**
	 * Sets the outbox table, checked by the caller.
	 * @param table the table
	 */
	public void setTable(String table) {
		this.table = table;
	}

	public void setInitializeSchema(boolean initialize) {
		this.initializeSchema = initialize;
	}

	public void setPollInterval(Duration interval) {
		if (interval == null || interval.toMillis() < 1) {
			throw new IllegalArgumentException("Outbox poll interval must be at least 1 ms, but was " + interval);
		}
		this.pollInterval = interval;
	}

	public void setRelayWorkers(int workers) {
		if (workers < 1 || workers > 16) {
			throw new IllegalArgumentException("Outbox relay workers must be between 1 and 16, but was " + workers);
		}
		this.relayWorkers = workers;
	}

	public void setBatchSize(int size) {
		if (size < 1 || size > 10_000) {
			throw new IllegalArgumentException("Outbox batch size must be between 1 and 10000, but was " + size);
		}
		this.batchSize = size;
	}

	public void setSendThroughOutbox(boolean throughOutbox) {
		this.sendThroughOutbox = throughOutbox;
	}

	/**
	 * Returns a copy, unchanged by later calls on these settings.
	 * @return the copy
	 */
	public OutboxSettings copy() {
		OutboxSettings copy = new OutboxSettings();
		copy.dataSource = this.dataSource;
		copy.table = this.table;
		copy.initializeSchema = this.initializeSchema;
		copy.pollInterval = this.pollInterval;
		copy.batchSize = this.batchSize;
		copy.relayWorkers = this.relayWorkers;
		copy.sendThroughOutbox = this.sendThroughOutbox;
		return copy;
	}

	/** The outbox's data source, or {@code null} for no outbox. */
	public DataSource dataSource() {
		return this.dataSource;
	}

	public String table() {
		return this.table;
	}

	public boolean initializeSchema() {
		return this.initializeSchema;
	}

	public Duration pollInterval() {
		return this.pollInterval;
	}

	public int batchSize() {
		return this.batchSize;
	}

	public int relayWorkers() {
		return this.relayWorkers;
	}

	public boolean sendThroughOutbox() {
		return this.sendThroughOutbox;
	}

}
