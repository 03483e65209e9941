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

package io.github.delayqueue.autoconfigure.metrics;

import java.time.Duration;
import java.util.Locale;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

import io.github.delayqueue.core.DelayQueueAdmin;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.QueueStats;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.config.DelayListenerEndpointRegistry;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Turns what the engine reports into Micrometer meters:
 * <ul>
 * <li>counters {@code delayqueue.messages.sent} (tags {@code queue}, {@code result}:
 * scheduled, ready, duplicate, replaced), {@code delayqueue.messages.delivered},
 * {@code .acked}, {@code .filtered}, {@code .retried}, {@code .dead-lettered},
 * {@code .recovered} and {@code delayqueue.handlers.abandoned} (tags {@code queue},
 * {@code group});</li>
 * <li>timers {@code delayqueue.lateness} (receive time minus due time; tags
 * {@code queue}, {@code group}) and {@code delayqueue.processing} (handler time; tags
 * {@code queue}, {@code group}, {@code result}: acked, retried, dead);</li>
 * <li>gauges {@code delayqueue.messages.scheduled}, {@code .ready}, {@code .inflight} and
 * {@code .dead} per queue (tag {@code queue}), read from Redis at most once per refresh
 * interval per queue, and {@code NaN} while Redis cannot be reached;</li>
 * <li>gauge {@code delayqueue.partitions.owned} (tags {@code queue}, {@code group}): the
 * partitions this application's exclusive or ordered listeners of the group own now.</li>
 * </ul>
 * The counters and timers of each listener are registered at start-up (at 0). Gauges
 * exist for every queue in the Redis registry at start-up, every queue with a listener,
 * and every queue this application sends to.
 */
public class MicrometerDelayQueueObserver implements DelayQueueObserver, SmartInitializingSingleton {

	private static final Log logger = LogFactory.getLog(MicrometerDelayQueueObserver.class);

	private final MeterRegistry registry;

	private final ObjectProvider<DelayQueueEngine> engine;

	private final ObjectProvider<DelayListenerEndpointRegistry> listeners;

	private final Duration statsRefresh;

	private final Map<String, Counter> counters = new ConcurrentHashMap<>();

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	private final Map<String, CachedStats> gauges = new ConcurrentHashMap<>();

	/**
	 * Creates the observer.
	 * @param registry the registry
	 * @param engine the engine, for the gauges (looked up lazily: the engine depends on
	 * this observer)
	 * @param listeners the listener registry, for the gauges of listened queues
	 * @param statsRefresh how long one reading of a queue's counts is reused
	 */
	public MicrometerDelayQueueObserver(MeterRegistry registry, ObjectProvider<DelayQueueEngine> engine,
			ObjectProvider<DelayListenerEndpointRegistry> listeners, Duration statsRefresh) {
		this.registry = registry;
		this.engine = engine;
		this.listeners = listeners;
		this.statsRefresh = statsRefresh;
	}

	@Override
	public void afterSingletonsInstantiated() {
		this.listeners.ifAvailable((registry) -> {
			registry.getQueues().forEach(this::gauges);
			ownedPartitionGauges(registry.getListenerContainers());
			// every meter of a listener exists (at 0) before its first delivery: a
			// dashboard's rate() shows 0, not "no data", and /actuator/metrics lists them
			registry.getListenerContainers()
				.forEach((container) -> listenerMeters(container.queue(), container.group()));
		});
		try {
			DelayQueueEngine engine = this.engine.getIfAvailable();
			if (engine != null) {
				engine.admin().queues().forEach(this::gauges);
			}
		}
		catch (RuntimeException ex) {
			logger.info("Cannot list the queues in Redis for their gauges (they appear as queues are used): " + ex);
		}
	}

	@Override
	public void sent(SendResult result) {
		counter("delayqueue.messages.sent", result.queue(), null, result.status().name().toLowerCase(Locale.ROOT))
			.increment();
		gauges(result.queue());
	}

	@Override
	public void delivered(String queue, String group, int attempt, Duration lateness) {
		counter("delayqueue.messages.delivered", queue, group, null).increment();
		timer("delayqueue.lateness", queue, group, null).record(lateness);
		gauges(queue);
	}

	@Override
	public void acked(String queue, String group, Duration processing) {
		counter("delayqueue.messages.acked", queue, group, null).increment();
		timer("delayqueue.processing", queue, group, "acked").record(processing);
	}

	@Override
	public void retried(String queue, String group, Duration processing, Throwable error) {
		counter("delayqueue.messages.retried", queue, group, null).increment();
		timer("delayqueue.processing", queue, group, "retried").record(processing);
	}

	@Override
	public void dead(String queue, String group, Duration processing, Throwable error) {
		counter("delayqueue.messages.dead-lettered", queue, group, null).increment();
		if (!processing.isZero()) {
			timer("delayqueue.processing", queue, group, "dead").record(processing);
		}
	}

	@Override
	public void expired(String queue, String group, boolean deadLettered) {
		counter("delayqueue.messages.expired", queue, group, deadLettered ? "dead-lettered" : "discarded").increment();
	}

	@Override
	public void rateLimited(String queue, String group, boolean redelayed) {
		counter("delayqueue.messages.rate-limited", queue, group, redelayed ? "redelayed" : "waited").increment();
	}

	@Override
	public void snoozed(String queue, String group, Duration delay) {
		counter("delayqueue.messages.snoozed", queue, group, null).increment();
	}

	@Override
	public void recovered(String queue, String group, int count) {
		counter("delayqueue.messages.recovered", queue, group, null).increment(count);
	}

	@Override
	public void filtered(String queue, String group) {
		counter("delayqueue.messages.filtered", queue, group, null).increment();
	}

	@Override
	public void abandoned(String queue, String group) {
		counter("delayqueue.handlers.abandoned", queue, group, null).increment();
	}

	private void listenerMeters(String queue, String group) {
		for (String name : List.of("delayqueue.messages.delivered", "delayqueue.messages.acked",
				"delayqueue.messages.retried", "delayqueue.messages.dead-lettered", "delayqueue.messages.recovered",
				"delayqueue.messages.snoozed", "delayqueue.messages.filtered", "delayqueue.handlers.abandoned")) {
			counter(name, queue, group, null);
		}
		for (String result : List.of("dead-lettered", "discarded")) {
			counter("delayqueue.messages.expired", queue, group, result);
		}
		for (String result : List.of("waited", "redelayed")) {
			counter("delayqueue.messages.rate-limited", queue, group, result);
		}
		timer("delayqueue.lateness", queue, group, null);
		for (String result : List.of("acked", "retried", "dead")) {
			timer("delayqueue.processing", queue, group, result);
		}
	}

	private Counter counter(String name, String queue, String group, String result) {
		return this.counters.computeIfAbsent(key(name, queue, group, result), (key) -> {
			Counter.Builder builder = Counter.builder(name).tag("queue", queue);
			if (group != null) {
				builder.tag("group", group);
			}
			if (result != null) {
				builder.tag("result", result);
			}
			return builder.description(description(name)).register(this.registry);
		});
	}

	private Timer timer(String name, String queue, String group, String result) {
		return this.timers.computeIfAbsent(key(name, queue, group, result), (key) -> {
			Timer.Builder builder = Timer.builder(name).tag("queue", queue).tag("group", group);
			if (result != null) {
				builder.tag("result", result);
			}
			return builder.description(description(name)).register(this.registry);
		});
	}

	private static String key(String name, String queue, String group, String result) {
		return name + '\0' + queue + '\0' + group + '\0' + result;
	}

	private void gauges(String queue) {
		if (this.gauges.containsKey(queue)) {
			return;
		}
		this.gauges.computeIfAbsent(queue, (name) -> {
			CachedStats stats = new CachedStats(name);
			gauge("delayqueue.messages.scheduled", "Messages waiting for their due time", stats, QueueStats::scheduled);
			gauge("delayqueue.messages.ready", "Due messages not yet read by every group", stats, QueueStats::ready);
			gauge("delayqueue.messages.inflight", "Messages read by a consumer and not yet acknowledged", stats,
					QueueStats::inFlight);
			gauge("delayqueue.messages.dead", "Messages in the dead-letter stream", stats, QueueStats::dead);
			Gauge.builder("delayqueue.queue.paused", stats, (cached) -> {
				QueueControlState controls = cached.controls();
				return (controls != null) ? (controls.paused() ? 1 : 0) : Double.NaN;
			})
				.tag("queue", name)
				.description("1 while the queue is paused (no group starts a handler), else 0")
				.register(this.registry);
			Gauge.builder("delayqueue.groups.paused", stats, (cached) -> {
				QueueControlState controls = cached.controls();
				return (controls != null) ? controls.pausedGroups().size() : Double.NaN;
			})
				.tag("queue", name)
				.description("Consumer groups of the queue paused on their own")
				.register(this.registry);
			return stats;
		});
	}

	private void ownedPartitionGauges(Collection<DelayQueueListenerContainer> containers) {
		Map<List<String>, List<DelayQueueListenerContainer>> byGroup = new LinkedHashMap<>();
		for (DelayQueueListenerContainer container : containers) {
			if (container.settings().exclusive()) {
				byGroup.computeIfAbsent(List.of(container.queue(), container.group()), (key) -> new ArrayList<>())
					.add(container);
			}
		}
		byGroup.forEach((key, group) -> Gauge
			.builder("delayqueue.partitions.owned", group,
					(owners) -> owners.stream().mapToInt((owner) -> owner.partitionsRead().size()).sum())
			.tag("queue", key.get(0))
			.tag("group", key.get(1))
			.description("Partitions of the queue owned by this application's listeners of the group")
			// the list is this gauge's own: held weakly (Micrometer's default), a
			// collection leaves the gauge reading NaN
			.strongReference(true)
			.register(this.registry));
	}

	private void gauge(String name, String description, CachedStats stats, ToDoubleFunction<QueueStats> value) {
		Gauge.builder(name, stats, (cached) -> {
			QueueStats current = cached.get();
			return (current != null) ? value.applyAsDouble(current) : Double.NaN;
		}).tag("queue", stats.queue).description(description).register(this.registry);
	}

	private static String description(String name) {
		return switch (name) {
			case "delayqueue.messages.sent" -> "Messages sent, by outcome";
			case "delayqueue.messages.delivered" -> "Deliveries handed to a handler";
			case "delayqueue.messages.acked" -> "Messages acknowledged after their handler returned";
			case "delayqueue.messages.retried" -> "Failed attempts scheduled for a retry";
			case "delayqueue.messages.dead-lettered" -> "Messages moved to the dead-letter stream";
			case "delayqueue.messages.recovered" -> "Deliveries taken over after their lease expired";
			case "delayqueue.messages.snoozed" ->
				"Messages a handler put back to a later time without using an attempt";
			case "delayqueue.messages.filtered" ->
				"Messages an interceptor filtered out before their handler; acknowledged unhandled";
			case "delayqueue.handlers.abandoned" ->
				"Handlers that ran past the lease renewal limit: their message was given up and their thread replaced";
			case "delayqueue.lateness" -> "Time from a message's due time to its delivery";
			case "delayqueue.processing" -> "Time a handler ran, by outcome";
			default -> name;
		};
	}

	/** One queue's counts, read from Redis at most once per refresh interval. */
	private final class CachedStats {

		private final String queue;

		private QueueStats stats;

		private QueueControlState controls;

		private long readAtNanos;

		private boolean read;

		CachedStats(String queue) {
			this.queue = queue;
		}

		synchronized QueueStats get() {
			long now = System.nanoTime();
			if (this.read && now - this.readAtNanos < MicrometerDelayQueueObserver.this.statsRefresh.toNanos()) {
				return this.stats;
			}
			this.read = true;
			this.readAtNanos = now;
			try {
				DelayQueueAdmin admin = MicrometerDelayQueueObserver.this.engine.getObject().admin();
				this.stats = admin.stats(this.queue);
				this.controls = admin.controls(this.queue);
			}
			catch (RuntimeException ex) {
				logger.debug("Cannot read the counts of queue '" + this.queue + "': " + ex);
				this.stats = null;
				this.controls = null;
			}
			return this.stats;
		}

		/** The queue's pause state, read with its counts. */
		synchronized QueueControlState controls() {
			get();
			return this.controls;
		}

	}

}
