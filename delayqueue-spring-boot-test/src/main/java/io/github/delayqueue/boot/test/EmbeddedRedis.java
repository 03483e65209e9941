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

package io.github.delayqueue.boot.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Starts a real Redis server of its own for a Spring test context (a {@code redis-server}
 * on a free loopback port, see {@link io.github.delayqueue.test.RedisServer}), points
 * {@code spring.data.redis.host} and {@code spring.data.redis.port} at it, and stops it
 * when the context closes, after the listeners. The server is a bean
 * ({@link io.github.delayqueue.test.RedisServer}), and so is a
 * {@link DelayQueueTestSupport} to make scheduled messages due now and await their
 * handling. Contexts of test classes with the same configuration share one server, as
 * they share the context.
 *
 * <pre class="code">
 * &#64;SpringBootTest
 * &#64;EmbeddedRedis
 * class OrderTimeoutTests {
 *
 *     &#64;Autowired DelayQueueTestSupport delayQueues;
 *
 *     &#64;Test
 *     void cancelsUnpaidOrders() {
 *         orders.create("42");                            // schedules a timeout in 30 minutes
 *         delayQueues.fastForward("order-timeout");       // due now
 *         delayQueues.awaitHandled("order-timeout");      // the listener ran
 *         assertThat(orders.status("42")).isEqualTo(CANCELLED);
 *     }
 * }
 * </pre>
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
public @interface EmbeddedRedis {

}
