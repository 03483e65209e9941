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

package io.github.delayqueue.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives the test class a {@link RedisCluster} of its own, started before the first test
 * and stopped after the last. Test constructors, lifecycle and test methods can declare
 * parameters of type {@link RedisCluster},
 * {@link org.springframework.data.redis.connection.RedisConnectionFactory},
 * {@link org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory} or
 * {@link org.springframework.data.redis.core.StringRedisTemplate}; the factories are
 * cluster factories with {@link RedisCluster#fastFailoverOptions()}.
 * <p>
 * The same test class body can run on a single server and on a cluster: write the tests
 * in an abstract class that takes a {@code RedisConnectionFactory}, and extend it once
 * with {@link RedisTest} and once with {@code RedisClusterTest}.
 *
 * @see RedisClusterExtension
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisClusterExtension.class)
public @interface RedisClusterTest {

	/**
	 * How many masters share the slots.
	 * @return the number of masters, at least 1
	 */
	int masters() default 3;

	/**
	 * How many replicas each master gets.
	 * @return the number of replicas per master
	 */
	int replicasPerMaster() default 0;

}
