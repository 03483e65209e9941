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

package io.github.delayqueue.core.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.github.delayqueue.core.aot.DelayListenerReflectiveProcessor;

import org.springframework.aot.hint.annotation.Reflective;

/**
 * Marks a bean method as the handler of a delay queue for a consumer group. Returning
 * normally acknowledges the message; throwing fails the attempt, which is retried with
 * backoff and, after the last attempt, dead-lettered. Delivery is at-least-once: make the
 * method idempotent (e.g. keyed by
 * {@link io.github.delayqueue.core.listener.DelayMessageContext#id()}).
 * <p>
 * Parameters: at most one payload parameter, decoded by the engine's codec to its
 * declared (possibly generic) type; and any of a
 * {@link io.github.delayqueue.core.listener.DelayMessageContext}, {@link DelayHeader}
 * {@code String}s and a {@link DelayHeaders} {@code Map<String, String>}. A batch
 * listener ({@link #batch()}) takes a {@code List<T>} of payloads and a
 * {@code List<DelayMessageContext>} instead.
 * <p>
 * Every attribute but {@code queue} is optional; unset ones come from per-queue
 * configuration, then from the
 * {@link io.github.delayqueue.core.config.DelayListenerContainerFactory}. String
 * attributes accept {@code ${…}} placeholders and {@code #{…}} expressions. Durations are
 * written as {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}, {@code 7d}, ISO-8601
 * ({@code PT10S}) or a number of milliseconds.
 * <p>
 * A misconfigured listener fails the application's start-up with a message naming the
 * method. Processed by the post-processor that {@link EnableDelayListeners} (or Spring
 * Boot's auto-configuration) registers.
 */
@Reflective(DelayListenerReflectiveProcessor.class)
@Target({ ElementType.METHOD, ElementType.ANNOTATION_TYPE })
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DelayListener {

	/**
	 * The id of the listener's container in the
	 * {@link io.github.delayqueue.core.config.DelayListenerEndpointRegistry} (default:
	 * {@code beanName.methodName}).
	 * @return the id
	 */
	String id() default "";

	/**
	 * The queue to consume.
	 * @return the queue name
	 */
	String queue();

	/**
	 * The consumer group: each group receives every message once (default:
	 * {@code spring.application.name}, else {@code default}).
	 * @return the group name
	 */
	String group() default "";

	/**
	 * How many messages are handled at once.
	 * @return a number, at least 1
	 */
	String concurrency() default "";

	/**
	 * The most attempts per message, the first included.
	 * @return a number, at least 1
	 */
	String maxAttempts() default "";

	/**
	 * The delay before the first retry.
	 * @return a duration
	 */
	String initialBackoff() default "";

	/**
	 * The growth factor of the retry delay.
	 * @return a number, at least 1
	 */
	String backoffMultiplier() default "";

	/**
	 * The largest retry delay.
	 * @return a duration
	 */
	String maxBackoff() default "";

	/**
	 * Exception types that are dead-lettered at once, never retried (a subclass matches
	 * too); when set, they replace those of the container factory and of the properties
	 * ({@code delayqueue.queues.<name>.retry.non-retryable}).
	 * @return the types
	 */
	Class<? extends Throwable>[] nonRetryable() default {};

	/**
	 * How long a delivery's lease lasts before another consumer may take it over (the
	 * lease is renewed while the method runs).
	 * @return a duration
	 */
	String visibilityTimeout() default "";

	/**
	 * Whether the messages of one key (one partition of the queue) are handled one at a
	 * time, in due order; each partition is then owned by one instance of the group at a
	 * time. A failed message holds back the messages behind it while it is retried.
	 * @return {@code true} or {@code false}
	 */
	String ordered() default "";

	/**
	 * Whether the method handles batches: it takes the payloads as a {@code List<T>}
	 * (each decoded to {@code T}), the deliveries as a {@code List<DelayMessageContext>}
	 * in the same order, or both; it names failed messages with
	 * {@link io.github.delayqueue.core.listener.BatchFailedException}. Explicit, because
	 * one message's payload may itself be a list.
	 * @return {@code true} or {@code false} (default)
	 */
	String batch() default "";

	/**
	 * For a batch listener, the most messages per call (default 100).
	 * @return a number from 1 to 10,000
	 */
	String batchSize() default "";

	/**
	 * For a batch listener, how long a worker holding fewer than the batch size waits for
	 * more messages before it calls the method (default: it does not wait).
	 * @return a duration from 0 to 1 minute
	 */
	String batchWait() default "";

	/**
	 * Whether the listener starts with the application context.
	 * @return {@code true} or {@code false}
	 */
	String autoStartup() default "";

	/**
	 * The bean names of this listener's own interceptors
	 * ({@link io.github.delayqueue.core.listener.DelayMessageInterceptor}s, or
	 * {@link io.github.delayqueue.core.listener.DelayBatchInterceptor}s for a batch
	 * listener). They run with the interceptors shared by every listener (the beans of
	 * the interceptor type that no listener names), by their order, after the shared ones
	 * at equal order. A bean named here is not shared.
	 * @return bean names
	 */
	String[] interceptors() default {};

	/**
	 * The bean name of the
	 * {@link io.github.delayqueue.core.config.DelayListenerContainerFactory} to use
	 * (default: {@code delayListenerContainerFactory}).
	 * @return a bean name
	 */
	String containerFactory() default "";

}
