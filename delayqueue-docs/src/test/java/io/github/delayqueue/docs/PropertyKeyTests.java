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

package io.github.delayqueue.docs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code delayqueue.*} property key the README and {@code docs/} name — in prose,
 * tables and YAML blocks — is in the configuration metadata the auto-configuration jar
 * ships (what IDEs complete and Boot's properties migrator reads), and is not deprecated
 * unless the line (or the one before) says it is an old key. A key under
 * {@code delayqueue.queues.<queue>.} is checked as the same key under
 * {@code delayqueue.listener.} (one class binds both).
 * <p>
 * Other names start with {@code delayqueue.} too: meters, their tags, observation names,
 * packages, the test servers' system properties. They are told apart by their first
 * segment: a token whose first segment is no group or property of the metadata must be a
 * name the project's own source code spells out as a string.
 */
class PropertyKeyTests {

	private static final Pattern TOKEN = Pattern.compile("(?<![\\w.-])delayqueue\\.[a-z0-9][a-z0-9.<>*-]*");

	private static final Pattern OLD_KEY_LINE = Pattern.compile("deprecat|renamed|→|former|old key",
			Pattern.CASE_INSENSITIVE);

	private static final Pattern JAVA_STRING = Pattern.compile("\"(delayqueue\\.[a-z0-9.-]+)\"");

	@Test
	void everyPropertyKeyTheDocsNameIsInTheMetadata() {
		Metadata metadata = Metadata.load();
		assertThat(metadata.properties).as("metadata of delayqueue-spring-boot-autoconfigure")
			.containsKey("delayqueue.listener.concurrency");
		Set<String> codeNames = namesInSourceCode();
		List<String> problems = new ArrayList<>();
		int checked = 0;
		for (Mention mention : mentions()) {
			String key = mention.key;
			String root = key.split("\\.")[1];
			if (!metadata.roots.contains(root)) {
				if (!codeNames.contains(key) && !key.equals("delayqueue.core")) {
					problems.add(mention + ": '" + key + "' is neither a property in the metadata nor a name "
							+ "(meter, tag, package, system property) in the source code");
				}
				continue;
			}
			if (codeNames.contains(key) && !metadata.properties.containsKey(key)) {
				// a meter or observation name under a property's first segment
				// (delayqueue.send, delayqueue.dead-letter)
				continue;
			}
			checked++;
			String problem = metadata.check(key, OLD_KEY_LINE.matcher(mention.line).find());
			if (problem != null) {
				problems.add(mention + ": " + problem);
			}
		}
		assertThat(checked).as("property keys found in the docs").isGreaterThan(50);
		assertThat(problems).as("property keys in the docs").isEmpty();
	}

	/** Each mention of a {@code delayqueue.} name: in the text, and in YAML blocks. */
	private static List<Mention> mentions() {
		List<Mention> mentions = new ArrayList<>();
		for (Path file : Markdown.files()) {
			List<String> lines = Markdown.lines(file);
			for (int i = 0; i < lines.size(); i++) {
				Matcher token = TOKEN.matcher(lines.get(i));
				while (token.find()) {
					String key = token.group().replaceAll("[.]+$", "");
					if (key.indexOf('.') > 0 && !key.endsWith(".")) {
						// "the former" may end the line before
						String context = ((i > 0) ? lines.get(i - 1) + " " : "") + lines.get(i);
						mentions.add(new Mention(file, i + 1, context, key));
					}
				}
			}
		}
		for (Markdown.Block block : Markdown.blocks()) {
			if (block.language().equals("yaml") || block.language().equals("yml")) {
				Object document = new Yaml().load(block.text());
				List<String> keys = new ArrayList<>();
				flatten("", document, keys);
				keys.stream()
					.filter((key) -> key.startsWith("delayqueue."))
					.forEach((key) -> mentions.add(new Mention(block.file(), block.line(), "", key)));
			}
		}
		return mentions;
	}

	@SuppressWarnings("unchecked")
	private static void flatten(String prefix, Object node, List<String> keys) {
		if (node instanceof Map<?, ?> map) {
			for (Map.Entry<String, Object> entry : ((Map<String, Object>) map).entrySet()) {
				flatten(prefix.isEmpty() ? entry.getKey() : prefix + "." + entry.getKey(), entry.getValue(), keys);
			}
		}
		else {
			keys.add(prefix);
		}
	}

	/** Every {@code "delayqueue.…"} string literal of the modules' main sources. */
	private static Set<String> namesInSourceCode() {
		Set<String> names = new HashSet<>();
		try (Stream<Path> sources = Files.walk(Markdown.ROOT)) {
			sources.filter((path) -> path.toString().endsWith(".java") && path.toString().contains("/src/main/"))
				.forEach((path) -> {
					try {
						Matcher literal = JAVA_STRING.matcher(Files.readString(path));
						while (literal.find()) {
							names.add(literal.group(1).replaceAll("[.]+$", ""));
						}
					}
					catch (IOException ex) {
						throw new UncheckedIOException(ex);
					}
				});
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return names;
	}

	private record Mention(Path file, int number, String line, String key) {

		@Override
		public String toString() {
			return Markdown.ROOT.relativize(this.file) + ":" + this.number;
		}

	}

	/** The properties of a {@code delayqueue.schedules.<name>} entry, kebab-case. */
	private static final Set<String> SCHEDULE_PROPERTIES = java.util.Arrays
		.stream(org.springframework.beans.BeanUtils
			.getPropertyDescriptors(io.github.delayqueue.autoconfigure.ScheduleProperties.class))
		.filter((descriptor) -> descriptor.getWriteMethod() != null)
		.map((descriptor) -> descriptor.getName().replaceAll("([A-Z])", "-$1").toLowerCase(Locale.ROOT))
		.collect(java.util.stream.Collectors.toCollection(TreeSet::new));

	/** The merged configuration metadata on the class path. */
	private static final class Metadata {

		/** Name → deprecated. */
		final Map<String, Boolean> properties = new HashMap<>();

		final Set<String> groups = new TreeSet<>();

		/** First segments after {@code delayqueue.}. */
		final Set<String> roots = new HashSet<>();

		static Metadata load() {
			Metadata metadata = new Metadata();
			JsonMapper json = JsonMapper.builder().build();
			try {
				for (URL url : Collections.list(PropertyKeyTests.class.getClassLoader()
					.getResources("META-INF/spring-configuration-metadata.json"))) {
					try (InputStream in = url.openStream()) {
						JsonNode root = json.readTree(in);
						for (JsonNode property : root.path("properties")) {
							boolean deprecated = property.path("deprecated").asBoolean(false)
									|| property.has("deprecation");
							metadata.properties.merge(property.path("name").asString(), deprecated, (a, b) -> a && b);
						}
						for (JsonNode group : root.path("groups")) {
							metadata.groups.add(group.path("name").asString());
						}
					}
				}
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
			Stream.concat(metadata.properties.keySet().stream(), metadata.groups.stream())
				.filter((name) -> name.startsWith("delayqueue.") && name.length() > "delayqueue.".length())
				.forEach((name) -> metadata.roots.add(name.split("\\.")[1]));
			return metadata;
		}

		/** What is wrong with naming this key, or {@code null}. */
		String check(String key, boolean saysItIsOld) {
			String name = key;
			if (key.startsWith("delayqueue.schedules.")) {
				// a map of ScheduleProperties: the metadata has the map, the keys under a
				// name are that class's properties
				String[] parts = key.split("\\.", 4);
				if (!this.properties.containsKey("delayqueue.schedules")) {
					return "no property 'delayqueue.schedules' (" + key + ")";
				}
				if (parts.length < 4 || parts[3].equals("*")) {
					return null;
				}
				String property = parts[3].split("\\.")[0];
				return SCHEDULE_PROPERTIES.contains(property) ? null
						: "'" + key + "' names no property of ScheduleProperties " + SCHEDULE_PROPERTIES;
			}
			if (key.startsWith("delayqueue.queues.")) {
				String[] parts = key.split("\\.", 4);
				if (parts.length < 4) {
					return null;
				}
				name = "delayqueue.listener." + parts[3];
			}
			if (name.endsWith(".*")) {
				String group = name.substring(0, name.length() - 2);
				boolean any = this.properties.keySet()
					.stream()
					.anyMatch((property) -> property.startsWith(group + "."));
				return any ? null : "no property under '" + group + "' (" + key + ")";
			}
			Boolean deprecated = this.properties.get(name);
			if (deprecated == null) {
				if (this.groups.contains(name)) {
					return null;
				}
				return "'" + key + "' is not in the configuration metadata" + suggestion(name);
			}
			if (deprecated && !saysItIsOld) {
				return "'" + key + "' is deprecated: name its replacement, or say on that line that it is the old key";
			}
			return null;
		}

		private String suggestion(String name) {
			String last = name.substring(name.lastIndexOf('.') + 1).toLowerCase(Locale.ROOT);
			List<String> similar = this.properties.keySet()
				.stream()
				.filter((property) -> property.startsWith("delayqueue.") && property.endsWith(last))
				.sorted()
				.toList();
			return similar.isEmpty() ? "" : " (did you mean " + String.join(" or ", similar) + "?)";
		}

	}

}
