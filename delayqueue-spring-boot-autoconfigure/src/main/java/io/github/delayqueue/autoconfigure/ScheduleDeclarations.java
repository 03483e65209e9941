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
package io.github.delayqueue.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.DelaySchedule;

import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * Declares the schedules of {@code delayqueue.schedules.*} once every bean exists: all
 * are checked first (an invalid one fails the start-up, naming its property, before
 * anything is written), then each is registered (see
 * {@link io.github.delayqueue.core.DelaySchedules#declare(DelaySchedule)}).
 */
class ScheduleDeclarations implements SmartInitializingSingleton {

	private final DelayQueueProperties properties;

	private final DelayQueueEngine engine;

	ScheduleDeclarations(DelayQueueProperties properties, DelayQueueEngine engine) {
		this.properties = properties;
		this.engine = engine;
	}

	@Override
	public void afterSingletonsInstantiated() {
		List<DelaySchedule> schedules = new ArrayList<>();
		this.properties.getSchedules().forEach((name, settings) -> schedules.add(settings.toSchedule(name)));
		schedules.forEach(this.engine.admin().schedules()::declare);
	}

}
