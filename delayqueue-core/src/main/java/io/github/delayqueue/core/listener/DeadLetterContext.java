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

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import io.github.delayqueue.core.DeadLetter;

/**
 * What a {@link DelayMessageInterceptor} around a {@link DeadLetterHandler} is given: the
 * dead letter seen as a delivery (its attempt is the attempts it used). An interceptor
 * tells it apart with {@code context instanceof DeadLetterContext}.
 *
 * @param letter the dead letter
 */
public record DeadLetterContext(DeadLetter letter) implements DelayMessageContext {

	@Override
	public String queue() {
		return this.letter.queue();
	}

	@Override
	public String group() {
		return this.letter.group();
	}

	@Override
	public String id() {
		return this.letter.messageId();
	}

	@Override
	public int attempt() {
		return this.letter.attempts();
	}

	@Override
	public int maxAttempts() {
		return this.letter.attempts();
	}

	@Override
	public Instant dueTime() {
		return this.letter.dueTime();
	}

	@Override
	public Map<String, String> headers() {
		return this.letter.headers();
	}

	/**
	 * A dead letter holds no lease: there is nothing to extend.
	 * @param duration ignored
	 * @return {@code true}
	 */
	@Override
	public boolean extendLease(Duration duration) {
		return true;
	}

}
