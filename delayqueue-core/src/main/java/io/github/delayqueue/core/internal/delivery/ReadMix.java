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

package io.github.delayqueue.core.internal.delivery;

import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.stream.ByteRecord;

/**
 * What a {@link StreamReader}'s next read reads, beyond its backlog: prioritized messages
 * alone while they have a backlog (but every stream at least every
 * {@link #FULL_READ_PERIOD_NANOS}, so the others are never starved), a third of a read
 * for the urgent stream while prioritized messages came recently; and in a fair-share
 * queue, whether the stream is filled from the keys' turns first.
 */
final class ReadMix {

	/**
	 * How long after the last prioritized message the urgent stream gets a third of a
	 * read.
	 */
	static final long URGENT_SEEN_NANOS = TimeUnit.SECONDS.toNanos(10);

	/**
	 * How long prioritized messages with a backlog are read alone, at most, before a read
	 * of every stream.
	 */
	static final long FULL_READ_PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

	/**
	 * In a fair-share queue, how many times the container's capacity (concurrency +
	 * prefetch) a fill leaves in the stream for the group to read: enough for several
	 * reads between two fills.
	 */
	static final int FAIR_WINDOW_CAPACITIES = 2;

	private final ListenerContext context;

	private final Holdings holdings;

	/**
	 * Whether the last read returned prioritized messages: the next one reads the urgent
	 * stream alone first.
	 */
	private boolean urgentBacklog;

	/** When a read last returned a prioritized message (System.nanoTime). */
	private long urgentSeen = System.nanoTime() - URGENT_SEEN_NANOS;

	/** When every stream was last read (System.nanoTime). */
	private long lastFullRead = System.nanoTime();

	/**
	 * In a fair-share queue: whether due messages may wait for their turn, so the next
	 * read that follows one without a backlog fills the stream first (after a fill that
	 * left some, or a read that got entries).
	 */
	private boolean fill = true;

	ReadMix(ListenerContext context, Holdings holdings) {
		this.context = context;
		this.holdings = holdings;
	}

	/**
	 * Before a read, in a fair-share queue with messages waiting for their turn: a read
	 * that follows a backlog reads what is left without a fill, and does not block (when
	 * the stream is empty, the next read fills it); any other fills the stream first.
	 * @return whether the read may block
	 */
	boolean fillBefore(RedisConnection connection, boolean history, boolean backlog) {
		if (!this.context.fairShare() || history || !this.fill) {
			return true;
		}
		if (backlog) {
			return false;
		}
		List<Object> filled = ScriptRunner.run(connection, Scripts.FAIR_FILL,
				List.of(this.context.keys().fair(), this.context.keys().fairState(), this.context.keys().stream(),
						this.context.keys().delayed()),
				this.context.group(), FAIR_WINDOW_CAPACITIES * this.holdings.limit(),
				this.context.keys().wakeChannel());
		this.fill = ScriptRunner.asLong(filled.get(1)) > 0;
		return true;
	}

	/** Whether the next read reads the urgent stream alone. */
	boolean urgentAlone(boolean history) {
		return this.urgentBacklog && !history && System.nanoTime() - this.lastFullRead < FULL_READ_PERIOD_NANOS;
	}

	/**
	 * After a read of the urgent stream alone.
	 * @return whether it returned entries (accept them; else read every stream)
	 */
	boolean urgentRead(List<ByteRecord> urgent, int granted) {
		this.urgentBacklog = urgent != null && urgent.size() >= granted;
		if (urgent != null && !urgent.isEmpty()) {
			this.urgentSeen = System.nanoTime();
			return true;
		}
		return false;
	}

	/**
	 * A read of every stream starts.
	 * @return whether the urgent stream gets a third of it (prioritized messages came
	 * recently), else the other two a half each
	 */
	boolean fullRead() {
		this.lastFullRead = System.nanoTime();
		return this.lastFullRead - this.urgentSeen < URGENT_SEEN_NANOS;
	}

	/** A read returned: entries read mean a fill may be due again. */
	void readReturned(boolean any) {
		this.fill |= any;
	}

	/** A read of every stream returned prioritized messages. */
	void urgentAccepted() {
		this.urgentBacklog = true;
		this.urgentSeen = System.nanoTime();
	}

}
