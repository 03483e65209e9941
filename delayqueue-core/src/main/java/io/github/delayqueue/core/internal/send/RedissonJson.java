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
package io.github.delayqueue.core.internal.send;

import java.util.function.UnaryOperator;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Redisson's {@code JsonJacksonCodec} payloads made plain JSON: the {@code "@class"}
 * properties of its default typing removed. A class of its own, loaded only when used:
 * Jackson is optional.
 */
public final class RedissonJson {

	private RedissonJson() {
	}

	/**
	 * @return a conversion from stored JSON to JSON without type properties
	 */
	public static UnaryOperator<byte[]> withoutTypes() {
		JsonMapper mapper = JsonMapper.builder().build();
		return (stored) -> mapper.writeValueAsBytes(strip(mapper.readTree(stored)));
	}

	private static JsonNode strip(JsonNode node) {
		if (node instanceof ObjectNode object) {
			object.remove("@class");
			object.properties().forEach((field) -> strip(field.getValue()));
		}
		else if (node.isArray()) {
			node.forEach(RedissonJson::strip);
		}
		return node;
	}

}
