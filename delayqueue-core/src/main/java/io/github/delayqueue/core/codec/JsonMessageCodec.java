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

import java.lang.reflect.Type;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * The default codec: JSON through Jackson 3 to the declared type, with {@code byte[]} and
 * {@code String} payloads passed through as raw bytes (UTF-8 for strings). Default typing
 * is never enabled: a payload naming a class cannot make the codec instantiate it.
 */
public class JsonMessageCodec extends ReaderCachingJsonCodec<ObjectReader> {

	private final JsonMapper mapper;

	/**
	 * Creates a codec with a default {@link JsonMapper}.
	 */
	public JsonMessageCodec() {
		this(JsonMapper.builder().build());
	}

	/**
	 * Creates a codec with the application's mapper.
	 * @param mapper the mapper
	 */
	public JsonMessageCodec(JsonMapper mapper) {
		this.mapper = mapper;
	}

	@Override
	byte[] write(Object payload) {
		try {
			return this.mapper.writeValueAsBytes(payload);
		}
		catch (JacksonException ex) {
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
		catch (JacksonException ex) {
			throw undecodable(reader.getValueType().toCanonical(), ex.getOriginalMessage(), ex);
		}
	}

}
