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

import java.util.List;

/**
 * Runs around every call of a batch listener's handler ({@link DelayBatchHandler}), as a
 * {@link DelayMessageInterceptor} does around a handler of one message. Before the call,
 * {@link #accept} is asked of each message, so that one message of a batch can be
 * filtered out; then {@link #before} with the batch, the handler, and, in reverse order,
 * {@link #onSuccess} or {@link #onFailure} for those whose {@code before} returned and
 * {@link #after} for every one whose {@code before} was called (the one that threw
 * included).
 * <p>
 * A method that throws fails every message of the batch, as a handler that throws does
 * (except {@link #accept}, which fails its one message); a handler that failed some
 * messages ({@link BatchFailedException}) reaches {@link #onFailure} with that exception,
 * and only those messages fail.
 */
public interface DelayBatchInterceptor {

	/**
	 * Asked of each message before the batch is handed to the handler.
	 * @param payload the message's payload
	 * @param context the message's delivery
	 * @return {@code false} to filter the message out of the batch: it is acknowledged
	 * and counted as filtered
	 * @throws Exception to fail this message's attempt
	 */
	default boolean accept(Object payload, DelayMessageContext context) throws Exception {
		return true;
	}

	/**
	 * Called before the handler, with the messages that were not filtered out.
	 * @param payloads the payloads
	 * @param contexts the deliveries, in the same order
	 * @throws Exception to fail the batch without calling the handler
	 */
	default void before(List<?> payloads, List<DelayMessageContext> contexts) throws Exception {
	}

	/**
	 * Called when the handler returned.
	 * @param payloads the payloads
	 * @param contexts the deliveries
	 * @throws Exception to fail the batch after all
	 */
	default void onSuccess(List<?> payloads, List<DelayMessageContext> contexts) throws Exception {
	}

	/**
	 * Called when the handler, or a later interceptor's {@link #before}, threw; also when
	 * the handler returned after the container gave some of its messages up (past the
	 * lease renewal limit): then with a {@link BatchFailedException} naming those, each
	 * with a {@link HandlerTimeoutException}.
	 * @param payloads the payloads
	 * @param contexts the deliveries
	 * @param failure what was thrown (a {@link BatchFailedException} when the handler
	 * failed some messages)
	 * @throws Exception added to the failure as suppressed
	 */
	default void onFailure(List<?> payloads, List<DelayMessageContext> contexts, Throwable failure) throws Exception {
	}

	/**
	 * Called last, whatever happened, for every interceptor whose {@link #before} was
	 * called (the one that threw included).
	 * @param payloads the payloads
	 * @param contexts the deliveries
	 * @throws Exception to fail the batch
	 */
	default void after(List<?> payloads, List<DelayMessageContext> contexts) throws Exception {
	}

}
