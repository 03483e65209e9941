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
 * Payload codecs (API): how a payload becomes bytes in Redis and back. A codec that
 * cannot decode a payload throws
 * {@link io.github.delayqueue.core.codec.MessageDecodingException}, and the message is
 * dead-lettered with the reason.
 */
package io.github.delayqueue.core.codec;
