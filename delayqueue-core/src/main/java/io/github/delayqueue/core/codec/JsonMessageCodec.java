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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * The default codec: JSON through Jackson 3 to the declared type, with {@code byte[]} and
 * {@code String} payloads passed through as raw bytes (UTF-8 for strings). Default typing
 * is never enabled: a payload naming a class cannot make the codec instantiate it.
 */
public class JsonMessageCodec implements MessageCodec {

	private final JsonMapper mapper;

	private final Map<Type, ObjectReader> readers = new ConcurrentHashMap<>();

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
	public byte[] encode(Object payload) {
		byte[] raw = RawMessageCodec.encodeRaw(payload);
		if (raw != null) {
			return raw;
		}
		try {
			return this.mapper.writeValueAsBytes(payload);
		}
		catch (JacksonException ex) {
			throw new IllegalArgumentException("Cannot encode payload of type " + payload.getClass().getName()
					+ " as JSON: " + ex.getOriginalMessage(), ex);
		}
	}

	@Override
	public Object decode(byte[] bytes, Type type) {
		Object raw = RawMessageCodec.decodeRaw(bytes, type);
		if (raw != null) {
			return raw;
		}
		ObjectReader reader = reader(type);
		try {
			return reader.readValue(bytes);
		}
		catch (JacksonException ex) {
			throw new MessageDecodingException(
					"Cannot decode payload as " + reader.getValueType().toCanonical() + ": " + ex.getOriginalMessage(),
					ex);
		}
	}

	@Override
	public void prepare(Type type) {
		if (RawMessageCodec.decodeRaw(new byte[0], type) == null) {
			reader(type);
		}
	}

	private ObjectReader reader(Type type) {
		// an ObjectReader resolves the root deserializer once, not on every message
		return this.readers.computeIfAbsent(type,
				(key) -> this.mapper.readerFor(this.mapper.getTypeFactory().constructType(key)));
	}

}
