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

package io.github.delayqueue.modulith;

import java.time.Duration;
import java.time.Instant;

/**
 * An event that says when delayqueue delivers it once externalized: implement it on an
 * {@code @Externalized} event whose delay depends on the event (a deadline it carries).
 * For a fixed delay, {@link ExternalizedDelay} on the event type is enough.
 */
public interface DelayedEvent {

	/**
	 * Returns how long after its externalization the event is delivered; ignored when
	 * {@link #deliverAt()} gives an instant.
	 * @return the delay, zero or negative for at once
	 */
	Duration delay();

	/**
	 * Returns when the event is delivered, by the Redis clock; {@code null} (the default)
	 * for {@link #delay()}.
	 * @return the instant, or {@code null}
	 */
	default Instant deliverAt() {
		return null;
	}

	/**
	 * Returns the id of the message: an event externalized again (a resubmission after a
	 * crash) with the same id while the first is still scheduled is not scheduled twice.
	 * {@code null} (the default) gives each externalization a new id.
	 * @return the id, or {@code null}
	 */
	default String messageId() {
		return null;
	}

}
