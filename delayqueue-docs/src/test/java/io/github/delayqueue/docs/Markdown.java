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
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The project's Markdown: the README and every page of {@code docs/}, read from the
 * source tree, with their fenced code blocks.
 */
final class Markdown {

	static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

	private Markdown() {
	}

	/** The README first, then docs/ in name order. */
	static List<Path> files() {
		List<Path> files = new ArrayList<>();
		files.add(ROOT.resolve("README.md"));
		try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
			docs.filter((path) -> path.toString().endsWith(".md")).sorted().forEach(files::add);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return files;
	}

	static List<String> lines(Path file) {
		try {
			return Files.readAllLines(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Every fenced block of every file. */
	static List<Block> blocks() {
		List<Block> blocks = new ArrayList<>();
		for (Path file : files()) {
			List<String> lines = lines(file);
			Block open = null;
			StringBuilder text = null;
			for (int i = 0; i < lines.size(); i++) {
				String line = lines.get(i);
				String trimmed = line.strip();
				if (open == null && trimmed.startsWith("```")) {
					open = new Block(file, i + 1, trimmed.substring(3).strip(), null);
					text = new StringBuilder();
				}
				else if (open != null && trimmed.equals("```")) {
					blocks.add(new Block(open.file(), open.line(), open.language(), text.toString()));
					open = null;
				}
				else if (open != null) {
					text.append(line).append('\n');
				}
			}
		}
		return blocks;
	}

	/**
	 * A fenced code block.
	 *
	 * @param file its file
	 * @param line the line of its opening fence
	 * @param language what follows the fence ({@code java}, {@code yaml}, ...)
	 * @param text its text
	 */
	record Block(Path file, int line, String language, String text) {

		@Override
		public String toString() {
			return ROOT.relativize(this.file) + ":" + this.line;
		}

	}

}
