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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.cfg.JsonNodeFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Redisson's {@code JsonJacksonCodec} payloads made plain JSON. Its default typing writes
 * a value's class in two forms, and both are removed: the {@code "@class"} property of an
 * object (a bean, a map), and a wrapper array {@code ["java.lang.Long", 5]} around a
 * value that has no properties (a {@code Long}, a collection, an array, a date, a boxed
 * number or an enum where {@code Object} is declared). The content of a wrapper is never
 * itself read as a wrapper: a list of two strings stays a list. A class of its own,
 * loaded only when used: Jackson is optional.
 */
public final class RedissonJson {

	private static final String IDENTIFIER = "[\\p{L}_$][\\p{L}\\p{N}_$]*";

	/** A binary class name with a package, or an array's: {@code [J}, {@code [Lx.Y;}. */
	private static final Pattern CLASS_NAME = Pattern.compile(
			"(" + IDENTIFIER + "\\.)+" + IDENTIFIER + "|\\[+([BCDFIJSZ]|L(" + IDENTIFIER + "\\.)*" + IDENTIFIER + ";)");

	/** Wrapped values whose content is a number: a string there is not a wrapper. */
	private static final Pattern NUMBER_CLASS = Pattern
		.compile("java\\.lang\\.(Long|Integer|Short|Byte|Double|Float)|java\\.math\\.Big(Integer|Decimal)"
				+ "|java\\.util\\.Date|java\\.sql\\.(Timestamp|Date|Time)|java\\.util\\.concurrent\\.atomic\\.Atomic(Long|Integer)");

	/** Wrapped values whose content is an array. */
	private static final Pattern ARRAY_CLASS = Pattern.compile(
			"\\[.*|java\\.util\\..*(List|Set|Collection|Queue|Deque)" + "|java\\.util\\.(Arrays|Collections)\\$.*");

	private RedissonJson() {
	}

	/**
	 * @return a conversion from stored JSON to JSON without type information
	 */
	public static UnaryOperator<byte[]> withoutTypes() {
		// decimals as written: 12.50 stays 12.50, and no digit is lost through a double
		JsonMapper mapper = JsonMapper.builder()
			.enable(JsonNodeFeature.USE_BIG_DECIMAL_FOR_FLOATS)
			.disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
			.build();
		return (stored) -> mapper.writeValueAsBytes(plain(mapper.readTree(stored)));
	}

	/** A value without its type information. */
	static JsonNode plain(JsonNode node) {
		if (node instanceof ObjectNode object) {
			object.remove("@class");
			List<Map.Entry<String, JsonNode>> properties = new ArrayList<>(object.properties());
			properties.forEach((property) -> object.set(property.getKey(), plain(property.getValue())));
			return object;
		}
		if (node instanceof ArrayNode array) {
			if (isWrapper(array)) {
				return content(array.get(1));
			}
			return elements(array);
		}
		return node;
	}

	/** What a wrapper holds: an array's elements may be wrapped, the array is not. */
	private static JsonNode content(JsonNode wrapped) {
		return (wrapped instanceof ArrayNode array) ? elements(array) : plain(wrapped);
	}

	private static ArrayNode elements(ArrayNode array) {
		for (int i = 0; i < array.size(); i++) {
			array.set(i, plain(array.get(i)));
		}
		return array;
	}

	/**
	 * Whether an array is a type wrapper: two elements, a class name, then a value of the
	 * shape that class writes.
	 */
	static boolean isWrapper(ArrayNode array) {
		if (array.size() != 2 || !array.get(0).isString()) {
			return false;
		}
		String type = array.get(0).asString();
		if (!CLASS_NAME.matcher(type).matches()) {
			return false;
		}
		JsonNode value = array.get(1);
		if (NUMBER_CLASS.matcher(type).matches()) {
			return value.isNumber();
		}
		if (ARRAY_CLASS.matcher(type).matches()) {
			return value.isArray();
		}
		return true;
	}

}
