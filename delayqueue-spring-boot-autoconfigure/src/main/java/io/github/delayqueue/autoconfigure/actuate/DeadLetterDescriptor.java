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

package io.github.delayqueue.autoconfigure.actuate;

import java.time.Instant;
import java.util.Map;

import io.github.delayqueue.core.DeadLetter;

/**
 * A dead letter as shown by the endpoint: the payload as UTF-8 text when it is text (cut
 * at 1 KiB), else its size.
 *
 * @param entryId the entry id (to replay or delete it)
 * @param messageId the message id
 * @param group the group whose attempts failed
 * @param attempts the attempts it used ({@link DeadLetter#attempts()})
 * @param snoozes how many times its handler snoozed it, using no attempt
 * @param errorClass the last failure's class
 * @param errorMessage the last failure's message
 * @param dueTime when the message was due
 * @param deadTime when it was dead-lettered
 * @param headers the headers
 * @param payload the payload text, or a description of binary content
 */
public record DeadLetterDescriptor(String entryId, String messageId, String group, int attempts, int snoozes,
		String errorClass, String errorMessage, Instant dueTime, Instant deadTime, Map<String, String> headers,
		String payload) {

	static DeadLetterDescriptor of(DeadLetter letter) {
		return new DeadLetterDescriptor(letter.entryId(), letter.messageId(), letter.group(), letter.attempts(),
				letter.snoozes(), letter.errorClass(), letter.errorMessage(), letter.dueTime(), letter.deadTime(),
				letter.headers(), text(letter.payload()));
	}

	static String text(byte[] payload) {
		return PayloadText.preview(payload, DelayQueueEndpoint.MAX_PAYLOAD_SHOWN);
	}

}
