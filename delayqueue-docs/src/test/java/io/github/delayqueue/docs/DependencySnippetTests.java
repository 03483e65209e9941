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
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Maven snippets of the README and {@code docs/} resolve as shown: the
 * {@code delayqueue-bom} is imported (with its version) where versions are managed, every
 * other delayqueue dependency comes without a version and is one the BOM manages, and the
 * BOM manages every module the build publishes.
 */
class DependencySnippetTests {

	private static final String GROUP = "io.github.delayqueue";

	@Test
	void delayqueueDependenciesInTheDocsTakeTheirVersionsFromTheBom() throws Exception {
		Set<String> managed = managedByTheBom();
		List<String> problems = new ArrayList<>();
		int boms = 0;
		int dependencies = 0;
		for (Markdown.Block block : Markdown.blocks()) {
			if (!block.language().equals("xml")) {
				continue;
			}
			for (Element dependency : elements(parse("<snippet>" + block.text() + "</snippet>"), "dependency")) {
				if (!GROUP.equals(text(dependency, "groupId"))) {
					continue;
				}
				String artifact = text(dependency, "artifactId");
				if (artifact.equals("delayqueue-bom")) {
					boms++;
					if (text(dependency, "version") == null || !"pom".equals(text(dependency, "type"))
							|| !"import".equals(text(dependency, "scope"))) {
						problems.add(block + ": the BOM needs its version, <type>pom</type> and <scope>import</scope>");
					}
					continue;
				}
				dependencies++;
				if (text(dependency, "version") != null) {
					problems.add(block + ": " + artifact + " has a version; the BOM manages it");
				}
				if (!managed.contains(artifact)) {
					problems.add(block + ": " + artifact + " is not managed by delayqueue-bom");
				}
			}
		}
		assertThat(problems).isEmpty();
		assertThat(boms).as("snippets importing the BOM").isEqualTo(1);
		assertThat(dependencies).as("delayqueue dependency snippets").isGreaterThanOrEqualTo(3);
	}

	@Test
	void theBomManagesEveryPublishedModule() throws Exception {
		Set<String> published = new TreeSet<>();
		Element parent = parse(Files.readString(Markdown.ROOT.resolve("pom.xml")));
		for (Element module : elements(parent, "module")) {
			collectPublished(Markdown.ROOT.resolve(module.getTextContent().strip()), false, published);
		}
		assertThat(published).contains("delayqueue-core", "delayqueue-spring-boot-starter");
		assertThat(managedByTheBom()).containsAll(published);
	}

	/** The modules of an aggregator are its children: they inherit its skip. */
	private static void collectPublished(Path module, boolean skipped, Set<String> published) throws Exception {
		String text = Files.readString(module.resolve("pom.xml"));
		Element pom = parse(text);
		boolean skip = skipped || text.contains("<maven.deploy.skip>true");
		for (Element child : elements(pom, "module")) {
			collectPublished(module.resolve(child.getTextContent().strip()), skip, published);
		}
		String packaging = text(pom, "packaging");
		if ((packaging == null || packaging.equals("jar")) && !skip) {
			published.add(text(pom, "artifactId"));
		}
	}

	private static Set<String> managedByTheBom() throws IOException, Exception {
		Element bom = parse(Files.readString(Markdown.ROOT.resolve("delayqueue-bom/pom.xml")));
		Set<String> managed = new TreeSet<>();
		for (Element dependency : elements(bom, "dependency")) {
			managed.add(text(dependency, "artifactId"));
		}
		return managed;
	}

	private static Element parse(String xml) throws Exception {
		return DocumentBuilderFactory.newInstance()
			.newDocumentBuilder()
			.parse(new InputSource(new StringReader(xml)))
			.getDocumentElement();
	}

	private static List<Element> elements(Element parent, String name) {
		NodeList nodes = parent.getElementsByTagName(name);
		List<Element> elements = new ArrayList<>();
		for (int i = 0; i < nodes.getLength(); i++) {
			elements.add((Element) nodes.item(i));
		}
		return elements;
	}

	/** The text of a direct child element, or {@code null}. */
	private static String text(Element parent, String name) {
		for (org.w3c.dom.Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
			if (node instanceof Element element && element.getTagName().equals(name)) {
				return element.getTextContent().strip();
			}
		}
		return null;
	}

}
