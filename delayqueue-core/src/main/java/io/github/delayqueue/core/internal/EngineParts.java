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

package io.github.delayqueue.core.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.internal.admin.AdminContext;
import io.github.delayqueue.core.internal.control.FlowControls;
import io.github.delayqueue.core.internal.history.HistoryRecorder;
import io.github.delayqueue.core.internal.redis.MasterWatch;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.RedisClock;
import io.github.delayqueue.core.internal.delivery.Heartbeats;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.routing.QueueLayouts;
import io.github.delayqueue.core.internal.runtime.DaemonThreads;
import io.github.delayqueue.core.internal.runtime.EventDispatcher;
import io.github.delayqueue.core.internal.runtime.GuardedObserver;
import io.github.delayqueue.core.internal.runtime.LoopRunner;
import io.github.delayqueue.core.internal.scheduling.Schedulers;
import io.github.delayqueue.core.internal.send.SendContext;

import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The wiring of an engine: its parts built from its {@link EngineSettings}, and the
 * contexts the send path, the admin operations and the listeners take from them. Closing
 * it stops the threads the parts own.
 */
public final class EngineParts implements AutoCloseable {

	/**
	 * How long before a far slot starts an engine that writes none moves it: half the
	 * default {@code compactAfter}.
	 */
	private static final long DEFAULT_FAR_LEAD_MILLIS = 60_000;

	private static final long WORKER_KEEP_ALIVE_SECONDS = 10;

	private final Set<String> fairShare;

	private final ScriptRunner scripts;

	private final HistoryRecorder history;

	private final Executor asyncExecutor;

	private final ExecutorService ownedExecutor;

	/**
	 * The listeners' worker threads: made when a delivery waits and no worker is parked,
	 * let go after {@link #WORKER_KEEP_ALIVE_SECONDS} idle. Unbounded: each listener
	 * bounds its own workers by its concurrency.
	 */
	/** Runs the steps of the listeners' loops that do not block. */
	private final LoopRunner loops = new LoopRunner();

	private final ThreadPoolExecutor workerThreads = new ThreadPoolExecutor(0, Integer.MAX_VALUE,
			WORKER_KEEP_ALIVE_SECONDS, TimeUnit.SECONDS, new SynchronousQueue<>(),
			DaemonThreads.factory("delayqueue-worker-"));

	private final QueueLayouts layouts;

	private final FlowControls controls;

	private final Schedulers schedulers;

	private final SendContext sends;

	private final AdminContext admin;

	private final EngineContext listeners;

	private final MasterWatch masterWatch;

	private final Heartbeats heartbeats;

	private final EventDispatcher events;

	/**
	 * Builds the parts.
	 * @param settings the engine's settings
	 * @param registerDeclared registers the schedules declared on the engine for a queue,
	 * when its scheduler starts
	 */
	public EngineParts(EngineSettings settings, Consumer<String> registerDeclared) {
		String keyPrefix = settings.keyPrefix();
		Function<String, QueueKeys> keys = (queue) -> new QueueKeys(keyPrefix, queue);
		RedisConnectionFactory connectionFactory = settings.connectionFactory();
		this.fairShare = settings.queues().fairShare();
		this.scripts = new ScriptRunner(connectionFactory, settings.operationTimeout());
		MessageCodec codec = settings.codec();
		this.history = settings.history() ? new HistoryRecorder(this.scripts, keys, settings.clock()) : null;
		List<DelayQueueObserver> observers = new ArrayList<>(settings.observers());
		if (this.history != null) {
			observers.add(this.history);
		}
		DelayQueueObserver observer = observers.isEmpty() ? DelayQueueObserver.NOOP : new GuardedObserver(observers);
		this.ownedExecutor = (settings.asyncExecutor() != null) ? null
				: Executors.newFixedThreadPool(4, DaemonThreads.factory("delayqueue-async-"));
		this.asyncExecutor = (this.ownedExecutor != null) ? this.ownedExecutor : settings.asyncExecutor();
		this.layouts = new QueueLayouts(this.scripts, keys, settings.queues().partitions(),
				settings.queues().partitioner(), settings.queues().sizeLimits());
		long compactAfterMillis = settings.compactAfter().toMillis();
		this.schedulers = new Schedulers(this.scripts, connectionFactory, settings.promoteBatchSize(),
				settings.schedulerMaxIdle(), registerDeclared, this.fairShare::contains,
				(compactAfterMillis > 0) ? compactAfterMillis / 2 : DEFAULT_FAR_LEAD_MILLIS, this.loops);
		this.events = settings.eventListeners().isEmpty() ? EventDispatcher.NONE
				: new EventDispatcher(settings.eventListeners(), settings.clock());
		// one subscription for the engine: the wake-ups and the control notifications
		this.controls = new FlowControls(this.scripts, keys, this.schedulers.wakeUps(),
				settings.queues().pausedAtStartup(), settings.queues().rateLimits(),
				settings.queues().concurrencyLimits(), this.events);
		Map<String, Duration> expireAfter = settings.queues().expireAfter();
		this.sends = new SendContext(this.scripts, this.layouts, codec, settings.maxPayloadSize(),
				settings.maxHeadersSize(), expireAfter::get, this.fairShare::contains, settings.sendBatchSize(),
				compactAfterMillis + ":" + settings.compactMinimum(), observer, settings.observations(),
				settings.sendAfterCommit(), this.schedulers::wake);
		this.masterWatch = new MasterWatch(this.scripts);
		this.heartbeats = new Heartbeats(this.scripts, keyPrefix);
		// every engine follows the master, producers too: sends to an old master the
		// Sentinels have not turned into a replica yet are lost with its data. The
		// subscriptions follow it: its wake-ups and control notifications
		this.masterWatch.add(new MasterWatch.Listener() {

			@Override
			public void reconnect() {
				// the control notifications' subscription too: the same one
				EngineParts.this.schedulers.wakeUps().resubscribe();
			}

			@Override
			public void serverChanged() {
			}

		}, true);
		this.admin = new AdminContext(this.scripts, keyPrefix, keys, this.layouts, this.controls, settings.clock());
		this.listeners = new EngineContext(this.scripts, keys, this.layouts::partitions, codec, observer,
				settings.clock(), this.schedulers, (queue) -> {
					this.layouts.register(queue);
					return this.layouts.drainingPartitions(queue);
				}, settings.clientTimeout(), settings.observations(), this.controls, new RedisClock(this.scripts),
				this.fairShare::contains, this.masterWatch, this.events, this.workerThreads, this.loops,
				this.heartbeats);
	}

	public ScriptRunner scripts() {
		return this.scripts;
	}

	public QueueLayouts layouts() {
		return this.layouts;
	}

	public Set<String> fairShare() {
		return this.fairShare;
	}

	public Executor asyncExecutor() {
		return this.asyncExecutor;
	}

	/** What the send path needs. */
	public SendContext sends() {
		return this.sends;
	}

	/** What the admin operations need. */
	public AdminContext admin() {
		return this.admin;
	}

	/** What listener containers and dead-letter consumers need. */
	public EngineContext listeners() {
		return this.listeners;
	}

	/**
	 * Stops the flow controls' watcher, the schedulers, the history and the owned
	 * executor.
	 */
	@Override
	public void close() {
		this.masterWatch.close();
		this.heartbeats.close();
		this.controls.close();
		this.schedulers.close();
		if (this.history != null) {
			this.history.close();
		}
		if (this.ownedExecutor != null) {
			this.ownedExecutor.shutdown();
		}
		// handlers still running finish; no worker starts after
		this.workerThreads.shutdown();
		this.loops.close();
		// last: the containers' stop events reach the listeners
		this.events.close(Duration.ofSeconds(2));
	}

}
