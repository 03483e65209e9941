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

package io.github.delayqueue.core.internal.control;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.RateLimit;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.event.QueuePausedEvent;
import io.github.delayqueue.core.event.QueueResumedEvent;
import io.github.delayqueue.core.internal.runtime.EventDispatcher;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;
import io.github.delayqueue.core.internal.scheduling.WakeUps;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * An engine's flow controls: pause and resume of queues and groups, rate and concurrency
 * limits, stored in the queue's meta hash ({@code paused}, {@code paused-groups}, ...),
 * so that they hold for every instance and survive restarts. A change is published on the
 * queue's control channel with the whole state; each instance applies it to its
 * {@link FlowGate gates} as it arrives ({@link ControlNotifications}). While a listener
 * of the queue runs, a poller reads the state at once, again whenever the subscription to
 * its notifications is confirmed (the first time and after every resubscription: a
 * reconnect, a failover), and then every {@link #SLOW_POLL_PERIOD_MILLIS} ms to catch a
 * notification lost while the subscription stayed up; every {@link #POLL_PERIOD_MILLIS}
 * ms while the subscription is not confirmed. The gates stay closed until the first read
 * succeeded.
 * <p>
 * Everything that may wait on Redis (reads, subscribing) runs on the poller's thread:
 * starting and stopping a listener only changes memory. The notifications come on a
 * subscription of their own (not the schedulers'), kept for every queue once watched
 * until the engine closes: an unsubscribe while Redis is unreachable would wait out the
 * client's command timeout, and the schedulers' wake-up subscription would wait with it.
 */
public final class FlowControls {

	/**
	 * How often the state of each watched queue is read again while the subscription to
	 * its notifications is not confirmed.
	 */
	public static final long POLL_PERIOD_MILLIS = 900;

	/**
	 * How often the state of each watched queue is read again while its notifications are
	 * subscribed: what catches a notification lost all the same.
	 */
	public static final long SLOW_POLL_PERIOD_MILLIS = 30_000;

	private static final Log logger = LogFactory.getLog(FlowControls.class);

	private final ScriptRunner scripts;

	private final Function<String, QueueKeys> keys;

	private final WakeUps subscription;

	private final ControlNotifications notifications;

	/** What was declared at start-up, written when its queue is first watched. */
	private final DeclaredControls declared;

	/** By queue, then group: the gates handed out. */
	private final Map<String, Map<String, FlowGate>> gates = new ConcurrentHashMap<>();

	/** By queue: how many containers watch it. */
	private final Map<String, Integer> watched = new ConcurrentHashMap<>();

	/**
	 * By queue: the version of the state applied last. A state older than it is not
	 * applied: a poll that read before a change and applies after it would undo it.
	 */
	private final Map<String, Long> appliedVersions = new ConcurrentHashMap<>();

	/** When each queue's state was last read, and why its reads fail. */
	private final ControlReads reads = new ControlReads();

	private final SupervisedLoop poller;

	private final EventDispatcher events;

	private boolean polling;

	/**
	 * @param scripts the engine's script runner
	 * @param keys the keys of a queue
	 * @param notifications a pub/sub subscription of the controls' own, closed with them
	 * @param pauseAtStart queues declared paused at start-up
	 * @param rateLimitAtStart rate limits declared at start-up, by queue
	 * @param concurrencyLimitAtStart concurrency limits declared at start-up, by queue
	 * @param events told when a group's gate closes (paused) or opens again (resumed)
	 */
	public FlowControls(ScriptRunner scripts, Function<String, QueueKeys> keys, WakeUps notifications,
			Set<String> pauseAtStart, Map<String, RateLimit> rateLimitAtStart,
			Map<String, ConcurrencyLimit> concurrencyLimitAtStart, EventDispatcher events) {
		this.events = events;
		this.scripts = scripts;
		this.keys = keys;
		this.subscription = notifications;
		this.notifications = new ControlNotifications(notifications, scripts, keys, new Received());
		this.declared = new DeclaredControls(pauseAtStart, rateLimitAtStart, concurrencyLimitAtStart);
		this.poller = new SupervisedLoop("flow controls", "delayqueue-flow-controls", this::poll);
	}

	/**
	 * Pauses a queue, or one group of it; idempotent.
	 * @param queue the queue
	 * @param group the group, or {@code null} for the whole queue
	 * @return the queue's state after the change
	 */
	public QueueControlState pause(String queue, String group) {
		return change(queue, group, "pause");
	}

	/**
	 * Resumes a queue, or one group of it; idempotent. Resuming a group does not resume a
	 * paused queue, nor resuming the queue a paused group.
	 * @param queue the queue
	 * @param group the group, or {@code null} for the whole queue
	 * @return the queue's state after the change
	 */
	public QueueControlState resume(String queue, String group) {
		return change(queue, group, "resume");
	}

	/**
	 * Sets or removes the rate limit of a queue (each of its groups), or of one group.
	 * @param queue the queue
	 * @param group the group, or {@code null} for the whole queue
	 * @param limit the limit, or {@code null} to remove it
	 * @return the queue's state after the change
	 */
	public QueueControlState limitRate(String queue, String group, RateLimit limit) {
		return change(queue, group, "rate", (limit != null) ? limit.toString() : "");
	}

	/**
	 * Sets or removes the concurrency limit of a queue (each of its groups), or of one
	 * group.
	 * @param queue the queue
	 * @param group the group, or {@code null} for the whole queue
	 * @param limit the limit, or {@code null} to remove it
	 * @return the queue's state after the change
	 */
	public QueueControlState limitConcurrency(String queue, String group, ConcurrencyLimit limit) {
		return change(queue, group, "concurrency", (limit != null) ? limit.toString() : "");
	}

	private QueueControlState change(String queue, String group, String action) {
		return change(queue, group, action, "");
	}

	private QueueControlState change(String queue, String group, String action, String value) {
		QueueKeys keys = this.keys.apply(queue);
		String target = (group != null) ? QueueNames.group(group) : "";
		List<Object> reply = this.scripts.run(Scripts.CONTROL, List.of(keys.meta()), action, target,
				keys.controlChannel(), value);
		QueueControlState state = ControlStates.read(keys.queue(), ScriptRunner.asString(reply.get(0)),
				ScriptRunner.asString(reply.get(1)), ScriptRunner.asString(reply.get(3)),
				ScriptRunner.asString(reply.get(4)), ScriptRunner.asString(reply.get(5)),
				ScriptRunner.asString(reply.get(6)));
		// at once here: this instance's listeners need no notification
		apply(state, ScriptRunner.asLong(reply.get(2)));
		return state;
	}

	/**
	 * Reads a queue's state from Redis.
	 * @param queue the queue
	 * @return its state
	 */
	public QueueControlState read(String queue) {
		return read(this.keys.apply(queue)).state();
	}

	private ControlStates.Versioned read(QueueKeys keys) {
		return ControlStates.fetch(this.scripts, keys);
	}

	/**
	 * Returns the gate of a (queue, group), one per engine: closed until the queue's
	 * state was read once, then following it while the queue is {@link #watch watched}.
	 * @param queue the queue
	 * @param group the group
	 * @return the gate
	 */
	public FlowGate gate(String queue, String group) {
		return this.gates.computeIfAbsent(queue, (name) -> new ConcurrentHashMap<>())
			.computeIfAbsent(group,
					(name) -> new FlowGate(true, (hold) -> this.notifications.publishHold(queue, group, hold),
							() -> this.notifications.publishOwner(queue, group)));
	}

	/**
	 * Returns the groups of a queue that have a gate here: those of the listener
	 * containers built on this engine.
	 * @param queue the queue
	 * @return the groups
	 */
	public java.util.Set<String> groups(String queue) {
		return java.util.Set.copyOf(this.gates.getOrDefault(queue, Map.of()).keySet());
	}

	/**
	 * Keeps the gates of a queue up to date until {@link #unwatch}: the poller subscribes
	 * to its notifications and reads its state at once, again when the subscription is
	 * confirmed, then every {@link #SLOW_POLL_PERIOD_MILLIS} ms (every
	 * {@link #POLL_PERIOD_MILLIS} ms while the subscription is not confirmed). A listener
	 * container watches its queue from start to stop.
	 * @param queue the queue
	 */
	public void watch(String queue) {
		// a queue just watched has the grace of a fresh read (see problem)
		this.reads.watched(queue);
		this.watched.merge(queue, 1, Integer::sum);
		startPolling();
		this.poller.wake();
	}

	/**
	 * Stops keeping a queue's gates up to date, once each {@link #watch} of it was
	 * undone.
	 * @param queue the queue
	 */
	public void unwatch(String queue) {
		this.watched.computeIfPresent(queue, (name, count) -> (count > 1) ? count - 1 : null);
	}

	/**
	 * Watches a queue for a container of one group that starts: from the state read next
	 * (at once), its pauses and resumptions are published as events; a group paused then
	 * is reported paused. A container built but not started hears of none.
	 * @param queue the queue
	 * @param group the container's group
	 */
	public void watch(String queue, String group) {
		gate(queue, group).started();
		watch(queue);
	}

	/**
	 * Undoes a {@link #watch(String, String)} for a container that stopped.
	 * @param queue the queue
	 * @param group the container's group
	 */
	public void unwatch(String queue, String group) {
		gate(queue, group).stopped();
		unwatch(queue);
	}

	private synchronized void startPolling() {
		if (!this.polling) {
			this.polling = true;
			this.poller.start();
		}
	}

	/** One round of the poller: reads the queues whose state is due to be read. */
	private long poll() {
		RuntimeException first = null;
		long sleep = TimeUnit.MILLISECONDS.toNanos(SLOW_POLL_PERIOD_MILLIS);
		for (String queue : List.copyOf(this.watched.keySet())) {
			// subscribed before it is read: what changes after the read is told
			this.notifications.subscribe(queue);
			long period = this.notifications.isConfirmed(queue) ? SLOW_POLL_PERIOD_MILLIS : POLL_PERIOD_MILLIS;
			if (this.reads.untilRead(queue, period) <= 0) {
				try {
					refresh(queue);
				}
				catch (RuntimeException ex) {
					// the other queues are read all the same; the loop logs and backs off
					this.reads.failed(queue, ex);
					first = (first != null) ? first : ex;
				}
			}
			sleep = Math.min(sleep, Math.max(1, this.reads.untilRead(queue, period)));
		}
		if (first != null) {
			throw first;
		}
		return sleep;
	}

	/** Writes what was declared at start-up, then reads the queue's state. */
	private void refresh(String queue) {
		this.declared.write(queue, this);
		ControlStates.Versioned read = read(this.keys.apply(queue));
		apply(read.state(), read.version());
		this.reads.read(queue);
	}

	/**
	 * Tells why a queue's gates may be stale: its state was never read, its reads fail,
	 * or it was not read for long (see {@link ControlReads}).
	 * @param queue the queue
	 * @return the reason, {@code null} while its state is current
	 */
	public String problem(String queue) {
		return this.reads.problem(queue);
	}

	/** Applies a state to the queue's gates unless a newer one was applied already. */
	private void apply(QueueControlState state, long version) {
		Map<String, FlowGate> queueGates = this.gates.get(state.queue());
		if (queueGates == null) {
			return;
		}
		// one queue's states applied one at a time, each no older than the last
		synchronized (queueGates) {
			Long applied = this.appliedVersions.get(state.queue());
			if (applied != null && version < applied) {
				return;
			}
			this.appliedVersions.put(state.queue(), version);
			boolean pendingPause = this.declared.pausePending(state.queue());
			queueGates.forEach((group, gate) -> {
				gate.rateLimit(state.rateLimit(group));
				gate.concurrencyLimit(state.concurrencyLimit(group));
				FlowGate.Change change = gate.set(pendingPause || state.isPaused(group));
				if (change == FlowGate.Change.PAUSED) {
					this.events.publish((time) -> new QueuePausedEvent(state.queue(), group, time));
				}
				else if (change == FlowGate.Change.RESUMED) {
					this.events.publish((time) -> new QueueResumedEvent(state.queue(), group, time));
				}
			});
		}
	}

	/**
	 * @return the subscription to the queues' control notifications
	 */
	public WakeUps notifications() {
		return this.subscription;
	}

	/** Stops polling and closes the subscription. */
	public synchronized void close() {
		if (this.polling) {
			this.poller.stop(Duration.ofSeconds(5));
			this.polling = false;
		}
		this.subscription.close();
	}

	/** What the control channels tell, on the client's thread: memory only. */
	private final class Received implements ControlNotifications.Receiver {

		@Override
		public void state(QueueControlState state, long version) {
			apply(state, version);
		}

		@Override
		public FlowGate gate(String queue, String group) {
			return FlowControls.this.gates.getOrDefault(queue, Map.of()).get(group);
		}

		@Override
		public void subscribed(String queue) {
			FlowControls.this.reads.request(queue);
			FlowControls.this.poller.wake();
			// an owner's notice may have been lost before
			FlowControls.this.gates.getOrDefault(queue, Map.of()).values().forEach(FlowGate::ownersMayHaveChanged);
		}

	}

}
