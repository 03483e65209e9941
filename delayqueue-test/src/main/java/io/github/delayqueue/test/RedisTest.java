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
 * Gives the test class a fresh {@link RedisServer} of its own, started before the first
 * test and stopped after the last. Test constructors, lifecycle and test methods can
 * declare parameters of type {@link RedisServer},
 * {@link org.springframework.data.redis.connection.RedisConnectionFactory},
 * {@link org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory} or
 * {@link org.springframework.data.redis.core.StringRedisTemplate}; all point at that
 * server.
 * <p>
 * For options beyond these attributes, register {@link RedisServerExtension} with a
 * {@link RedisServerBuilder} instead.
 *
 * @see RedisServerExtension
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(RedisServerExtension.class)
public @interface RedisTest {

	/**
	 * The append-only file's fsync policy; {@code ""} (the default) leaves AOF off.
	 * @return {@code "always"}, {@code "everysec"}, {@code "no"} or {@code ""}
	 */
	String appendFsync() default "";

	/**
	 * The {@code maxmemory} limit, e.g. {@code "20mb"}; {@code ""} for none.
	 * @return the limit
	 */
	String maxMemory() default "";

	/**
	 * The {@code maxmemory-policy}; {@code ""} keeps Redis's default
	 * ({@code noeviction}).
	 * @return the policy
	 */
	String maxMemoryPolicy() default "";

	/**
	 * The password of the default user; {@code ""} for none.
	 * @return the password
	 */
	String password() default "";

	/**
	 * Whether {@code DEBUG} may be called from local connections.
	 * @return whether to enable it
	 */
	boolean enableDebugCommand() default false;

}
