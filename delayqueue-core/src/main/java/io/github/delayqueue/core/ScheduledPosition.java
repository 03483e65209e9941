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
package io.github.delayqueue.core;

/**
 * Where a time falls in a queue's schedule: how many scheduled messages are due before
 * it, of how many.
 *
 * @param before how many are due before the time
 * @param total how many are scheduled
 * @param exact whether {@code before} is exact; an estimate when the far tier's index is
 * large (read from a sample of it, see {@link DelayQueueAdmin#scheduledPosition})
 */
public record ScheduledPosition(long before, long total, boolean exact) {

}
