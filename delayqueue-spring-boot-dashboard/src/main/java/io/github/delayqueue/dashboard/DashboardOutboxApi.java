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

import java.util.LinkedHashMap;
import java.util.Map;

import io.github.delayqueue.autoconfigure.actuate.OutboxStatus;
import io.github.delayqueue.core.DelayQueueEngine;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The dashboard's view of the transactional outbox: rows waiting, the age of the oldest
 * (the relay's lag) and the relay's state, as the health shows them.
 */
@RestController
@RequestMapping("${delayqueue.dashboard.path:/delayqueue}/api")
class DashboardOutboxApi {

	private final DelayQueueEngine engine;

	DashboardOutboxApi(DelayQueueEngine engine) {
		this.engine = engine;
	}

	/**
	 * @return {@code enabled: false} without an outbox, else its status
	 * ({@link OutboxStatus}) and {@code enabled: true}
	 */
	@GetMapping("/outbox")
	Map<String, Object> outbox() {
		Map<String, Object> shown = new LinkedHashMap<>();
		shown.put("enabled", this.engine.hasOutbox());
		if (this.engine.hasOutbox()) {
			shown.putAll(OutboxStatus.of(this.engine.outbox()));
		}
		return shown;
	}

}
