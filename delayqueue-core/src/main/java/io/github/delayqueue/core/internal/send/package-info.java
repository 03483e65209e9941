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
 * The send path, top to bottom: {@link SendBatch} prepares the messages on the caller's
 * thread (checks, encoding, ids, observations) and routes each to its partition;
 * {@link Sends} writes them (sequential script calls, coalesced single sends, pipelined
 * or durable), now or after the transaction's commit, and reports the results. The steps
 * take what they need from a {@link SendContext} the engine builds once. Internal: not
 * API, may change in any release.
 */
package io.github.delayqueue.core.internal.send;
