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

/**
 * What the JSON codecs share: {@code byte[]} and {@code String} payloads passed through
 * as raw bytes, and one prepared reader per declared type, built once.
 *
 * @param <R> the mapper's reader type
 */
abstract class ReaderCachingJsonCodec<R> implements MessageCodec {

	private final Map<Type, R> readers = new ConcurrentHashMap<>();

	@Override
	public byte[] encode(Object payload) {
		byte[] raw = RawMessageCodec.encodeRaw(payload);
		return (raw != null) ? raw : write(payload);
	}

	@Override
	public Object decode(byte[] bytes, Type type) {
		Object raw = RawMessageCodec.decodeRaw(bytes, type);
		return (raw != null) ? raw : read(reader(type), bytes);
	}

	@Override
	public void prepare(Type type) {
		if (RawMessageCodec.decodeRaw(new byte[0], type) == null) {
			reader(type);
		}
	}

	private R reader(Type type) {
		// a reader resolves the root deserializer once, not on every message
		return this.readers.computeIfAbsent(type, this::newReader);
	}

	/**
	 * Writes a payload that is not raw.
	 * @param payload the payload
	 * @return its JSON
	 * @throws IllegalArgumentException when it cannot be written
	 */
	abstract byte[] write(Object payload);

	/**
	 * Builds the reader of a declared type.
	 * @param type the type
	 * @return its reader
	 */
	abstract R newReader(Type type);

	/**
	 * Reads JSON with a type's reader.
	 * @param reader the reader
	 * @param bytes the JSON
	 * @return the value
	 * @throws MessageDecodingException when the bytes are not a value of the type
	 */
	abstract Object read(R reader, byte[] bytes);

	/** The failure to write a payload, with the mapper's reason. */
	static IllegalArgumentException unencodable(Object payload, String reason, Throwable cause) {
		return new IllegalArgumentException(
				"Cannot encode payload of type " + payload.getClass().getName() + " as JSON: " + reason, cause);
	}

	/** The failure to read a payload as a type, with the mapper's reason. */
	static MessageDecodingException undecodable(String type, String reason, Throwable cause) {
		return new MessageDecodingException("Cannot decode payload as " + type + ": " + reason, cause);
	}

}
