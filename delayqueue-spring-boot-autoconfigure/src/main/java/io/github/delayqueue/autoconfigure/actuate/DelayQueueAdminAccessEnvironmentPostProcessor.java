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

package io.github.delayqueue.autoconfigure.actuate;

import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Keeps the renamed {@code delayqueue.admin.enabled=true} working: it stands for
 * {@code management.endpoint.delayqueue.access=unrestricted} unless that is set, which
 * then wins.
 */
public class DelayQueueAdminAccessEnvironmentPostProcessor implements EnvironmentPostProcessor {

	static final String LEGACY = "delayqueue.admin.enabled";

	static final String ACCESS = "management.endpoint.delayqueue.access";

	@Override
	public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
		if (environment.getProperty(LEGACY, Boolean.class, false) && !environment.containsProperty(ACCESS)) {
			environment.getPropertySources()
				.addLast(new MapPropertySource("delayqueueAdminAccess", Map.of(ACCESS, "unrestricted")));
		}
	}

}
