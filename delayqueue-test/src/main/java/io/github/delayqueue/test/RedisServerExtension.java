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
import java.util.Locale;
import java.util.Optional;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestWatcher;
import org.junit.platform.commons.support.AnnotationSupport;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * JUnit Jupiter extension that starts a fresh {@link RedisServer} per test class and
 * injects it, or a Spring Data Redis connection factory or template pointing at it, into
 * test parameters. When a test fails, the server's log is printed to {@code System.err}.
 * <p>
 * Use it through {@link RedisTest}, or register it with a builder for full control:
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * static RedisServerExtension redis = new RedisServerExtension(
 *         RedisServer.builder().appendOnly(RedisServer.AppendFsync.ALWAYS));
 * </pre>
 */
public class RedisServerExtension implements BeforeAllCallback, AfterAllCallback, ParameterResolver, TestWatcher {

	private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace
		.create(RedisServerExtension.class);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(10);

	private final RedisServerBuilder builder;

	private volatile ConnectionResources<RedisServer> resources;

	/**
	 * Creates the extension used by {@link RedisTest}: the server is configured from the
	 * annotation.
	 */
	public RedisServerExtension() {
		this(null);
	}

	/**
	 * Creates an extension whose servers are built by the given builder.
	 * @param builder the builder, or {@code null} to configure from {@link RedisTest}
	 */
	public RedisServerExtension(RedisServerBuilder builder) {
		this.builder = builder;
	}

	/**
	 * Returns the server of the running test class (for extensions registered in a static
	 * field).
	 * @return the server
	 */
	public RedisServer server() {
		return requireResources().redis;
	}

	/**
	 * Returns the connection factory of the running test class.
	 * @return the connection factory
	 */
	public LettuceConnectionFactory connectionFactory() {
		return requireResources().connectionFactory;
	}

	private ConnectionResources<RedisServer> requireResources() {
		ConnectionResources<RedisServer> current = this.resources;
		if (current == null) {
			throw new IllegalStateException("The Redis server is started before the first test of the class");
		}
		return current;
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		if (resources(context) != null) {
			return; // a @Nested class shares the server of its enclosing class
		}
		RedisServerBuilder serverBuilder = (this.builder != null) ? this.builder : builderFor(context);
		RedisServer server = serverBuilder.start();
		ConnectionResources<RedisServer> started = new ConnectionResources<>(server, connectionFactory(server));
		context.getStore(NAMESPACE).put(ConnectionResources.class, started);
		this.resources = started;
	}

	@Override
	public void afterAll(ExtensionContext context) {
		ConnectionResources<RedisServer> own = resources(context);
		context.getStore(NAMESPACE).remove(ConnectionResources.class);
		if (own != null) {
			own.close();
			if (this.resources == own) {
				this.resources = null;
			}
		}
	}

	private static RedisServerBuilder builderFor(ExtensionContext context) {
		RedisServerBuilder builder = RedisServer.builder();
		Optional<RedisTest> annotation = context.getTestClass()
			.flatMap((type) -> AnnotationSupport.findAnnotation(type, RedisTest.class));
		annotation.ifPresent((redisTest) -> {
			if (!redisTest.appendFsync().isEmpty()) {
				builder.appendOnly(RedisServer.AppendFsync.valueOf(redisTest.appendFsync().toUpperCase(Locale.ROOT)));
			}
			if (!redisTest.maxMemory().isEmpty()) {
				builder.maxMemory(redisTest.maxMemory());
			}
			if (!redisTest.maxMemoryPolicy().isEmpty()) {
				builder.maxMemoryPolicy(redisTest.maxMemoryPolicy());
			}
			if (!redisTest.password().isEmpty()) {
				builder.password(redisTest.password());
			}
			if (redisTest.enableDebugCommand()) {
				builder.enableDebugCommand();
			}
		});
		return builder;
	}

	@SuppressWarnings("unchecked")
	private static ConnectionResources<RedisServer> resources(ExtensionContext context) {
		return context.getStore(NAMESPACE).get(ConnectionResources.class, ConnectionResources.class);
	}

	@Override
	public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		return ConnectionResources.supports(parameterContext, RedisServer.class);
	}

	@Override
	public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
		ConnectionResources<RedisServer> current = resources(extensionContext);
		if (current == null) {
			throw new ParameterResolutionException("No Redis server for " + parameterContext.getParameter()
					+ ": the server is started in beforeAll of a class annotated with @RedisTest");
		}
		return current.resolve(parameterContext);
	}

	@Override
	public void testFailed(ExtensionContext context, Throwable cause) {
		ConnectionResources<RedisServer> current = resources(context);
		if (current != null) {
			System.err.printf("%n----- %s log (test %s failed) -----%n%s%n----- end of redis-server log -----%n",
					current.redis.describe(), context.getDisplayName(), tail(current.redis.log(), 200));
		}
	}

	private static String tail(String log, int lines) {
		String[] all = log.split("\n");
		int from = Math.max(0, all.length - lines);
		return String.join("\n", java.util.Arrays.copyOfRange(all, from, all.length));
	}

	/**
	 * Creates a Lettuce connection factory for a server, with a 10s command timeout; the
	 * caller closes it with {@code destroy()}.
	 * @param server the server
	 * @return a started connection factory
	 */
	public static LettuceConnectionFactory connectionFactory(RedisServer server) {
		return connectionFactory(server, COMMAND_TIMEOUT);
	}

	/**
	 * Creates a Lettuce connection factory for a server; the caller closes it with
	 * {@code destroy()}.
	 * @param server the server
	 * @param commandTimeout how long a command may take before it fails
	 * @return a started connection factory
	 */
	public static LettuceConnectionFactory connectionFactory(RedisServer server, Duration commandTimeout) {
		LettuceClientConfiguration client = LettuceClientConfiguration.builder()
			.commandTimeout(commandTimeout)
			.shutdownTimeout(Duration.ZERO)
			.build();
		LettuceConnectionFactory factory = new LettuceConnectionFactory(server.standaloneConfiguration(), client);
		factory.afterPropertiesSet();
		factory.start();
		return factory;
	}

}
