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

import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.delayqueue.core.codec.Jackson2MessageCodec;
import io.github.delayqueue.core.codec.MessageCodec;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The payload codec on the application's Jackson 2 {@link ObjectMapper}. A class of its
 * own, loaded only when Jackson 2 is chosen: it is optional.
 */
final class Jackson2Codec {

	static final String OBJECT_MAPPER = "com.fasterxml.jackson.databind.ObjectMapper";

	private Jackson2Codec() {
	}

	/**
	 * Whether the application defines a Jackson 2 mapper (Jackson 2 on the classpath, and
	 * one {@code ObjectMapper} bean).
	 */
	static boolean applicationDefinesOne(ListableBeanFactory beanFactory, ClassLoader classLoader) {
		return ClassUtils.isPresent(OBJECT_MAPPER, classLoader)
				&& beanFactory.getBeanNamesForType(ObjectMapper.class, false, false).length > 0;
	}

	/**
	 * The codec on the application's only (or primary) {@code ObjectMapper}, else on a
	 * default one.
	 * @throws IllegalStateException when Jackson 2 is not on the classpath
	 */
	static MessageCodec create(ListableBeanFactory beanFactory, ClassLoader classLoader) {
		if (!ClassUtils.isPresent(OBJECT_MAPPER, classLoader)) {
			throw new IllegalStateException("delayqueue.json-mapper=jackson2 needs Jackson 2 on the classpath"
					+ " (com.fasterxml.jackson.core:jackson-databind, e.g. through org.springframework.boot:"
					+ "spring-boot-jackson2); add it, or remove the property to use Jackson 3");
		}
		ObjectMapper mapper = beanFactory.getBeanProvider(ObjectMapper.class).getIfUnique(ObjectMapper::new);
		return new Jackson2MessageCodec(mapper);
	}

}
