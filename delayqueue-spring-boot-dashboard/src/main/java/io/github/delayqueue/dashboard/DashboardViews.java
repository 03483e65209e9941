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

package io.github.delayqueue.dashboard;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.autoconfigure.actuate.PayloadText;
import io.github.delayqueue.core.DeadLetter;
import io.github.delayqueue.core.QueueControlState;
import io.github.delayqueue.core.ScheduleInfo;
import io.github.delayqueue.core.ScheduledMessage;
import org.jspecify.annotations.Nullable;

/**
 * How {@link DashboardApi} shows what it reads: plain maps of strings and numbers, with
 * payloads as text (cut at 2 KiB) or the size of binary content.
 */
final class DashboardViews {

	static final int MAX_PAYLOAD_SHOWN = 2048;

	private DashboardViews() {
	}

	static Map<String, Object> scheduled(ScheduledMessage message) {
		Map<String, Object> shown = new LinkedHashMap<>();
		shown.put("id", message.id());
		shown.put("partition", message.partition());
		shown.put("dueTime", message.dueTime().toString());
		shown.put("key", message.key());
		shown.put("priority", message.priority());
		shown.put("expiresAt", (message.expiresAt() != null) ? message.expiresAt().toString() : null);
		shown.put("maxAttempts", message.maxAttempts());
		shown.put("headers", message.headers());
		shown.put("payload", text(message.payload()));
		shown.put("cursor", message.cursor());
		return shown;
	}

	static Map<String, Object> deadLetter(DeadLetter letter) {
		Map<String, Object> shown = new LinkedHashMap<>();
		shown.put("entryId", letter.entryId());
		shown.put("messageId", letter.messageId());
		shown.put("group", letter.group());
		shown.put("attempts", letter.attempts());
		shown.put("snoozes", letter.snoozes());
		shown.put("errorClass", letter.errorClass());
		shown.put("errorMessage", letter.errorMessage());
		shown.put("stackTrace", letter.stackTrace());
		shown.put("dueTime", String.valueOf(letter.dueTime()));
		shown.put("deadTime", String.valueOf(letter.deadTime()));
		shown.put("headers", letter.headers());
		shown.put("payload", text(letter.payload()));
		return shown;
	}

	static Map<String, Object> schedule(ScheduleInfo schedule) {
		Map<String, Object> shown = new LinkedHashMap<>();
		shown.put("name", schedule.name());
		shown.put("ticks", schedule.description());
		shown.put("missedTicks", schedule.missedTicks().name());
		shown.put("paused", schedule.paused());
		shown.put("nextTick", (schedule.nextTick() != null) ? schedule.nextTick().toString() : null);
		shown.put("lastTick", (schedule.lastTick() != null) ? schedule.lastTick().toString() : null);
		shown.put("fired", schedule.fired());
		shown.put("skipped", schedule.skipped());
		shown.put("headers", schedule.headers());
		shown.put("payload", text(schedule.payload()));
		return shown;
	}

	static Map<String, Object> controls(QueueControlState state) {
		Map<String, Object> shown = new LinkedHashMap<>();
		shown.put("queue", state.queue());
		shown.put("paused", state.paused());
		shown.put("pausedGroups", state.pausedGroups());
		shown.put("rateLimit", (state.rateLimit() != null) ? state.rateLimit().toString() : null);
		shown.put("concurrencyLimit", (state.concurrencyLimit() != null) ? state.concurrencyLimit().toString() : null);
		return shown;
	}

	static @Nullable Long millis(@Nullable Duration duration) {
		return (duration != null) ? duration.toMillis() : null;
	}

	/**
	 * A binary payload's first 2 KiB as a hex dump (offset, 16 bytes, their printable
	 * ASCII), or {@code null} for a text payload.
	 */
	static @Nullable String hex(byte[] payload) {
		if (!PayloadText.isBinary(payload, MAX_PAYLOAD_SHOWN)) {
			return null;
		}
		StringBuilder dump = new StringBuilder();
		int shown = Math.min(payload.length, MAX_PAYLOAD_SHOWN);
		for (int row = 0; row < shown; row += 16) {
			dump.append(String.format("%04x ", row));
			StringBuilder ascii = new StringBuilder();
			for (int i = row; i < row + 16; i++) {
				if (i < shown) {
					int b = payload[i] & 0xff;
					dump.append(String.format(" %02x", b));
					ascii.append((b >= 0x20 && b < 0x7f) ? (char) b : '.');
				}
				else {
					dump.append("   ");
				}
			}
			dump.append("  |").append(ascii).append("|\n");
		}
		if (shown < payload.length) {
			dump.append("... (").append(payload.length).append(" bytes)");
		}
		return dump.toString();
	}

	/** The payload as UTF-8 text when it is text (cut at 2 KiB), else its size. */
	static String text(byte[] payload) {
		return PayloadText.preview(payload, MAX_PAYLOAD_SHOWN);
	}

}
