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

package io.github.delayqueue.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's quick-start Java code compiles as it is shown, imports included, against
 * the starter's classes (with the application's own {@code Orders} service added).
 */
class ReadmeQuickStartTests {

	@Test
	void theQuickStartCompiles(@TempDir Path dir) throws IOException {
		String readme = Files.readString(Path.of("..", "README.md"));
		Matcher java = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL).matcher(readme);
		assertThat(java.find()).as("a Java block in the README").isTrue();
		String code = java.group(1);
		assertThat(code).contains("import io.github.delayqueue.core.annotation.DelayListener;");
		Path source = dir.resolve("QuickStart.java");
		Files.writeString(source, code + "\ninterface Orders {\n    void cancelIfUnpaid(String orderId);\n}\n");
		JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
		DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
		try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, null, null)) {
			boolean compiled = compiler
				.getTask(null, files, diagnostics,
						List.of("-classpath", System.getProperty("java.class.path"), "-d", dir.toString()), null,
						files.getJavaFileObjects(source))
				.call();
			assertThat(compiled).as(diagnostics.getDiagnostics().toString()).isTrue();
		}
	}

}
