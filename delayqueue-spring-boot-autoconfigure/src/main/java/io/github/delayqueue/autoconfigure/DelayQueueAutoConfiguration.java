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

package io.github.delayqueue.autoconfigure;

import java.util.Set;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.codec.JsonMessageCodec;
import io.github.delayqueue.core.codec.MessageCodec;
import io.github.delayqueue.core.listener.RetryPolicy;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration
 * Auto-configuration} for delayqueue: the engine on the application's
 * {@link RedisConnectionFactory}, the {@link DelayQueueTemplate}, the payload codec (JSON
 * through the application's {@link JsonMapper} when there is one) and the default
 * {@link RetryPolicy}. Every bean backs off when the application defines its own.
 */
@AutoConfiguration(afterName = "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration")
@ConditionalOnClass(DelayQueueEngine.class)
@ConditionalOnBean(RedisConnectionFactory.class)
@EnableConfigurationProperties(DelayQueueProperties.class)
public final class DelayQueueAutoConfiguration {

	@Bean(destroyMethod = "close")
	@ConditionalOnMissingBean
	DelayQueueEngine delayQueueEngine(RedisConnectionFactory connectionFactory, DelayQueueProperties properties,
			ObjectProvider<MessageCodec> codec, ObjectProvider<DelayQueueObserver> observers) {
		DelayQueueEngine.Builder builder = DelayQueueEngine.builder(connectionFactory)
			.keyPrefix(properties.getKeyPrefix())
			.maxPayloadSize((int) properties.getMaxPayloadSize().toBytes())
			.maxHeadersSize((int) properties.getMaxHeadersSize().toBytes())
			.schedulerMaxIdle(properties.getScheduler().getMaxIdle());
		codec.ifAvailable(builder::codec);
		observers.orderedStream().forEach(builder::observer);
		return builder.build();
	}

	@Bean
	@ConditionalOnMissingBean
	DelayQueueTemplate delayQueueTemplate(DelayQueueEngine engine) {
		return engine.template();
	}

	@Bean
	@ConditionalOnMissingBean
	RetryPolicy delayQueueRetryPolicy(DelayQueueProperties properties) {
		DelayQueueProperties.Retry retry = properties.getRetry();
		return new RetryPolicy(retry.getMaxAttempts(), retry.getInitialBackoff(), retry.getMultiplier(),
				retry.getMaxBackoff(), retry.getJitter(), Set.of());
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(JsonMapper.class)
	static class JsonCodecConfiguration {

		@Bean
		@ConditionalOnMissingBean
		MessageCodec delayQueueMessageCodec(ObjectProvider<JsonMapper> jsonMapper) {
			return new JsonMessageCodec(jsonMapper.getIfAvailable(() -> JsonMapper.builder().build()));
		}

	}

}
