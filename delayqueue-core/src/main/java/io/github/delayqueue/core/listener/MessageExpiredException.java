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

/**
 * The failure a dead letter names when its message expired (see
 * {@link io.github.delayqueue.core.DelayMessage.Builder#expireAfter}): it was not handled
 * before its expiry, by the Redis clock, and no handler received it after that (or a
 * retry would have been due after it).
 * {@link io.github.delayqueue.core.DeadLetter#isExpired()} tells such dead letters.
 */
public class MessageExpiredException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * @param message the reason
	 */
	public MessageExpiredException(String message) {
		super(message, null, false, false);
	}

}
