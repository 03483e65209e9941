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

/**
 * Turns payloads into bytes and back. Implementations must never instantiate a type named
 * by the bytes themselves (no Java serialization, no polymorphic default typing): the
 * target type always comes from the listener's declaration.
 */
public interface MessageCodec {

	/**
	 * Encodes a payload.
	 * @param payload the payload, never {@code null}
	 * @return its bytes
	 * @throws IllegalArgumentException when the payload cannot be encoded
	 */
	byte[] encode(Object payload);

	/**
	 * Decodes a payload to the declared type.
	 * @param bytes the bytes
	 * @param type the declared type
	 * @return the payload
	 * @throws MessageDecodingException when the bytes are not a valid value of the type
	 */
	Object decode(byte[] bytes, Type type);

	/**
	 * Prepares decoding to a type ahead of the first message (e.g. builds deserializers),
	 * so that the first delivery is not slower than the rest. Called when a listener
	 * starts.
	 * @param type the declared type
	 */
	default void prepare(Type type) {
	}

}
