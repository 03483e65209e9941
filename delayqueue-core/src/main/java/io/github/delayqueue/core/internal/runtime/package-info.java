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
 * The engine's background machinery shared by every loop:
 * {@link io.github.delayqueue.core.internal.runtime.SupervisedLoop} runs each background
 * job (readers, schedulers, watchdogs, ackers) with one backoff, one way of logging an
 * outage (WARN once with the reason, INFO on recovery) and a supervisor that replaces a
 * thread that ended while its loop should run;
 * {@link io.github.delayqueue.core.internal.runtime.Failures} describes and logs failures
 * that cannot describe themselves; {@link GuardedObserver} keeps a throwing observer from
 * the engine. Internal: not API, may change in any release.
 */
package io.github.delayqueue.core.internal.runtime;
