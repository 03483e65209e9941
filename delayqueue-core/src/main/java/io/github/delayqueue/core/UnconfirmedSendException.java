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

import java.util.List;

/**
 * A durable send took effect on the Redis master, but the replicas (or AOF fsyncs) it
 * asked for did not confirm it in time. The messages are scheduled: do not send them
 * again blindly (a retry with the same ids is deduplicated). What is at risk is a
 * failover or a crash in the next moments, before replication catches up.
 */
public class UnconfirmedSendException extends DelayQueueException {

	private static final long serialVersionUID = 1L;

	private final transient List<SendResult> results;

	private final int confirmedReplicas;

	private final int confirmedLocal;

	/**
	 * Creates an exception.
	 * @param message what was not confirmed
	 * @param results what each send did on the master
	 * @param confirmedReplicas how many replicas confirmed
	 * @param confirmedLocal 1 when the master's AOF fsync was confirmed, else 0 (or -1
	 * when not asked)
	 */
	public UnconfirmedSendException(String message, List<SendResult> results, int confirmedReplicas,
			int confirmedLocal) {
		super(message, null);
		this.results = List.copyOf(results);
		this.confirmedReplicas = confirmedReplicas;
		this.confirmedLocal = confirmedLocal;
	}

	/**
	 * Returns what each send did on the master.
	 * @return the results, in the order sent
	 */
	public List<SendResult> getResults() {
		return this.results;
	}

	/**
	 * Returns how many replicas confirmed the sends.
	 * @return the count
	 */
	public int getConfirmedReplicas() {
		return this.confirmedReplicas;
	}

	/**
	 * Returns whether the master's AOF fsync was confirmed.
	 * @return 1 confirmed, 0 not, -1 not asked
	 */
	public int getConfirmedLocal() {
		return this.confirmedLocal;
	}

}
