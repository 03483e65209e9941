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

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.scheduling.WakeUps;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The flow controls' subscription to the control channels of the watched queues: what
 * {@code control.lua} publishes (the whole state with its version), a slot freed
 * ({@code slots.lua}) and a handler's push-back, handed to a {@link Receiver}. A queue is
 * subscribed once and stays so until the engine closes: an unsubscribe while Redis is
 * unreachable would wait out the client's command timeout. Each confirmation of a
 * subscription by Redis (the first and every resubscription) is told too: notifications
 * may have been lost before it. A message that cannot be read is ignored.
 */
final class ControlNotifications {

	private static final Log logger = LogFactory.getLog(ControlNotifications.class);

	private final WakeUps subscription;

	private final ScriptRunner scripts;

	private final Function<String, QueueKeys> keys;

	private final Receiver receiver;

	/** By queue: its subscription. */
	private final Map<String, WakeUps.Subscription> subscribed = new ConcurrentHashMap<>();

	ControlNotifications(WakeUps subscription, ScriptRunner scripts, Function<String, QueueKeys> keys,
			Receiver receiver) {
		this.subscription = subscription;
		this.scripts = scripts;
		this.keys = keys;
		this.receiver = receiver;
	}

	/**
	 * Subscribes to a queue's notifications unless done; Redis down: the next call.
	 * @param queue the queue
	 */
	void subscribe(String queue) {
		if (this.subscribed.containsKey(queue)) {
			return;
		}
		try {
			String channel = this.keys.apply(queue).controlChannel();
			this.subscribed.put(queue, this.subscription.subscribeRaw(channel, (body) -> received(queue, body),
					() -> this.receiver.subscribed(queue)));
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot subscribe to the control channel of queue '" + queue + "' yet: " + ex);
		}
	}

	/**
	 * @param queue the queue
	 * @return whether Redis confirmed the subscription to its notifications, and it is
	 * not known lost since
	 */
	boolean isConfirmed(String queue) {
		WakeUps.Subscription subscription = this.subscribed.get(queue);
		return subscription != null && subscription.isConfirmed();
	}

	/**
	 * Tells every instance that a handler of a group pushed back: each holds the group's
	 * starts for that long from when the notification arrives. Best effort (a lost
	 * notification holds nothing there); a group with a rate limit is also held in its
	 * limiter in Redis.
	 * @param queue the queue
	 * @param group the group
	 * @param hold how long
	 */
	void publishHold(String queue, String group, Duration hold) {
		publish(queue, group, "hold\n" + group + "\n" + hold.toMillis(), "the hold");
	}

	/**
	 * Tells every instance that an exclusive or ordered member of a group joined or left:
	 * their shared listeners of the group look for owners at once, not at their slow
	 * check. Best effort, as {@link #publishHold}.
	 * @param queue the queue
	 * @param group the group
	 */
	void publishOwner(String queue, String group) {
		publish(queue, group, "owner\n" + group, "the new owner");
	}

	private void publish(String queue, String group, String body, String what) {
		try {
			this.scripts.execute((connection) -> connection
				.publish(QueueKeys.bytes(this.keys.apply(queue).controlChannel()), QueueKeys.bytes(body)));
		}
		catch (RuntimeException ex) {
			logger.debug("Cannot tell the other instances of " + what + " of queue '" + queue + "', group '" + group
					+ "': " + ex);
		}
	}

	/** On the client's thread: quick, and never throws. */
	private void received(String queue, byte[] body) {
		// "<version>\n<paused>\n<paused-groups>\n<rate-limit>\n<rate-limits>", and
		// "\n<concurrency-limit>\n<concurrency-limits>" when one is set, as control.lua
		// publishes it
		String[] lines = new String(body, StandardCharsets.UTF_8).split("\n", -1);
		try {
			if (lines.length == 2 && lines[0].equals("slot")) {
				// "slot\n<group>": an instance freed a slot of the group (slots.lua)
				FlowGate gate = this.receiver.gate(queue, lines[1]);
				if (gate != null) {
					gate.slotFreed();
				}
			}
			else if (lines.length == 2 && lines[0].equals("owner")) {
				// "owner\n<group>": an exclusive or ordered member of the group joined or
				// left
				FlowGate gate = this.receiver.gate(queue, lines[1]);
				if (gate != null) {
					gate.ownersMayHaveChanged();
				}
			}
			else if (lines.length == 3 && lines[0].equals("hold")) {
				// "hold\n<group>\n<ms>": a handler of the group pushed back
				FlowGate gate = this.receiver.gate(queue, lines[1]);
				if (gate != null) {
					gate.holdFor(Duration.ofMillis(Long.parseLong(lines[2])));
				}
			}
			else if (lines.length == 5 || lines.length == 7) {
				long version = Long.parseLong(lines[0]);
				this.receiver.state(ControlStates.read(queue, lines[1], lines[2], lines[3], lines[4],
						(lines.length == 7) ? lines[5] : null, (lines.length == 7) ? lines[6] : null), version);
			}
		}
		catch (RuntimeException ex) {
			// not one of ours: the next read of the state is what counts
			logger.debug("Ignoring a notification of queue '" + queue + "' that cannot be read: " + ex);
		}
	}

	/** What the notifications tell. */
	interface Receiver {

		/**
		 * A queue's whole state.
		 * @param state the state
		 * @param version its version
		 */
		void state(QueueControlState state, long version);

		/**
		 * The gate of a group here, told of a slot freed by an instance or of a handler's
		 * push-back.
		 * @param queue the queue
		 * @param group the group
		 * @return its gate, {@code null} when it has none here
		 */
		FlowGate gate(String queue, String group);

		/**
		 * Redis confirmed the subscription to a queue's notifications: read its state
		 * again, some may have been lost before.
		 * @param queue the queue
		 */
		void subscribed(String queue);

	}

}
