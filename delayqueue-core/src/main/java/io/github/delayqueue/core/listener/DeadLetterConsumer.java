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

package io.github.delayqueue.core.listener;

import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.internal.EngineContext;
import io.github.delayqueue.core.internal.delivery.InterceptorChain;
import io.github.delayqueue.core.internal.redis.QueueKeys;
import io.github.delayqueue.core.internal.redis.QueueNames;
import io.github.delayqueue.core.internal.redis.ScriptRunner;
import io.github.delayqueue.core.internal.redis.Scripts;
import io.github.delayqueue.core.internal.redis.WireFormat;
import io.github.delayqueue.core.internal.runtime.Failures;
import io.micrometer.observation.Observation;
import io.github.delayqueue.core.internal.runtime.SupervisedLoop;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.connection.stream.RecordId;

/**
 * Hands a queue's dead letters of one consumer group to the application, as Spring
 * Kafka's {@code @DltHandler} does: a consumer group of its own on the queue's
 * dead-letter stream ({@code dead-letters:<group>:<handler id>}), shared by the
 * application's instances, so each dead letter of {@code group} is handled once per
 * handler, also those dead-lettered while the application was down (within the
 * retention). The stream is polled every {@link #POLL_INTERVAL}; a dead letter a crashed
 * instance read is taken over after {@link #TAKE_OVER_AFTER}. A handler that throws is
 * logged; the dead letter stays in the stream (for replay or a human) and is not offered
 * again. Handling does not remove dead letters.
 */
public final class DeadLetterConsumer implements SmartLifecycle {

	/** How often the dead-letter stream is polled. */
	public static final Duration POLL_INTERVAL = Duration.ofSeconds(1);

	/** How long a dead letter read by another instance waits before it is taken over. */
	public static final Duration TAKE_OVER_AFTER = Duration.ofMinutes(1);

	private static final Log logger = LogFactory.getLog(DeadLetterConsumer.class);

	private static final int BATCH = 32;

	private final EngineContext engine;

	private final String queue;

	private final String group;

	private final Type payloadType;

	private final DeadLetterHandler<Object> handler;

	private final String consumer;

	/** The consumer group on the dead-letter stream: one per group and handler. */
	private final String streamGroup;

	private final SupervisedLoop loop;

	private final AtomicLong handled = new AtomicLong();

	private final List<DelayMessageInterceptor> interceptors = new ArrayList<>();

	/** The interceptors' chain, set at start; {@code null} when there is none. */
	private volatile InterceptorChain chain;

	@SuppressWarnings("unchecked")
	DeadLetterConsumer(EngineContext engine, String queue, String group, String handlerId, Type payloadType,
			DeadLetterHandler<?> handler, String consumer) {
		this.engine = engine;
		this.queue = QueueNames.queue(queue);
		this.group = QueueNames.group(group);
		this.payloadType = Objects.requireNonNull(payloadType, "Payload type must not be null");
		this.handler = (DeadLetterHandler<Object>) Objects.requireNonNull(handler, "Handler must not be null");
		this.consumer = consumer;
		this.streamGroup = "dead-letters:" + this.group + ":" + QueueNames.group(handlerId);
		this.loop = new SupervisedLoop("dead-letter handler of queue '" + this.queue + "', group '" + this.group + "'",
				"delayqueue-" + this.queue + "-" + this.group + "-dead-letters", this::poll);
	}

	/**
	 * Creates a consumer; {@code DelayQueueEngine.deadLetterConsumer} supplies the
	 * engine.
	 * @param engine the engine's context
	 * @param queue the queue
	 * @param group the consumer group whose dead letters to handle
	 * @param handlerId names the handler: the instances of an application that run the
	 * same handler share its consumer group on the dead-letter stream, other handlers
	 * have their own
	 * @param payloadType the type payloads are decoded to
	 * @param handler the handler
	 * @param <T> the payload type
	 * @return the consumer, not started
	 */
	public static <T> DeadLetterConsumer create(EngineContext engine, String queue, String group, String handlerId,
			Type payloadType, DeadLetterHandler<T> handler) {
		return new DeadLetterConsumer(engine, queue, group, handlerId, payloadType, handler,
				QueueNames.defaultConsumer());
	}

	private long poll() {
		int read = 0;
		for (QueueKeys keys : partitions()) {
			read += poll(keys);
		}
		return (read > 0) ? 0 : TimeUnit.MILLISECONDS.toNanos(POLL_INTERVAL.toMillis());
	}

	/**
	 * The queue's partitions, old ones draining after a change of the count included
	 * (registering the queue and checking its count against Redis once).
	 */
	private List<QueueKeys> partitions() {
		List<QueueKeys> draining = this.engine.registry().apply(this.queue);
		QueueKeys first = this.engine.keys().apply(this.queue);
		int count = this.engine.partitions().apply(this.queue);
		List<QueueKeys> all = new ArrayList<>();
		for (int partition = 0; partition < count; partition++) {
			all.add(first.partition(partition, count));
		}
		all.addAll(draining);
		return all;
	}

	private int poll(QueueKeys keys) {
		List<Object> entries = this.engine.scripts()
			.run(Scripts.DEAD_READ, List.of(keys.dead()), this.streamGroup, this.consumer, BATCH,
					TAKE_OVER_AFTER.toMillis());
		for (Object entry : entries) {
			List<?> fields = (List<?>) entry;
			String entryId = ScriptRunner.asString(fields.get(0));
			DeadLetter letter = WireFormat.deadLetter(this.queue, keys.partition(), fields);
			if (this.group.equals(letter.group())) {
				handle(letter);
			}
			this.engine.scripts()
				.execute((connection) -> connection.streamCommands()
					.xAck(QueueKeys.bytes(keys.dead()), this.streamGroup, RecordId.of(entryId)));
		}
		return entries.size();
	}

	private void handle(DeadLetter letter) {
		Object payload = null;
		try {
			payload = this.engine.codec().decode(letter.payload(), this.payloadType);
		}
		catch (RuntimeException ex) {
			logger.warn("Cannot decode dead letter " + letter.entryId() + " of queue '" + this.queue + "' as "
					+ this.payloadType.getTypeName() + " (" + Failures.describe(ex)
					+ "); handing it over with a null payload, the raw bytes in DeadLetter.payload(): "
					+ new String(letter.payload(), 0, Math.min(letter.payload().length, 200), StandardCharsets.UTF_8));
		}
		// in the trace of the message's send: the handler's lines, and the line below
		Observation observation = this.engine.observations()
			.deadLetter(this.queue, this.group, letter.messageId(), letter.attempts(), letter.headers())
			.start();
		Observation.Scope scope = observation.openScope();
		try {
			Object decoded = payload;
			InterceptorChain interceptors = this.chain;
			Throwable failure = (interceptors != null)
					? interceptors.run(decoded, new DeadLetterContext(letter),
							() -> this.handler.handle(decoded, letter))
					: InterceptorChain.call(() -> this.handler.handle(decoded, letter));
			if (failure == InterceptorChain.FILTERED) {
				logger.debug("Dead letter " + letter.entryId() + " of queue '" + this.queue
						+ "' was filtered out by an interceptor; not handed to the handler");
			}
			else if (failure != null) {
				throw failure;
			}
			else {
				this.handled.incrementAndGet();
			}
		}
		catch (Throwable ex) {
			observation.error(ex);
			Failures.logError(logger,
					"The dead-letter handler of queue '" + this.queue + "', group '" + this.group
							+ "' failed on dead letter " + letter.entryId() + " (message '" + letter.messageId()
							+ "'); it stays in the dead-letter stream and is not offered again",
					ex);
		}
		finally {
			scope.close();
			observation.stop();
		}
	}

	/**
	 * Adds an interceptor around the handler, before the consumer starts: it is given a
	 * {@link DeadLetterContext}; one that filters a dead letter out skips the handler
	 * (the dead letter stays in the stream, as after any handling), one that throws is
	 * logged as a handler failure is.
	 * @param interceptor the interceptor
	 * @return this consumer
	 * @throws IllegalStateException when the consumer runs
	 */
	public DeadLetterConsumer addInterceptor(DelayMessageInterceptor interceptor) {
		Objects.requireNonNull(interceptor, "Interceptor must not be null");
		synchronized (this.interceptors) {
			if (isRunning()) {
				throw new IllegalStateException("Add interceptors to the dead-letter consumer of queue '" + this.queue
						+ "', group '" + this.group + "' before it starts");
			}
			this.interceptors.add(interceptor);
			this.chain = InterceptorChain.of(this.interceptors, List.of());
		}
		return this;
	}

	/**
	 * @return how many dead letters the handler took without throwing since the start
	 */
	public long handledCount() {
		return this.handled.get();
	}

	@Override
	public void start() {
		this.loop.start();
	}

	@Override
	public void stop() {
		this.loop.stop(Duration.ofSeconds(10));
	}

	@Override
	public boolean isRunning() {
		return this.loop.isRunning();
	}

	/**
	 * @return whether the polling loop runs and its last step succeeded
	 */
	public boolean isServing() {
		return this.loop.isServing();
	}

	@Override
	public int getPhase() {
		return Integer.MAX_VALUE - 100;
	}

}
