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
		if (resources(context) != null) {
			return; // a @Nested class shares the cluster of its enclosing class
		}
		RedisClusterTest settings = context.getTestClass()
			.flatMap((type) -> AnnotationSupport.findAnnotation(type, RedisClusterTest.class))
			.orElseThrow(() -> new IllegalStateException("RedisClusterExtension needs @RedisClusterTest"));
		RedisCluster cluster = RedisCluster.start(settings.masters(), settings.replicasPerMaster());
		context.getStore(NAMESPACE)
			.put(ConnectionResources.class,
					new ConnectionResources<>(cluster, cluster.connectionFactory(COMMAND_TIMEOUT)));
	}

	@Override
	public void afterAll(ExtensionContext context) {
		ConnectionResources<RedisCluster> own = resources(context);
		context.getStore(NAMESPACE).remove(ConnectionResources.class);
		if (own != null) {
			own.close();
		}
	}

	@SuppressWarnings("unchecked")
	private static ConnectionResources<RedisCluster> resources(ExtensionContext context) {
		return context.getStore(NAMESPACE).get(ConnectionResources.class, ConnectionResources.class);
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return ConnectionResources.supports(parameterContext, RedisCluster.class);
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		ConnectionResources<RedisCluster> current = resources(extensionContext);
		if (current == null) {
			throw new ParameterResolutionException("No Redis Cluster for " + parameterContext.getParameter()
					+ ": the cluster is started in beforeAll of a class annotated with @RedisClusterTest");
		}
		return current.resolve(parameterContext);
	}

}
