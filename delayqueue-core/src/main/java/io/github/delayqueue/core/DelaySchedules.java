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
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.github.delayqueue.core.internal.InputText;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.github.delayqueue.core.internal.scheduling.ScheduleStore;
import io.github.delayqueue.core.internal.scheduling.Ticks;
import io.github.delayqueue.core.internal.send.SendBatch;
import io.github.delayqueue.core.internal.send.SendContext;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Registers and manages recurring schedules ({@link DelaySchedule}): obtain it with
 * {@link DelayQueueAdmin#schedules()}. A schedule lives in Redis, in its queue's first
 * partition; the scripts that move due messages fire its ticks and install the next one
 * atomically, so each tick is one message whatever the number of instances (see
 * {@code docs/recurring.md}).
 */
public class DelaySchedules {

	private static final Log logger = LogFactory.getLog(DelaySchedules.class);

	private final SendContext context;

	private final ScheduleStore store;

	/** Declared schedules not registered yet (Redis failed), by queue then name. */
	private final Map<String, Map<String, DelaySchedule>> pending = new ConcurrentHashMap<>();

	DelaySchedules(SendContext context, Function<String, QueueKeys> keys) {
		this.context = context;
		this.store = new ScheduleStore(context.scripts(), context.layouts(), keys);
	}

	/**
	 * Creates a schedule, or updates the one of that name in its queue. An unchanged
	 * schedule is left as it is (its pending tick, its counts), so every instance may
	 * register the same schedule at start-up. A changed one (ticks, payload, headers,
	 * policy) replaces its pending tick at once, atomically: no tick of the old
	 * definition fires after this returns. A paused schedule stays paused.
	 * @param schedule the schedule
	 * @return the schedule as this registration left it in Redis (a delete racing it may
	 * remove it at once after)
	 * @throws IllegalArgumentException when its payload or headers are over the engine's
	 * limits, or the codec cannot encode the payload
	 * @throws DelayQueueException when Redis fails
	 */
	public ScheduleInfo register(DelaySchedule schedule) {
		byte[] envelope = SendBatch.envelope(this.context, schedule.queue(), schedule.payload(), schedule.headers(),
				schedule.headers(), 0, this.context.expireAfter().apply(schedule.queue()), null, 0);
		return this.store.register(schedule, schedule.ticks(), envelope);
	}

	/**
	 * Declares a schedule this application needs (from an annotation or configuration):
	 * registers it now, or, when Redis fails, logs why and registers it as soon as the
	 * scheduler of its queue on this engine (running while a listener of the queue runs
	 * here) reaches Redis.
	 * @param schedule the schedule
	 * @throws IllegalArgumentException when its payload or headers are over the engine's
	 * limits, or the codec cannot encode the payload
	 */
	public void declare(DelaySchedule schedule) {
		SendBatch.envelope(this.context, schedule.queue(), schedule.payload(), schedule.headers(), schedule.headers(),
				0, null, null, 0);
		this.pending.computeIfAbsent(schedule.queue(), (queue) -> new ConcurrentHashMap<>())
			.put(schedule.name(), schedule);
		try {
			registerDeclared(schedule.queue());
		}
		catch (DelayQueueException ex) {
			logger.warn(ex.getMessage() + "; it is registered as soon as a listener of queue '" + schedule.queue()
					+ "' on this instance reaches Redis (an instance with none registers it when it next starts)");
		}
	}

	/**
	 * Registers the declared schedules of a queue that are not registered yet; called by
	 * the queue's scheduler before each move, so a failure is retried with its loop.
	 * @param queue the queue
	 */
	void registerDeclared(String queue) {
		Map<String, DelaySchedule> declared = this.pending.get(queue);
		if (declared == null) {
			return;
		}
		for (DelaySchedule schedule : List.copyOf(declared.values())) {
			try {
				register(schedule);
			}
			catch (DelayQueueException ex) {
				// Redis failed: the scheduler's loop retries
				throw ex;
			}
			catch (RuntimeException ex) {
				// retrying cannot help (e.g. Redis holds another partition count): said,
				// and dropped, so that the queue's messages keep moving
				logger.error("Cannot register schedule '" + schedule.name() + "' of queue '" + queue + "': "
						+ ex.getMessage(), ex);
			}
			declared.remove(schedule.name(), schedule);
		}
	}

	/**
	 * Lists a queue's schedules.
	 * @param queue the queue
	 * @return its schedules, by name
	 */
	public List<ScheduleInfo> list(String queue) {
		return this.store.list(queue);
	}

	/**
	 * Reads one schedule.
	 * @param queue the queue
	 * @param name the schedule
	 * @return the schedule, or empty when the queue has none of that name
	 */
	public Optional<ScheduleInfo> find(String queue, String name) {
		return this.store.find(queue, name);
	}

	/**
	 * Deletes a schedule, atomically with its pending tick: it never fires again. A tick
	 * that already came due (in the stream) is still delivered.
	 * @param queue the queue
	 * @param name the schedule
	 * @return whether the queue had that schedule
	 */
	public boolean delete(String queue, String name) {
		Map<String, DelaySchedule> declared = this.pending.get(queue);
		if (declared != null) {
			declared.remove(name);
		}
		return ScriptRunner.asLong(this.store.admin(queue, name, "delete", "").get(0)) == 1;
	}

	/**
	 * Pauses a schedule: its pending tick is removed, no tick fires until it is resumed.
	 * (Pausing its queue instead holds the messages, ticks included, as they come due.)
	 * @param queue the queue
	 * @param name the schedule
	 * @return whether the queue has that schedule
	 */
	public boolean pause(String queue, String name) {
		return ScriptRunner.asLong(this.store.admin(queue, name, "pause", "").get(0)) == 1;
	}

	/**
	 * Resumes a paused schedule with its next tick after now; the ticks of the pause are
	 * not fired.
	 * @param queue the queue
	 * @param name the schedule
	 * @return whether the queue has that schedule
	 */
	public boolean resume(String queue, String name) {
		Optional<ScheduleInfo> found = find(queue, name);
		if (found.isEmpty()) {
			return false;
		}
		ScheduleInfo schedule = found.get();
		Ticks ticks = (schedule.cron() != null) ? Ticks.cron(schedule.cron(), schedule.zone())
				: Ticks.every(schedule.interval());
		long now = this.store.now(queue);
		return ScriptRunner
			.asLong(this.store.admin(queue, name, "resume", Ticks.join(ticks.after(now, WireFormat.PLAN_AHEAD)))
				.get(0)) == 1;
	}

	/**
	 * Sends a schedule's message now, once, besides its ticks (which go on as before).
	 * Its id is {@code schedule/<name>/now-<epoch µs>}: the Redis time in microseconds,
	 * made later than the schedule's previous trigger, so every trigger has an id of its
	 * own.
	 * @param queue the queue
	 * @param name the schedule
	 * @return the id of the message sent, or empty when the queue has no such schedule
	 */
	public Optional<String> trigger(String queue, String name) {
		Object result = this.store.admin(queue, name, "trigger", "").get(0);
		return (result instanceof byte[] || result instanceof String) ? Optional.of(ScriptRunner.asString(result))
				: Optional.empty();
	}

	/**
	 * Acts on a schedule: the one place the endpoint and the dashboard (and any tool)
	 * turn an operator's action into a call.
	 * @param queue the queue
	 * @param name the schedule
	 * @param action what to do
	 * @return the schedule's name, or for {@link Action#TRIGGER} the id of the message
	 * sent; empty when the queue has no such schedule
	 */
	public Optional<String> apply(String queue, String name, Action action) {
		return switch (action) {
			case PAUSE -> pause(queue, name) ? Optional.of(name) : Optional.empty();
			case RESUME -> resume(queue, name) ? Optional.of(name) : Optional.empty();
			case TRIGGER -> trigger(queue, name);
			case DELETE -> delete(queue, name) ? Optional.of(name) : Optional.empty();
		};
	}

	/**
	 * What an operator can do to a schedule ({@link #apply}).
	 */
	public enum Action {

		/** {@link DelaySchedules#pause}. */
		PAUSE,

		/** {@link DelaySchedules#resume}. */
		RESUME,

		/** {@link DelaySchedules#trigger}. */
		TRIGGER,

		/** {@link DelaySchedules#delete}. */
		DELETE;

		/**
		 * Reads an action by its name, in any case ({@code pause}, {@code TRIGGER}).
		 * @param name the name
		 * @return the action
		 * @throws IllegalArgumentException naming the actions, for any other name
		 */
		public static Action parse(String name) {
			for (Action action : values()) {
				if (action.name().equalsIgnoreCase(name)) {
					return action;
				}
			}
			throw new IllegalArgumentException(
					"Schedule action must be 'pause', 'resume', 'trigger' or 'delete', but was "
							+ InputText.quote(name));
		}

	}

}
