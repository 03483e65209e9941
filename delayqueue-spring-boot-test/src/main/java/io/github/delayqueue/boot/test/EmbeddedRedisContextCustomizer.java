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

import java.util.Map;

import io.github.delayqueue.test.RedisServer;

import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Starts the Redis server of an {@link EmbeddedRedis} test context and registers it, its
 * address properties and a {@link DelayQueueTestSupport}.
 */
class EmbeddedRedisContextCustomizer implements ContextCustomizer {

	static final String SERVER_BEAN_NAME = "embeddedRedisServer";

	static final String TEST_SUPPORT_BEAN_NAME = "delayQueueTestSupport";

	@Override
	public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration config) {
		// not killed by the JVM's exit on its own: the hook below stops the context
		// first,
		// so that its listeners stop while Redis still answers (else each waits out the
		// client's command timeout)
		RedisServer server = RedisServer.builder().killedOnJvmExit(false).start();
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			try {
				context.close();
			}
			finally {
				server.close();
			}
		}, "delayqueue-embedded-redis-shutdown"));
		context.getEnvironment()
			.getPropertySources()
			.addFirst(new MapPropertySource("embeddedRedis",
					Map.of("spring.data.redis.host", server.host(), "spring.data.redis.port", server.port())));
		ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
		beanFactory.registerSingleton(SERVER_BEAN_NAME, server);
		// destroyed with the singletons: after the listeners stopped (a lifecycle phase)
		((DefaultSingletonBeanRegistry) beanFactory).registerDisposableBean(SERVER_BEAN_NAME, server::close);
		if (beanFactory instanceof BeanDefinitionRegistry registry
				&& !registry.containsBeanDefinition(TEST_SUPPORT_BEAN_NAME)) {
			RootBeanDefinition support = new RootBeanDefinition(DelayQueueTestSupport.class);
			support.setAutowireMode(RootBeanDefinition.AUTOWIRE_CONSTRUCTOR);
			// a context without a DelayQueueEngine fails only if it asks for it
			support.setLazyInit(true);
			registry.registerBeanDefinition(TEST_SUPPORT_BEAN_NAME, support);
		}
	}

	@Override
	public boolean equals(Object other) {
		// one server per cached context: every annotated configuration is alike
		return other != null && other.getClass() == getClass();
	}

	@Override
	public int hashCode() {
		return getClass().hashCode();
	}

}
