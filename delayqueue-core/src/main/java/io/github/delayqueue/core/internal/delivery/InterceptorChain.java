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

import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.listener.DelayBatchInterceptor;
import io.github.delayqueue.core.listener.DelayMessageContext;
import io.github.delayqueue.core.listener.DelayMessageInterceptor;

import org.springframework.core.annotation.AnnotationAwareOrderComparator;

/**
 * Runs a container's interceptors around its handler (see {@link DelayMessageInterceptor}
 * and {@link DelayBatchInterceptor}): {@code before} in order, the handler, then, in
 * reverse order, {@code onSuccess} or {@code onFailure} for those whose {@code before}
 * returned and {@code after} for every one whose {@code before} was called (the one that
 * filtered the message out or threw included), so that what a {@code before} set up is
 * always undone. Every exception is kept: the first is the attempt's failure, later ones
 * are added to it as suppressed.
 */
public final class InterceptorChain {

	/**
	 * What {@link #run} returns when an interceptor filtered the message out: it is
	 * acknowledged as filtered.
	 */
	public static final Throwable FILTERED = new Filtered();

	private final DelayMessageInterceptor[] messages;

	private final DelayBatchInterceptor[] batches;

	private InterceptorChain(List<DelayMessageInterceptor> messages, List<DelayBatchInterceptor> batches) {
		this.messages = sorted(messages).toArray(new DelayMessageInterceptor[0]);
		this.batches = sorted(batches).toArray(new DelayBatchInterceptor[0]);
	}

	/**
	 * @param messages the interceptors of a handler of one message at a time (or of a
	 * dead-letter handler)
	 * @param batches the interceptors of a batch handler
	 * @return the chain, {@code null} when there is none: the handler is called directly
	 */
	public static InterceptorChain of(List<? extends DelayMessageInterceptor> messages,
			List<? extends DelayBatchInterceptor> batches) {
		if (messages.isEmpty() && batches.isEmpty()) {
			return null;
		}
		return new InterceptorChain(List.copyOf(messages), List.copyOf(batches));
	}

	/** In their order, lowest first; equal orders keep the order they were added in. */
	private static <T> List<T> sorted(List<T> interceptors) {
		List<T> sorted = new ArrayList<>(interceptors);
		AnnotationAwareOrderComparator.sort(sorted);
		return sorted;
	}

	/**
	 * @return whether a batch handler has interceptors
	 */
	boolean hasBatchInterceptors() {
		return this.batches.length > 0;
	}

	/**
	 * Runs the chain around one handler call.
	 * @param payload the payload
	 * @param context the delivery
	 * @param handler calls the handler
	 * @return {@code null} when everything returned, {@link #FILTERED}, or the failure
	 */
	public Throwable run(Object payload, DelayMessageContext context, Call handler) {
		Throwable failure = null;
		boolean filtered = false;
		// those whose before returned true; the one after them, if any, filtered or
		// threw: it gets after only
		int entered = 0;
		try {
			while (entered < this.messages.length) {
				if (!this.messages[entered].before(payload, context)) {
					filtered = true;
					break;
				}
				entered++;
			}
		}
		catch (Throwable ex) {
			failure = ex;
		}
		if (!filtered && failure == null) {
			failure = call(handler);
		}
		else {
			failure = after(this.messages[entered], payload, context, failure);
			// a filter whose after threw failed the attempt: the others are told
			filtered = filtered && failure == null;
		}
		for (int i = entered - 1; i >= 0; i--) {
			DelayMessageInterceptor interceptor = this.messages[i];
			if (!filtered) {
				try {
					if (failure == null) {
						interceptor.onSuccess(payload, context);
					}
					else {
						interceptor.onFailure(payload, context, failure);
					}
				}
				catch (Throwable ex) {
					failure = add(failure, ex);
				}
			}
			try {
				interceptor.after(payload, context);
			}
			catch (Throwable ex) {
				failure = add(failure, ex);
			}
		}
		return (failure == null && filtered) ? FILTERED : failure;
	}

	/** The {@code after} of the interceptor that filtered the message out or threw. */
	private static Throwable after(DelayMessageInterceptor interceptor, Object payload, DelayMessageContext context,
			Throwable failure) {
		try {
			interceptor.after(payload, context);
			return failure;
		}
		catch (Throwable ex) {
			return add(failure, ex);
		}
	}

	/**
	 * Asks each batch interceptor whether a message goes into the batch.
	 * @return {@code null} when it goes, {@link #FILTERED}, or the failure of its attempt
	 */
	Throwable accept(Object payload, DelayMessageContext context) {
		try {
			for (DelayBatchInterceptor interceptor : this.batches) {
				if (!interceptor.accept(payload, context)) {
					return FILTERED;
				}
			}
			return null;
		}
		catch (Throwable ex) {
			return ex;
		}
	}

	/**
	 * Runs the batch interceptors around one batch handler call.
	 * @param payloads the payloads
	 * @param contexts the deliveries
	 * @param handler calls the handler
	 * @return {@code null} when everything returned, or the failure of the batch
	 */
	Throwable runBatch(List<?> payloads, List<DelayMessageContext> contexts, Call handler) {
		Throwable failure = null;
		int entered = 0;
		try {
			while (entered < this.batches.length) {
				this.batches[entered].before(payloads, contexts);
				entered++;
			}
		}
		catch (Throwable ex) {
			failure = ex;
		}
		if (failure == null) {
			failure = call(handler);
		}
		else {
			// the one whose before threw gets after, not onFailure
			try {
				this.batches[entered].after(payloads, contexts);
			}
			catch (Throwable ex) {
				failure = add(failure, ex);
			}
		}
		for (int i = entered - 1; i >= 0; i--) {
			DelayBatchInterceptor interceptor = this.batches[i];
			try {
				if (failure == null) {
					interceptor.onSuccess(payloads, contexts);
				}
				else {
					interceptor.onFailure(payloads, contexts, failure);
				}
			}
			catch (Throwable ex) {
				failure = add(failure, ex);
			}
			try {
				interceptor.after(payloads, contexts);
			}
			catch (Throwable ex) {
				failure = add(failure, ex);
			}
		}
		return failure;
	}

	/**
	 * Runs a call.
	 * @param call the call
	 * @return what it threw, {@code null} when it returned
	 */
	public static Throwable call(Call call) {
		try {
			call.run();
			return null;
		}
		catch (Throwable ex) {
			return ex;
		}
	}

	/** The first failure stays the attempt's; a later one is added to it. */
	private static Throwable add(Throwable failure, Throwable later) {
		if (failure == null) {
			return later;
		}
		if (later != null && later != failure) {
			failure.addSuppressed(later);
		}
		return failure;
	}

	/** A call that may throw anything. */
	@FunctionalInterface
	public interface Call {

		/**
		 * @throws Exception what the call threw
		 */
		void run() throws Exception;

	}

	/** The outcome of a filtered message; never thrown. */
	private static final class Filtered extends RuntimeException {

		private static final long serialVersionUID = 1L;

		Filtered() {
			super("filtered by an interceptor", null, false, false);
		}

	}

}
