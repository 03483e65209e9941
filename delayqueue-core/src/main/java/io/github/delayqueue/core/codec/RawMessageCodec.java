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
import java.nio.charset.StandardCharsets;

/**
 * A codec for {@code byte[]} and {@code String} payloads only (UTF-8), used when Jackson
 * is not on the class path.
 */
public class RawMessageCodec implements MessageCodec {

	@Override
	public byte[] encode(Object payload) {
		byte[] raw = encodeRaw(payload);
		if (raw != null) {
			return raw;
		}
		throw new IllegalArgumentException("Cannot encode payload of type " + payload.getClass().getName()
				+ ": only byte[] and String are supported without Jackson; add tools.jackson.core:jackson-databind "
				+ "or configure a MessageCodec");
	}

	@Override
	public Object decode(byte[] bytes, Type type) {
		if (type == Object.class) {
			return new String(bytes, StandardCharsets.UTF_8);
		}
		Object raw = decodeRaw(bytes, type);
		if (raw != null) {
			return raw;
		}
		throw new MessageDecodingException("Cannot decode payload as " + type.getTypeName()
				+ ": only byte[] and String are supported without Jackson", null);
	}

	/**
	 * Encodes {@code byte[]} (as is) and {@code String} (UTF-8) payloads.
	 * @param payload the payload
	 * @return the bytes, or {@code null} for any other type
	 */
	static byte[] encodeRaw(Object payload) {
		if (payload instanceof byte[] bytes) {
			return bytes;
		}
		if (payload instanceof String string) {
			return string.getBytes(StandardCharsets.UTF_8);
		}
		return null;
	}

	/**
	 * Decodes to {@code byte[]} (as is) and {@code String} (UTF-8).
	 * @param bytes the bytes
	 * @param type the declared type
	 * @return the value, or {@code null} for any other type
	 */
	static Object decodeRaw(byte[] bytes, Type type) {
		if (type == byte[].class) {
			return bytes;
		}
		if (type == String.class) {
			return new String(bytes, StandardCharsets.UTF_8);
		}
		return null;
	}

}
