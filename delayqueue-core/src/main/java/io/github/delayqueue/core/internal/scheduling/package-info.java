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
 * Moving due messages from the schedules (ZSETs) to the streams: one scheduler per queue
 * consumed on a node, run while at least one group of the queue is joined. Guarantee: in
 * any interleaving of joins and leaves, a joined group has a running scheduler. Also the
 * recurring schedules: their ticks, their plan, and {@link ScheduleStore}, the schedules
 * as Redis holds them. Internal: not API, may change in any release.
 */
package io.github.delayqueue.core.internal.scheduling;
