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

import io.github.delayqueue.core.internal.send.RedissonJson;
import io.github.delayqueue.core.internal.send.StoredBytes;

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
	 * UTF-8 text (Redisson's {@code StringCodec}), sent as a {@code String}. Bytes that
	 * are not UTF-8 are refused, never replaced: the migration fails naming the entry,
	 * and {@link #bytes()} moves such payloads as they are.
	 * @return the conversion
	 */
	static MigrationPayload string() {
		return StoredBytes::utf8;
	}

	/**
	 * JSON (Redisson's {@code JsonJacksonCodec}, or {@code TypedJsonJacksonCodec}), made
	 * plain, sent as its bytes: the listener's payload type reads it. Redisson's default
	 * typing writes a type in two forms, and both are removed: an {@code "@class"}
	 * property of an object (a bean, a map), and a wrapper array
	 * {@code ["java.lang.Long", 5]} around a value that cannot hold a property (a
	 * {@code Long}, a collection, an array, a date, a number or an enum in a field of
	 * type {@code Object}). A wrapper is a two-element array whose first element is a
	 * Java class name; a plain {@code String[]} of exactly two elements whose first is a
	 * class name would be read as one (see {@code docs/migrating-from-redisson.md}).
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
