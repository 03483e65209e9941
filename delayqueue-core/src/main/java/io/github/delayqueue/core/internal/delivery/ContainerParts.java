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

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.delayqueue.core.internal.EngineContext;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.listener.DelayBatchHandler;
import io.github.delayqueue.core.listener.DelayMessageHandler;
import io.github.delayqueue.core.listener.ListenerSettings;

/**
 * What a listener container runs: its {@link ListenerRuntime}, and its share of the
 * engine's services (the queue's scheduler of each partition, the queue's pause state,
 * the master watch). Starts them together, undoing everything when one cannot start;
 * stops them together; adds the old partitions that a change of the partition count
 * leaves to drain; and tells which part is not served.
 */
public final class ContainerParts {

	private static final Log logger = LogFactory.getLog(ContainerParts.class);

	private final EngineContext engine;

	/** Partition 0's context. */
	private final ListenerContext context;

	private final ListenerRuntime runtime;

	/**
	 * The keys of the queue's partitions, partition 0 first, then old partitions that
	 * drain after a change of the partition count.
	 */
	private final List<QueueKeys> partitions = new CopyOnWriteArrayList<>();

	/** Guards adding partitions against a stop. */
	private final Object layoutLock = new Object();

	/** Whether old partitions may be added: between start and stop. */
	private boolean layoutOpen;

	/**
	 * @param engine the engine's context
	 * @param contexts the contexts of the queue's partitions, partition 0 first
	 * @param payloadType the type payloads are decoded to
	 * @param handler the handler of one message at a time, or {@code null}
	 * @param batchHandler the batch handler, or {@code null}
	 * @param interceptors the interceptors around the handler
	 */
	public ContainerParts(EngineContext engine, List<ListenerContext> contexts, Type payloadType,
			DelayMessageHandler<?> handler, DelayBatchHandler<?> batchHandler, InterceptorChain interceptors) {
		this.engine = engine;
		this.context = contexts.get(0);
		contexts.forEach((partition) -> this.partitions.add(partition.keys()));
		// each partition's reader checks the queue's partition count when it connects
		this.runtime = new ListenerRuntime(contexts, payloadType, handler, batchHandler, interceptors,
				this::checkLayout, engine.workerThreads(), engine.loops(), engine.heartbeats());
	}

	/**
	 * The contexts of a listener's partitions, partition 0 first, as the queue has them
	 * now. A poll timeout at or above the client's command timeout is lowered, and said.
	 * @param engine the engine's context
	 * @param queue the queue
	 * @param group the consumer group
	 * @param consumer the consumer's name
	 * @param settings the listener's settings
	 * @return the contexts
	 */
	public static List<ListenerContext> contexts(EngineContext engine, String queue, String group, String consumer,
			ListenerSettings settings) {
		QueueKeys keys = engine.keys().apply(queue);
		Duration readBlock = engine.readBlock(settings.pollTimeout());
		if (!readBlock.equals(settings.pollTimeout())) {
			logger.info("The poll timeout of queue '" + keys.queue() + "', group '" + group + "' ("
					+ settings.pollTimeout() + ") is lowered to " + readBlock
					+ ", below the Redis client's command timeout (" + engine.clientTimeout() + ")");
		}
		ListenerContext context = new ListenerContext(engine.scripts(), keys, group, consumer, settings,
				engine.observer(), engine.codec(), engine.clock(), readBlock, engine.observations(),
				engine.controls().gate(keys.queue(), group), engine.redisClock(), engine.fairShare().test(keys.queue()),
				engine.events(), engine.schedulers());
		int count = engine.partitions().apply(queue);
		List<ListenerContext> contexts = new ArrayList<>();
		for (int partition = 0; partition < count; partition++) {
			contexts.add((partition == 0) ? context : context.forPartition(keys.partition(partition, count)));
		}
		return contexts;
	}

	/**
	 * @return the runtime
	 */
	public ListenerRuntime runtime() {
		return this.runtime;
	}

	/**
	 * Checks the queue's partition count against Redis (once per engine), and reads the
	 * old partitions that a change of the count left to drain too.
	 */
	private void checkLayout() {
		List<QueueKeys> draining = this.engine.registry().apply(this.context.queue());
		if (draining.isEmpty() || this.partitions.containsAll(draining)) {
			return;
		}
		synchronized (this.layoutLock) {
			if (!this.layoutOpen) {
				return;
			}
			for (QueueKeys old : draining) {
				if (!this.partitions.contains(old)) {
					logger.info("Reading old partition " + old.partition() + " ({" + old.tag() + "}) of "
							+ this.context.label() + " until it drains: the queue's partition count is changing");
					this.partitions.add(old);
					this.engine.schedulers().join(old, this.context.group());
					this.runtime.addPartition(this.context.forPartition(old));
				}
			}
		}
	}

	/**
	 * Starts every part; undoes what it did when one cannot start (the engine is closed,
	 * the executor does not run the workers).
	 */
	public void start() {
		List<QueueKeys> joined = new ArrayList<>();
		boolean watched = false;
		try {
			for (QueueKeys partition : this.partitions) {
				this.engine.schedulers().join(partition, this.context.group());
				joined.add(partition);
			}
			setLayoutOpen(true);
			// the pause state first: a paused queue starts no handler
			this.engine.controls().watch(this.context.queue(), this.context.group());
			watched = true;
			this.runtime.readWhile(this.engine.masterWatch()::readsAllowed);
			this.runtime.start();
		}
		catch (RuntimeException | Error ex) {
			// not running: undo what stop() would, the parts that started included
			if (watched) {
				try {
					this.runtime.stop();
				}
				catch (RuntimeException | Error stopFailed) {
					ex.addSuppressed(stopFailed);
				}
				this.engine.controls().unwatch(this.context.queue(), this.context.group());
			}
			setLayoutOpen(false);
			joined.forEach((partition) -> this.engine.schedulers().leave(partition, this.context.group()));
			throw ex;
		}
		// through a failover: its connections follow the master, its recent
		// acknowledgements go to the new one
		this.engine.masterWatch().add(this.runtime, true);
	}

	/**
	 * Stops every part (see {@link ListenerRuntime#stop()}).
	 * @return whether every running handler finished within the shutdown timeout
	 */
	public boolean stop() {
		this.engine.masterWatch().remove(this.runtime);
		setLayoutOpen(false);
		try {
			return this.runtime.stop();
		}
		finally {
			this.partitions.forEach((partition) -> this.engine.schedulers().leave(partition, this.context.group()));
			this.engine.controls().unwatch(this.context.queue(), this.context.group());
		}
	}

	private void setLayoutOpen(boolean open) {
		synchronized (this.layoutLock) {
			this.layoutOpen = open;
		}
	}

	/**
	 * Tells which part of a running container is not served: see
	 * {@link ListenerRuntime#problem()}, {@code Schedulers#problem} and
	 * {@code FlowControls#problem}.
	 * @return the first problem found, {@code null} when every part is served
	 */
	public String problem() {
		String problem = this.runtime.problem();
		for (int i = 0; problem == null && i < this.partitions.size(); i++) {
			problem = this.engine.schedulers().problem(this.partitions.get(i));
		}
		return (problem != null) ? problem : this.engine.controls().problem(this.context.queue());
	}

}
