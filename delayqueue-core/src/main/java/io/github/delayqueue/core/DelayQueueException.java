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
 * An operation on a delay queue failed, typically because Redis could not be reached. The
 * message says which queue and what was attempted; the cause is Spring's
 * {@code DataAccessException}.
 */
public class DelayQueueException extends RuntimeException {

	private static final long serialVersionUID = 1L;

	/**
	 * Creates an exception.
	 * @param message what failed
	 * @param cause the cause
	 */
	public DelayQueueException(String message, Throwable cause) {
		super(message, cause);
	}

}
