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

package io.github.delayqueue.core.listener;

import io.github.delayqueue.core.DeadLetter;

/**
 * Handles a queue's dead letters in the application (see {@link DeadLetterConsumer}).
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface DeadLetterHandler<T> {

	/**
	 * Handles one dead letter of the consumer's group.
	 * @param payload the payload, decoded; {@code null} when it cannot be decoded (the
	 * raw bytes are in {@code letter.payload()})
	 * @param letter the dead letter: id, headers, group, attempts, last failure, times
	 * @throws Exception when it fails: logged, and the dead letter stays in the
	 * dead-letter stream for a human (it is not offered again)
	 */
	void handle(T payload, DeadLetter letter) throws Exception;

}
