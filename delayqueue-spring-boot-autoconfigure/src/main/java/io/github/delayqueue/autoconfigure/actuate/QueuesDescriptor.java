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

import java.util.List;
import java.util.Map;

import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.QueueStats;
import org.jspecify.annotations.Nullable;

/**
 * Every queue's counts and this application's listeners.
 *
 * @param queues counts by queue name
 * @param paused the queues that are paused, or have a paused group, with what is paused
 * @param listeners the listeners
 * @param error why the counts are missing or incomplete (Redis did not answer in time),
 * or {@code null}
 */
public record QueuesDescriptor(Map<String, QueueStats> queues, Map<String, QueueControlState> paused,
		List<ListenerDescriptor> listeners, @Nullable String error) {
}
