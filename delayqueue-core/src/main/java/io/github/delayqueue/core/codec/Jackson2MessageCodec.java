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

package io.github.delayqueue.core.codec;

import java.io.IOException;
import java.lang.reflect.Type;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;

/**
 * JSON through an application's Jackson 2 {@link ObjectMapper} (its modules, mix-ins and
 * annotations of {@code com.fasterxml.jackson.databind}), for a domain model still
 * serialized with Jackson 2, for example through Spring Boot's
 * {@code spring-boot-jackson2} bridge. Otherwise as {@link JsonMessageCodec}, the
 * default: {@code byte[]} and {@code String} payloads pass through as raw bytes, the
 * target type always comes from the listener's declaration, and a mapper with polymorphic
 * default typing is refused (a payload must never name the class it becomes). The JSON it
 * writes and reads is the same as the Jackson 3 codec's for the same model, so instances
 * on either codec share a queue.
 */
public class Jackson2MessageCodec extends ReaderCachingJsonCodec<ObjectReader> {

	private final ObjectMapper mapper;

	/**
	 * Creates a codec with a default {@link ObjectMapper}.
	 */
	public Jackson2MessageCodec() {
		this(new ObjectMapper());
	}

	/**
	 * Creates a codec with the application's mapper.
	 * @param mapper the mapper
	 * @throws IllegalArgumentException when the mapper has default typing enabled
	 */
	public Jackson2MessageCodec(ObjectMapper mapper) {
		if (mapper == null) {
			throw new IllegalArgumentException("The ObjectMapper must not be null");
		}
		if (mapper.getDeserializationConfig().getDefaultTyper(null) != null) {
			throw new IllegalArgumentException("The ObjectMapper has default typing enabled (activateDefaultTyping):"
					+ " a payload could then name the class it becomes; give the codec a mapper without it");
		}
		this.mapper = mapper;
	}

	@Override
	byte[] write(Object payload) {
		try {
			return this.mapper.writeValueAsBytes(payload);
		}
		catch (JsonProcessingException ex) {
			throw unencodable(payload, ex.getOriginalMessage(), ex);
		}
	}

	@Override
	ObjectReader newReader(Type type) {
		return this.mapper.readerFor(this.mapper.getTypeFactory().constructType(type));
	}

	@Override
	Object read(ObjectReader reader, byte[] bytes) {
		try {
			return reader.readValue(bytes);
		}
		catch (IOException ex) {
			String reason = (ex instanceof JsonProcessingException json) ? json.getOriginalMessage() : ex.getMessage();
			throw undecodable(reader.getValueType().toCanonical(), reason, ex);
		}
	}

}
