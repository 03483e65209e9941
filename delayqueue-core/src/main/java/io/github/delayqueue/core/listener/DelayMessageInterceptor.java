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

/**
 * Runs around every call of a listener's handler (one message at a time) and of a
 * dead-letter handler, e.g. to put a tenant id from a header into the MDC, time work per
 * tenant, skip the messages of a retired tenant, or translate exceptions.
 * <p>
 * A container's interceptors run in their order ({@link org.springframework.core.Ordered}
 * or {@link org.springframework.core.annotation.Order @Order}, lowest first): each one's
 * {@link #before} in that order, then the handler, then, in the reverse order,
 * {@link #onSuccess} or {@link #onFailure} for those whose {@code before} returned
 * {@code true}, and {@link #after} for every one whose {@code before} was called (the one
 * that filtered the message out or threw included): what a {@code before} sets up, its
 * {@code after} can always undo. All run on the handler's thread, inside the attempt's
 * observation (its trace is current).
 * <p>
 * A method that throws fails the attempt as a handler failure would: the message is
 * retried per the retry policy or dead-lettered; a {@link SnoozeException} snoozes it. An
 * exception thrown after another one of the same attempt is added to it as suppressed.
 * Nothing an interceptor throws is swallowed, and none loses a message.
 */
public interface DelayMessageInterceptor {

	/**
	 * Called before the handler.
	 * @param payload the decoded payload
	 * @param context the delivery: queue, group, id, attempt, headers, due time
	 * @return {@code true} to go on; {@code false} to filter the message out: the handler
	 * is not called, the message is acknowledged and counted as filtered
	 * ({@code DelayQueueObserver.filtered}, the queue's history, not {@code delivered}),
	 * and this interceptor and those before it get {@link #after}
	 * @throws Exception to fail the attempt without calling the handler (this interceptor
	 * still gets {@link #after})
	 */
	default boolean before(Object payload, DelayMessageContext context) throws Exception {
		return true;
	}

	/**
	 * Called when the handler returned.
	 * @param payload the payload
	 * @param context the delivery
	 * @throws Exception to fail the attempt after all (the message is retried)
	 */
	default void onSuccess(Object payload, DelayMessageContext context) throws Exception {
	}

	/**
	 * Called when the handler, or a later interceptor's {@link #before}, threw; also when
	 * the handler returned after the container gave it up (it ran past the lease renewal
	 * limit, and its message was retried or dead-lettered meanwhile): then with a
	 * {@link HandlerTimeoutException}, never {@link #onSuccess}.
	 * @param payload the payload
	 * @param context the delivery
	 * @param failure what was thrown
	 * @throws Exception added to the failure as suppressed
	 */
	default void onFailure(Object payload, DelayMessageContext context, Throwable failure) throws Exception {
	}

	/**
	 * Called last, whatever happened, for every interceptor whose {@link #before} was
	 * called (the one that filtered the message out or threw included), e.g. to clear the
	 * MDC.
	 * @param payload the payload
	 * @param context the delivery
	 * @throws Exception to fail the attempt (when it had succeeded, the message is
	 * retried)
	 */
	default void after(Object payload, DelayMessageContext context) throws Exception {
	}

}
