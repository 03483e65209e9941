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

import java.util.function.LongConsumer;

import org.springframework.data.redis.connection.MessageListener;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * One pub/sub subscription per engine for the queues' wake-up channels: a producer that
 * schedules a message earlier than everything else publishes its due time, and the
 * sleeping schedulers of that queue wake up. Pub/sub may lose a message (e.g. during a
 * reconnect); the schedulers' bounded sleep covers that.
 */
public final class WakeUps {

	private final RedisConnectionFactory connectionFactory;

	private RedisMessageListenerContainer container;

	/**
	 * Creates the subscription holder; nothing connects until the first subscription.
	 * @param connectionFactory the connection factory
	 */
	public WakeUps(RedisConnectionFactory connectionFactory) {
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Subscribes to a channel.
	 * @param channel the channel
	 * @param onWake called with the published due time (epoch ms)
	 * @return the listener, for {@link #unsubscribe}
	 */
	public synchronized MessageListener subscribe(String channel, LongConsumer onWake) {
		return subscribeRaw(channel, (body) -> {
			try {
				onWake.accept(Long.parseLong(new String(body, java.nio.charset.StandardCharsets.UTF_8)));
			}
			catch (NumberFormatException ex) {
				onWake.accept(0);
			}
		});
	}

	/**
	 * Subscribes a listener to the raw messages of a channel.
	 * @param channel the channel
	 * @param onMessage receives each message's body
	 * @return the listener, for {@link #unsubscribe}
	 */
	public synchronized MessageListener subscribeRaw(String channel, java.util.function.Consumer<byte[]> onMessage) {
		if (this.container == null) {
			RedisMessageListenerContainer created = new RedisMessageListenerContainer();
			created.setConnectionFactory(this.connectionFactory);
			created.afterPropertiesSet();
			this.container = created;
		}
		MessageListener listener = (message, pattern) -> onMessage.accept(message.getBody());
		this.container.addMessageListener(listener, new ChannelTopic(channel));
		ensureStarted();
		return listener;
	}

	/**
	 * Starts the subscription if it is not running, e.g. because Redis was down when the
	 * first scheduler started. Called by the schedulers after each successful promote;
	 * until it runs they still wake up every max idle interval.
	 */
	public synchronized void ensureStarted() {
		if (this.container != null && !this.container.isRunning()) {
			try {
				this.container.start();
			}
			catch (RuntimeException ex) {
				// Redis unreachable: retried after the next successful promote
			}
		}
	}

	/**
	 * Subscribes again, on a new connection: the master changed while the subscription's
	 * connection still reached the old one, where nothing is published any more.
	 */
	public synchronized void resubscribe() {
		if (this.container != null && this.container.isRunning()) {
			try {
				this.container.stop();
				this.container.start();
			}
			catch (RuntimeException ex) {
				// Redis unreachable: ensureStarted() starts it after the next promote
			}
		}
	}

	/**
	 * Unsubscribes a listener.
	 * @param listener the listener
	 */
	public synchronized void unsubscribe(MessageListener listener) {
		if (this.container != null) {
			this.container.removeMessageListener(listener);
		}
	}

	/**
	 * Closes the subscription.
	 */
	public synchronized void close() {
		if (this.container != null) {
			try {
				this.container.destroy();
			}
			catch (Exception ex) {
				// closing anyway
			}
			this.container = null;
		}
	}

}
