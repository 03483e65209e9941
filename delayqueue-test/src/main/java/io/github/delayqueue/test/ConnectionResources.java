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

import org.junit.jupiter.api.extension.ParameterContext;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * What a test extension started for a test class: the Redis it runs (a server or a
 * cluster), a connection factory for it and, on demand, a template; closed together.
 *
 * @param <R> the type of the Redis started
 */
final class ConnectionResources<R extends AutoCloseable> implements AutoCloseable {

	final R redis;

	final LettuceConnectionFactory connectionFactory;

	private StringRedisTemplate template;

	ConnectionResources(R redis, LettuceConnectionFactory connectionFactory) {
		this.redis = redis;
		this.connectionFactory = connectionFactory;
	}

	/**
	 * Whether a parameter asks for one of the resources.
	 * @param parameterContext the parameter
	 * @param redisType the type of the Redis started
	 * @return whether it can be resolved
	 */
	static boolean supports(ParameterContext parameterContext, Class<?> redisType) {
		Class<?> type = parameterContext.getParameter().getType();
		return type == redisType || type == RedisConnectionFactory.class || type == LettuceConnectionFactory.class
				|| type == StringRedisTemplate.class;
	}

	/**
	 * Resolves a parameter that {@link #supports} accepted.
	 * @param parameterContext the parameter
	 * @return the Redis, the template or the connection factory
	 */
	Object resolve(ParameterContext parameterContext) {
		Class<?> type = parameterContext.getParameter().getType();
		if (type.isInstance(this.redis)) {
			return this.redis;
		}
		if (type == StringRedisTemplate.class) {
			return template();
		}
		return this.connectionFactory;
	}

	synchronized StringRedisTemplate template() {
		if (this.template == null) {
			this.template = new StringRedisTemplate(this.connectionFactory);
		}
		return this.template;
	}

	@Override
	public void close() {
		try {
			this.connectionFactory.destroy();
		}
		finally {
			try {
				this.redis.close();
			}
			catch (Exception ex) {
				throw new IllegalStateException("Could not stop " + this.redis, ex);
			}
		}
	}

}
