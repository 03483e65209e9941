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
import java.util.Objects;

/**
 * What a durable send waits for after Redis applied it: that {@code replicas} replicas
 * received it ({@code WAIT}), and with {@code localAof} also that the master (and those
 * replicas) wrote it to their append-only files ({@code WAITAOF}, Redis 7.2+). Without a
 * durable send, a failover can lose sends the replica had not received yet (replication
 * is asynchronous); with one, {@link UnconfirmedSendException} reports the sends that
 * could not be confirmed in time.
 *
 * @param replicas how many replicas must confirm, at least 0
 * @param localAof whether the master's AOF fsync must be confirmed too ({@code WAITAOF})
 * @param timeout how long to wait for the confirmations
 */
public record Durability(int replicas, boolean localAof, Duration timeout) {

	/**
	 * Validates the settings.
	 * @param replicas the replicas
	 * @param localAof whether to wait for the local AOF
	 * @param timeout the timeout
	 */
	public Durability {
		if (replicas < 0) {
			throw new IllegalArgumentException("Replicas must be at least 0, but was " + replicas);
		}
		if (replicas == 0 && !localAof) {
			throw new IllegalArgumentException("A durable send waits for at least one replica or the local AOF");
		}
		Objects.requireNonNull(timeout, "Timeout must not be null");
		if (timeout.isNegative() || timeout.isZero()) {
			throw new IllegalArgumentException(
					"Timeout must be positive, but was " + timeout + " (Redis would wait forever on 0)");
		}
	}

	/**
	 * Waits for replicas ({@code WAIT}).
	 * @param replicas how many, at least 1
	 * @param timeout how long at most
	 * @return the durability
	 */
	public static Durability replicas(int replicas, Duration timeout) {
		return new Durability(replicas, false, timeout);
	}

	/**
	 * Waits for the master's AOF fsync and that of {@code replicas} replicas
	 * ({@code WAITAOF}, Redis 7.2+).
	 * @param replicas how many replicas, 0 or more
	 * @param timeout how long at most
	 * @return the durability
	 */
	public static Durability appendOnlyFile(int replicas, Duration timeout) {
		return new Durability(replicas, true, timeout);
	}

}
