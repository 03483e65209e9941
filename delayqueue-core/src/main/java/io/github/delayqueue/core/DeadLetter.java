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

import io.github.delayqueue.core.listener.MessageExpiredException;
import io.github.delayqueue.core.listener.SnoozeException;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

/**
 * A message that a consumer group gave up on.
 *
 * @param entryId the dead-letter entry id (what replay and delete take)
 * @param queue the queue
 * @param group the group that gave up
 * @param messageId the message id
 * @param attempts the attempts it used of its {@code maxAttempts}: handler runs that did
 * not end in a snooze (0 when it expired before its first attempt ended, while it waited
 * or was snoozed); its handler ran {@code attempts + snoozes()} times, runs cut short by
 * a crash not counted
 * @param errorClass the class of the last failure
 * @param errorMessage the message of the last failure
 * @param dueTime when the message was due
 * @param deadTime when it was dead-lettered (Redis clock)
 * @param headers the message headers (empty when the envelope was unreadable)
 * @param payload the encoded payload (the raw envelope when it was unreadable)
 * @param stackTrace the stack trace of the last failure, truncated to 8 KiB ({@code null}
 * for dead letters written by snapshots before 0.1.0)
 */
public record DeadLetter(String entryId, String queue, String group, String messageId, int attempts, String errorClass,
		String errorMessage, Instant dueTime, Instant deadTime, Map<String, String> headers, byte[] payload,
		String stackTrace) {

	/**
	 * Returns whether the message expired rather than failed (its {@link #errorClass()}
	 * names {@link MessageExpiredException}).
	 * @return whether it expired
	 */
	public boolean isExpired() {
		return MessageExpiredException.class.getName().equals(this.errorClass);
	}

	/**
	 * Returns how many times its handler snoozed it (its
	 * {@value SnoozeException#SNOOZES_HEADER} header): runs that used no attempt.
	 * @return the snoozes, 0 when none
	 */
	public int snoozes() {
		return SnoozeException.countIn(this.headers);
	}

	/**
	 * Returns the payload as UTF-8 text (JSON for the default codec).
	 * @return the text
	 */
	public String payloadAsString() {
		return new String(this.payload, StandardCharsets.UTF_8);
	}

}
