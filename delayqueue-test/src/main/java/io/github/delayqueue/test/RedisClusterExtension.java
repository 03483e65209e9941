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

import java.time.Duration;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * JUnit Jupiter extension that starts a {@link RedisCluster} per test class and injects
 * it, or a Spring Data Redis cluster connection factory or template pointing at it, into
 * test parameters. Use it through {@link RedisClusterTest}.
 */
public class RedisClusterExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
		.create(RedisClusterExtension.class);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

	@Override
	public void beforeAll(ExtensionContext context) {
		if (context.getStore(NAMESPACE).get(Resources.class, Resources.class) != null) {
			return; // a @Nested class shares the cluster of its enclosing class
		}
		RedisClusterTest settings = context.getTestClass()
			.flatMap((type) -> AnnotationSupport.findAnnotation(type, RedisClusterTest.class))
			.orElseThrow(() -> new IllegalStateException("RedisClusterExtension needs @RedisClusterTest"));
		RedisCluster cluster = RedisCluster.start(settings.masters(), settings.replicasPerMaster());
		context.getStore(NAMESPACE).put(Resources.class, new Resources(cluster));
	}

	@Override
	public void afterAll(ExtensionContext context) {
		Resources own = context.getStore(NAMESPACE).remove(Resources.class, Resources.class);
		if (own != null) {
			own.close();
		}
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		Class<?> type = parameterContext.getParameter().getType();
		return type == RedisCluster.class || type == RedisConnectionFactory.class
				|| type == LettuceConnectionFactory.class || type == StringRedisTemplate.class;
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		Resources current = extensionContext.getStore(NAMESPACE).get(Resources.class, Resources.class);
		if (current == null) {
			throw new ParameterResolutionException("No Redis Cluster for " + parameterContext.getParameter()
					+ ": the cluster is started in beforeAll of a class annotated with @RedisClusterTest");
		}
		Class<?> type = parameterContext.getParameter().getType();
		if (type == RedisCluster.class) {
			return current.cluster;
		}
		if (type == StringRedisTemplate.class) {
			return current.template();
		}
		return current.connectionFactory;
	}

	private static final class Resources implements AutoCloseable {

		final RedisCluster cluster;

		final LettuceConnectionFactory connectionFactory;

		private StringRedisTemplate template;

		Resources(RedisCluster cluster) {
			this.cluster = cluster;
			this.connectionFactory = cluster.connectionFactory(COMMAND_TIMEOUT);
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
				this.cluster.close();
			}
		}

	}

}
