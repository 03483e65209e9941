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

package io.github.delayqueue.core.internal.scheduling;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.connection.Message;
import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.SubscriptionListener;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import io.github.delayqueue.core.internal.runtime.DaemonThreads;

/**
 * One pub/sub subscription for a set of channels: the queues' wake-up channels (a
 * producer that schedules a message earlier than everything else publishes its due time,
 * and the schedulers of that queue wake up) or their control channels. Pub/sub may lose a
 * message (a reconnect, a failover, a subscription dropped): each listener is told at
 * once when Redis confirms its channel's subscription, the first time and after every
 * resubscription, so that it catches up with what it may have missed (a scheduler
 * promotes, the flow controls read the state again). What is lost while the subscription
 * stays up is caught by the listeners' slow sweeps.
 * <p>
 * Messages and confirmations are handled on the client's thread that received them, not
 * on a thread each: handlers are quick and never wait (they only wake a loop).
 */
public final class WakeUps {

	private static final Log logger = LogFactory.getLog(WakeUps.class);

	/** Runs the listeners of the messages, one at a time. */
	private final ThreadPoolExecutor dispatch = new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS,
			new LinkedBlockingQueue<>(), DaemonThreads.factory("delayqueue-notifications-"),
			// closed: what the subscription still tells (its unsubscriptions) reaches no
			// one
			new ThreadPoolExecutor.DiscardPolicy());

	/**
	 * Unsubscribes the channels of stopped listeners, one at a time, off their threads.
	 */
	private final ThreadPoolExecutor unsubscriptions = new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS,
			new LinkedBlockingQueue<>(), DaemonThreads.factory("delayqueue-unsubscriptions-"),
			new ThreadPoolExecutor.DiscardPolicy());

	/** How long a subscriber waits for its channel to be added, at most. */
	private static final long SUBSCRIBE_WAIT_SECONDS = 5;

	private final RedisConnectionFactory connectionFactory;

	private final Set<Subscription> subscriptions = ConcurrentHashMap.newKeySet();

	private RedisMessageListenerContainer container;

	/**
	 * Creates the subscription holder; nothing connects until the first subscription.
	 * @param connectionFactory the connection factory
	 */
	public WakeUps(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Subscribes to a wake-up channel. A message that is not a number is ignored.
	 * @param channel the channel
	 * @param onWake called with the published due time (epoch ms, Redis clock)
	 * @param onSubscribed called whenever Redis confirms the subscription: wake-ups may
	 * have been lost before
	 * @return the subscription, for {@link #unsubscribe}
	 */
	public Subscription subscribe(String channel, LongConsumer onWake, Runnable onSubscribed) {
		return subscribeRaw(channel, (body) -> {
			Long due = dueOf(body);
			if (due != null) {
				onWake.accept(due);
			}
		}, onSubscribed);
	}

	/**
	 * Reads a wake-up's due time.
	 * @param body the message
	 * @return epoch ms, or {@code null} when it is not a number
	 */
	static Long dueOf(byte[] body) {
		try {
			return Long.parseLong(new String(body, StandardCharsets.UTF_8).trim());
		}
		catch (NumberFormatException ex) {
			return null;
		}
	}

	/**
	 * Subscribes a listener to the raw messages of a channel.
	 * @param channel the channel
	 * @param onMessage receives each message's body
	 * @param onSubscribed called whenever Redis confirms the subscription
	 * @return the subscription, for {@link #unsubscribe}
	 */
	public synchronized Subscription subscribeRaw(String channel, Consumer<byte[]> onMessage, Runnable onSubscribed) {
		if (this.container == null) {
			RedisMessageListenerContainer created = new RedisMessageListenerContainer();
			created.setConnectionFactory(this.connectionFactory);
			// the handlers only wake loops: one thread for the messages (the default
			// starts one per message), off the client's event loop (a handler that waited
			// there for a lock held across a Redis call would hold up every reply), and
			// none while no message comes
			created.setTaskExecutor(this.dispatch);
			created.afterPropertiesSet();
			this.container = created;
		}
		Subscription subscription = new Subscription(channel, onMessage, onSubscribed);
		this.subscriptions.add(subscription);
		RedisMessageListenerContainer current = this.container;
		// after the unsubscriptions handed over before: a SUBSCRIBE racing an UNSUBSCRIBE
		// of
		// the same channel can leave the container waiting for a confirmation forever
		Future<?> added = this.unsubscriptions
			.submit(() -> current.addMessageListener(subscription, new ChannelTopic(channel)));
		try {
			added.get(SUBSCRIBE_WAIT_SECONDS, TimeUnit.SECONDS);
		}
		catch (TimeoutException ex) {
			// Redis slow or gone: the listener is added when the container gets to it;
			// until
			// it confirms the channel, the sweeps and the next confirmation cover it
			logger.debug("The subscription to " + channel + " is not confirmed yet; going on without waiting");
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof RuntimeException runtime) {
				throw runtime;
			}
			throw new IllegalStateException(ex.getCause());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while subscribing to a channel", ex);
		}
		ensureStarted();
		return subscription;
	}

	/**
	 * Starts the subscription if it is not running, e.g. because Redis was down when the
	 * first listener subscribed. Called by the schedulers after each successful promote;
	 * until it runs they still promote at the next due time or sweep.
	 */
	public synchronized void ensureStarted() {
		if (this.container != null && !this.container.isRunning()) {
			try {
				this.container.start();
			}
			catch (RuntimeException ex) {
				// Redis unreachable: retried after the next successful promote
				lost();
			}
		}
	}

	/**
	 * Subscribes again, on a new connection: the master changed while the subscription's
	 * connection still reached the old one, where nothing is published any more.
	 */
	public synchronized void resubscribe() {
		if (this.container != null && this.container.isRunning()) {
			lost();
			try {
				this.container.stop();
				this.container.start();
			}
			catch (RuntimeException ex) {
				// Redis unreachable: ensureStarted() starts it after the next promote
			}
		}
	}

	/** Every subscription is unconfirmed until Redis confirms it again. */
	private void lost() {
		this.subscriptions.forEach((subscription) -> subscription.confirmed = false);
	}

	/**
	 * Unsubscribes a listener.
	 * @param subscription what {@link #subscribe} returned
	 */
	public synchronized void unsubscribe(Subscription subscription) {
		this.subscriptions.remove(subscription);
		subscription.confirmed = false;
		// from now on what the channel still brings reaches no one
		subscription.cancelled = true;
		RedisMessageListenerContainer current = this.container;
		if (current != null) {
			// not on the caller's thread: the UNSUBSCRIBE waits for Redis, up to the
			// client's command timeout when Redis is gone, and a stop must not
			this.unsubscriptions.execute(() -> {
				try {
					current.removeMessageListener(subscription);
				}
				catch (RuntimeException ex) {
					// the channel is left with the next resubscription or the close
					logger.debug("Cannot unsubscribe from a channel now: " + ex);
				}
			});
		}
	}

	/**
	 * Closes the subscription.
	 */
	public synchronized void close() {
		lost();
		this.subscriptions.clear();
		if (this.container != null) {
			try {
				this.container.destroy();
			}
			catch (Exception ex) {
				// closing anyway
			}
			this.container = null;
		}
		// last: the container hands its unsubscriptions to it as it stops
		this.dispatch.shutdown();
		this.unsubscriptions.shutdown();
	}

	/**
	 * One listener of one channel; {@link #isConfirmed() confirmed} from the moment Redis
	 * confirmed the subscription until it is known lost (a resubscription, the container
	 * not started, the channel unsubscribed).
	 */
	public static final class Subscription implements MessageListener, SubscriptionListener {

		private final byte[] channel;

		private final Consumer<byte[]> onMessage;

		private final Runnable onSubscribed;

		private volatile boolean confirmed;

		/** Unsubscribed: it tells its listener nothing more. */
		private volatile boolean cancelled;

		private Subscription(String channel, Consumer<byte[]> onMessage, Runnable onSubscribed) {
			this.channel = channel.getBytes(StandardCharsets.UTF_8);
			this.onMessage = onMessage;
			this.onSubscribed = onSubscribed;
		}

		/**
		 * @return whether Redis confirmed the subscription and it is not known lost since
		 */
		public boolean isConfirmed() {
			return this.confirmed;
		}

		@Override
		public void onMessage(Message message, byte[] pattern) {
			if (!this.cancelled) {
				this.onMessage.accept(message.getBody());
			}
		}

		@Override
		public void onChannelSubscribed(byte[] channel, long count) {
			if (java.util.Arrays.equals(channel, this.channel) && !this.cancelled) {
				this.confirmed = true;
				this.onSubscribed.run();
			}
		}

		@Override
		public void onPatternSubscribed(byte[] pattern, long count) {
			// no patterns are subscribed: a confirmation all the same
			if (!this.cancelled) {
				this.confirmed = true;
				this.onSubscribed.run();
			}
		}

		@Override
		public void onChannelUnsubscribed(byte[] channel, long count) {
			if (java.util.Arrays.equals(channel, this.channel)) {
				this.confirmed = false;
			}
		}

	}

}
