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
 * What listener containers report as it happens (API): started, stopped, failed to start,
 * idle, a handler not responding, paused and resumed, partitions taken and given up. A
 * {@link io.github.delayqueue.core.event.DelayQueueEventListener} registered on the
 * engine receives them on one thread of the engine's, never a worker's; Spring Boot
 * publishes them as application events.
 */
package io.github.delayqueue.core.event;
