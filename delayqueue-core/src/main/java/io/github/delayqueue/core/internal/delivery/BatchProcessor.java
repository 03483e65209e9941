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

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.delayqueue.core.ConcurrencyLimit;
import io.github.delayqueue.core.listener.BatchFailedException;
import io.github.delayqueue.core.listener.DelayBatchHandler;
import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.core.listener.SnoozeException;
import io.micrometer.observation.Observation;

/**
 * Runs a batch listener's handler: a worker that took a delivery gathers up to
 * {@code batchSize} more waiting ones for at most {@code batchWait}; each is taken up to
 * the handler as one message would be ({@link Processor#begin}: its start permit, its
 * decoding, its expiry); the handler runs once on those that reached it; each is then
 * settled on its own ({@link Processor#finish}): acknowledged, or failed as the handler
 * said. In ordered mode the waiting line gives a worker at most one delivery per
 * partition until it is done, so a batch never holds two messages of one key; failures
 * retried in place run again as a smaller batch.
 */
final class BatchProcessor {

	private static final long GATHER_STEP_MILLIS = 100;

	private final ListenerContext context;

	private final Processor processor;

	private final Holdings holdings;

	private final DelayBatchHandler<Object> handler;

	/** The container's batch interceptors, {@code null} when it has none. */
	private final InterceptorChain interceptors;

	@SuppressWarnings("unchecked")
	BatchProcessor(ListenerContext context, Processor processor, Holdings holdings, DelayBatchHandler<?> handler,
			InterceptorChain interceptors) {
		this.context = context;
		this.interceptors = (interceptors != null && interceptors.hasBatchInterceptors()) ? interceptors : null;
		this.processor = processor;
		this.holdings = holdings;
		this.handler = (DelayBatchHandler<Object>) handler;
	}

	/**
	 * Gathers a batch: the delivery a worker took, then those waiting, until the batch is
	 * full, the batch wait passed, or the worker is to stop.
	 * @param first the delivery the worker took
	 * @param worker the worker
	 * @return the batch, {@code first} first
	 */
	List<Delivery> gather(Delivery first, WorkerPool.Worker worker) {
		int size = this.context.settings().batchSize();
		List<Delivery> batch = new ArrayList<>(Math.min(size, 256));
		batch.add(first);
		long deadline = System.nanoTime() + this.context.settings().batchWait().toNanos();
		while (batch.size() < size) {
			long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
			// in steps, so that a stop does not wait for a long batch wait
			Delivery next = this.holdings.next(Math.max(0, Math.min(left, GATHER_STEP_MILLIS)));
			if (next != null) {
				batch.add(next);
			}
			else if (left <= 0 || !worker.active()) {
				break;
			}
		}
		return withSlots(batch);
	}

	/**
	 * Under a concurrency limit of the whole group each message of a batch takes a slot:
	 * as many as are free for this instance, in one call; the messages beyond them are
	 * put back for a later batch (all but the first when none is free: the first waits
	 * for its slot as a single message does), so that a batch never waits for slots its
	 * own messages hold.
	 * @return the deliveries kept in the batch
	 */
	private List<Delivery> withSlots(List<Delivery> batch) {
		ConcurrencyLimit limit = this.context.gate().concurrencyLimit();
		if (limit == null || limit.perKey() || batch.size() < 2) {
			return batch;
		}
		int taken = Math.max(1, this.processor.slots().takeForBatch(batch, limit));
		for (Delivery delivery : batch.subList(taken, batch.size())) {
			this.holdings.putBack(delivery);
		}
		return new ArrayList<>(batch.subList(0, taken));
	}

	/**
	 * Runs the handler on a batch and settles each of its deliveries.
	 * @param batch the deliveries a worker gathered
	 * @param worker the worker
	 */
	void process(List<Delivery> batch, WorkerPool.Worker worker) {
		try {
			run(batch, worker);
		}
		finally {
			// held from the start until the handler returned (see Processor#process):
			// those not acknowledged freed in one call
			batch.forEach((delivery) -> this.processor.slots().release(delivery, true));
			this.processor.slots().held().flush();
		}
	}

	private void run(List<Delivery> batch, WorkerPool.Worker worker) {
		List<Delivery> running = new ArrayList<>(batch.size());
		List<Object> payloads = new ArrayList<>(batch.size());
		for (Delivery delivery : batch) {
			Object payload = this.processor.begin(delivery, worker);
			if (payload != Processor.SKIPPED) {
				running.add(delivery);
				payloads.add(payload);
			}
		}
		while (!running.isEmpty()) {
			Map<Delivery, Throwable> failures = handle(running, payloads);
			List<Delivery> again = new ArrayList<>();
			List<Object> againPayloads = new ArrayList<>();
			Duration backoff = Duration.ZERO;
			for (int i = 0; i < running.size(); i++) {
				Delivery delivery = running.get(i);
				Throwable failure = failures.get(delivery);
				Duration inPlace = (failure != null) ? this.processor.retries().backoff(delivery, failure) : null;
				if (inPlace == null) {
					this.processor.finish(delivery, failure);
					// in ordered mode its partition's next message may run now
					this.holdings.done(delivery);
				}
				else {
					again.add(delivery);
					againPayloads.add(payloads.get(i));
					backoff = (inPlace.compareTo(backoff) > 0) ? inPlace : backoff;
				}
			}
			if (again.isEmpty()) {
				return;
			}
			running = this.processor.retries().await(again, backoff, worker);
			payloads = new ArrayList<>();
			for (Delivery delivery : running) {
				payloads.add(againPayloads.get(again.indexOf(delivery)));
			}
		}
	}

	/**
	 * Runs the handler once, on the messages the interceptors accept.
	 * @return the deliveries that failed, with why ({@link InterceptorChain#FILTERED} for
	 * those filtered out); empty when the handler returned
	 */
	private Map<Delivery, Throwable> handle(List<Delivery> running, List<Object> payloads) {
		Map<Delivery, Throwable> failed = new IdentityHashMap<>();
		List<Delivery> called = running;
		List<Object> calledPayloads = payloads;
		if (this.interceptors != null) {
			called = new ArrayList<>(running.size());
			calledPayloads = new ArrayList<>(running.size());
			for (int i = 0; i < running.size(); i++) {
				Throwable verdict = this.interceptors.accept(payloads.get(i), running.get(i));
				if (verdict != null) {
					failed.put(running.get(i), verdict);
				}
				else {
					called.add(running.get(i));
					calledPayloads.add(payloads.get(i));
				}
			}
			if (called.isEmpty()) {
				return failed;
			}
		}
		List<Map<String, String>> headers = new ArrayList<>(called.size());
		for (Delivery delivery : called) {
			headers.add(delivery.headers());
		}
		Observation observation = this.context.observations()
			.processBatch(this.context.queue(), this.context.group(), headers)
			.start();
		for (Delivery delivery : called) {
			// the library's lines about each message carry the batch's trace
			delivery.observation = observation;
		}
		Observation.Scope scope = observation.openScope();
		try {
			List<Object> batchPayloads = Collections.unmodifiableList(new ArrayList<>(calledPayloads));
			List<DelayMessageContext> contexts = List.copyOf(called);
			List<Delivery> handed = called;
			Throwable failure = (this.interceptors != null) ? this.interceptors.runBatch(batchPayloads, contexts,
					() -> handleNow(handed, batchPayloads, contexts)) : call(handed, batchPayloads, contexts);
			if (failure == null) {
				return failed;
			}
			Map<Delivery, Throwable> thrown = (failure instanceof BatchFailedException named) ? failed(called, named)
					: all(called, failure);
			// a snooze is an outcome the handler chose, not an error of its attempt
			if (thrown.values().stream().anyMatch((cause) -> !(cause instanceof SnoozeException))) {
				observation.error(failure);
			}
			failed.putAll(thrown);
			return failed;
		}
		finally {
			scope.close();
			observation.stop();
			// the handler's interrupt must not end the worker or fail the acks
			Thread.interrupted();
		}
	}

	private Throwable call(List<Delivery> called, List<Object> payloads, List<DelayMessageContext> contexts) {
		try {
			handleNow(called, payloads, contexts);
			return null;
		}
		catch (Throwable ex) {
			return ex;
		}
	}

	/**
	 * Calls the handler, each message counted as delivered (those filtered out never
	 * are); the messages the watchdog gave up while it ran did not succeed (see
	 * {@link Processor#givenUp}).
	 */
	private void handleNow(List<Delivery> called, List<Object> payloads, List<DelayMessageContext> contexts)
			throws Exception {
		for (Delivery delivery : called) {
			this.processor.delivered(delivery);
		}
		this.handler.handle(payloads, contexts);
		Map<Integer, Throwable> givenUp = null;
		for (int i = 0; i < called.size(); i++) {
			if (called.get(i).isSettled()) {
				givenUp = (givenUp != null) ? givenUp : new HashMap<>();
				givenUp.put(i, this.processor.givenUpFailure(called.get(i)));
			}
		}
		if (givenUp != null) {
			throw new BatchFailedException(givenUp);
		}
	}

	/**
	 * The messages a {@link BatchFailedException} names; every message of the batch when
	 * it names none, or one outside the batch.
	 */
	private Map<Delivery, Throwable> failed(List<Delivery> running, BatchFailedException ex) {
		Map<Integer, Throwable> named = ex.getFailures();
		if (named == null || named.isEmpty()) {
			return all(running, new IllegalStateException(
					"The batch handler threw a BatchFailedException naming no message; the whole batch failed", ex));
		}
		Map<Delivery, Throwable> failed = new IdentityHashMap<>();
		for (Map.Entry<Integer, Throwable> failure : named.entrySet()) {
			Integer index = failure.getKey();
			if (index == null || index < 0 || index >= running.size()) {
				return all(running,
						new IllegalStateException("The batch handler named message " + index
								+ " as failed, outside the " + "batch of " + running.size() + " (indexes 0 to "
								+ (running.size() - 1) + "); the whole batch failed", ex));
			}
			Throwable cause = failure.getValue();
			failed.put(running.get(index), (cause != null) ? cause : ex);
		}
		return failed;
	}

	private static Map<Delivery, Throwable> all(List<Delivery> running, Throwable failure) {
		Map<Delivery, Throwable> failed = new IdentityHashMap<>();
		for (Delivery delivery : running) {
			failed.put(delivery, failure);
		}
		return failed;
	}

}
