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

package io.github.delayqueue.dashboard;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's runtime hints: the page and every asset it serves.
 */
class DashboardRuntimeHintsTests {

	@Test
	void thePageAndEveryAssetAreResourcesAndTheRegistrarIsDeclared() {
		List<RuntimeHintsRegistrar> registrars = SpringFactoriesLoader
			.forResourceLocation("META-INF/spring/aot.factories")
			.load(RuntimeHintsRegistrar.class);
		assertThat(registrars).hasAtLeastOneElementOfType(DashboardRuntimeHints.class);
		RuntimeHints hints = new RuntimeHints();
		new DashboardRuntimeHints().registerHints(hints, getClass().getClassLoader());
		for (String file : List.of("index.html", "dashboard.js", "dashboard.css")) {
			assertThat(getClass().getClassLoader().getResource(DashboardPage.LOCATION + file)).as(file).isNotNull();
			assertThat(RuntimeHintsPredicates.resource().forResource(DashboardPage.LOCATION + file)).accepts(hints);
		}
	}

}
