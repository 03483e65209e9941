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
package io.github.delayqueue.core;

import java.nio.charset.StandardCharsets;

import io.github.delayqueue.core.internal.send.RedissonJson;

/**
 * How a payload another queue stored becomes the payload of a delayqueue message (then
 * encoded by the engine's codec), for {@link RedissonMigration} and
 * {@link ZSetMigration}.
 */
@FunctionalInterface
public interface MigrationPayload {

	/**
	 * @param stored the bytes the other queue stored
	 * @return the payload to send
	 * @throws RuntimeException when it cannot be converted
	 */
	Object convert(byte[] stored);

	/**
	 * UTF-8 text (Redisson's {@code StringCodec}), sent as a {@code String}.
	 * @return the conversion
	 */
	static MigrationPayload string() {
		return (stored) -> new String(stored, StandardCharsets.UTF_8);
	}

	/**
	 * JSON (Redisson's {@code JsonJacksonCodec}), without the {@code "@class"} type
	 * properties of Redisson's default typing, sent as its bytes: the listener's payload
	 * type reads it.
	 * @return the conversion
	 */
	static MigrationPayload json() {
		return RedissonJson.withoutTypes()::apply;
	}

	/**
	 * The bytes as they are (for a listener of {@code byte[]}, or a codec of the engine's
	 * own that reads them).
	 * @return the conversion
	 */
	static MigrationPayload bytes() {
		return (stored) -> stored;
	}

}
