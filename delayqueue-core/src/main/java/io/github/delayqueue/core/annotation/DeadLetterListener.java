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
 * Marks a method that handles a queue's dead letters in the application, as Spring
 * Kafka's {@code @DltHandler}: each dead letter of the group (the application's listener
 * group by default) is handed to it once per application, through a consumer group of its
 * own on the dead-letter stream
 * ({@link io.github.delayqueue.core.listener.DeadLetterConsumer}). The method takes the
 * payload (decoded to the parameter's type), the
 * {@link io.github.delayqueue.core.DeadLetter} (id, headers, attempts, last failure,
 * times), or both, in any order.
 *
 * <pre class="code">
 * &#64;DeadLetterListener(queue = "payments")
 * void onDeadPayment(Payment payment, DeadLetter letter) {
 *     alerts.raise(payment.orderId(), letter.errorMessage(), letter.attempts());
 * }
 * </pre>
 *
 * A method that throws is logged; the dead letter stays in the dead-letter stream (for
 * replay or a human) and is not offered again. Handling a dead letter does not remove it.
 */
@Reflective(DelayListenerReflectiveProcessor.class)
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface DeadLetterListener {

	/**
	 * The queue whose dead letters to handle (placeholders resolved).
	 * @return the queue
	 */
	String queue();

	/**
	 * The consumer group whose dead letters to handle (placeholders resolved); default:
	 * {@code spring.application.name}, else {@code default}, as for
	 * {@code @DelayListener}.
	 * @return the group
	 */
	String group() default "";

	/**
	 * The bean names of this listener's own
	 * {@link io.github.delayqueue.core.listener.DelayMessageInterceptor}s; they run after
	 * the shared ones (the beans of that type no listener names). A bean named here is
	 * not shared.
	 * @return bean names
	 */
	String[] interceptors() default {};

}
