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

/**
 * The engine's machinery, apart from the API in {@code io.github.delayqueue.core} and its
 * {@code listener}, {@code codec}, {@code annotation} and {@code config} packages. This
 * package holds an engine's settings ({@link EngineSettings}, {@link QueueDeclarations}),
 * its wiring ({@link EngineParts}) and the context its listener containers take
 * ({@link EngineContext}); each capability has a package below it (see
 * {@code docs/architecture.md}). Nothing here is API: it may change in any release.
 */
package io.github.delayqueue.core.internal;
