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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every Java block of the README and {@code docs/} compiles as it is shown, imports
 * included, against the published modules: a renamed class, method or annotation
 * attribute fails this build, not a reader.
 * <p>
 * Why the Markdown is the source and not generated from compiled code: the snippets are
 * written for reading (short, commented), and a reader copies exactly what the page
 * shows; compiling that text checks the very thing they copy. The rule for writers: a
 * block is a whole Java file — imports, then one or more types. Only the reader's own
 * types are assumed, from the default package of this module's tests ({@code Orders},
 * {@code OrderTimeout}, {@code Order}, {@code Payment}, {@code Alerts},
 * {@code OrderService}).
 */
class JavaSnippetTests {

	private static final Pattern PUBLIC_TYPE = Pattern.compile(
			"^\\s*public\\s+(?:final\\s+|abstract\\s+)*(?:class|interface|record|enum)\\s+(\\w+)", Pattern.MULTILINE);

	static List<Markdown.Block> javaBlocks() {
		return Markdown.blocks().stream().filter((block) -> block.language().equals("java")).toList();
	}

	@Test
	void theDocsHaveJavaBlocks() {
		assertThat(javaBlocks()).hasSizeGreaterThan(10);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("javaBlocks")
	void compiles(Markdown.Block block, @TempDir Path dir) throws IOException {
		Matcher publicType = PUBLIC_TYPE.matcher(block.text());
		String name = publicType.find() ? publicType.group(1) : "Snippet";
		Path source = dir.resolve(name + ".java");
		Files.writeString(source, block.text());
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
			boolean compiled = compiler
				.getTask(null, files, diagnostics, List.of("-classpath", System.getProperty("java.class.path"), "-d",
						dir.toString(), "-proc:none", "-parameters"), null, files.getJavaFileObjects(source))
				.call();
			assertThat(compiled).as("%s does not compile:%n%s", block, describe(block, diagnostics)).isTrue();
		}
	}

	/** Each error with the Markdown line it is on. */
	private static String describe(Markdown.Block block, DiagnosticCollector<JavaFileObject> diagnostics) {
		return diagnostics.getDiagnostics()
			.stream()
			.filter((diagnostic) -> diagnostic.getKind() == Diagnostic.Kind.ERROR)
			.map((diagnostic) -> "  " + Markdown.ROOT.relativize(block.file()) + ":"
					+ (block.line() + diagnostic.getLineNumber()) + ": " + diagnostic.getMessage(Locale.ROOT))
			.collect(Collectors.joining("\n"));
	}

}
