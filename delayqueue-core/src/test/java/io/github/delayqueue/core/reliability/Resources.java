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

package io.github.delayqueue.core.reliability;

import java.util.ArrayList;
import java.util.List;

/**
 * What a test started (servers, proxies, factories, engines, containers, JVMs), closed in
 * reverse order: a field {@code @AutoClose final Resources resources = new Resources()}.
 */
final class Resources implements AutoCloseable {

	private final List<AutoCloseable> resources = new ArrayList<>();

	/**
	 * Closes a resource after the test.
	 * @param resource the resource
	 * @param <T> its type
	 * @return the resource
	 */
	<T extends AutoCloseable> T track(T resource) {
		this.resources.add(resource);
		return resource;
	}

	@Override
	public void close() throws Exception {
		for (int i = this.resources.size() - 1; i >= 0; i--) {
			this.resources.get(i).close();
		}
		this.resources.clear();
	}

}
