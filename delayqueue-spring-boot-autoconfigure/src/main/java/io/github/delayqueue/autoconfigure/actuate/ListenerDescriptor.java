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

/**
 * One listener of this application.
 *
 * @param id the endpoint id
 * @param queue the queue
 * @param group the group
 * @param running whether it is running
 * @param concurrency how many handlers run at once
 * @param held deliveries it holds (running or prefetched)
 * @param partitions the partitions it reads (those it owns, when exclusive or ordered)
 */
public record ListenerDescriptor(String id, String queue, String group, boolean running, int concurrency, int held,
		List<Integer> partitions) {
}
