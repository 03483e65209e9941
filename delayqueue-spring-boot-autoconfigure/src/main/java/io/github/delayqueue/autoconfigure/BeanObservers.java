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

import java.time.Duration;
import java.util.List;

import io.github.delayqueue.core.DelayQueueObserver;
import io.github.delayqueue.core.SendResult;
import io.github.delayqueue.core.internal.runtime.GuardedObserver;

import org.springframework.beans.factory.ObjectProvider;

/**
 * The application's {@link DelayQueueObserver} beans, looked up at the first report
 * rather than when the engine bean is made, so that an observer may depend on the
 * engine's beans (the template, the admin); then kept. Each is guarded: one that throws
 * is logged and the others still hear of it.
 */
final class BeanObservers implements DelayQueueObserver {

	private final ObjectProvider<DelayQueueObserver> beans;

	private volatile DelayQueueObserver observers;

	BeanObservers(ObjectProvider<DelayQueueObserver> beans) {
		this.beans = beans;
	}

	private DelayQueueObserver observers() {
		DelayQueueObserver resolved = this.observers;
		if (resolved == null) {
			synchronized (this) {
				resolved = this.observers;
				if (resolved == null) {
					List<DelayQueueObserver> found = this.beans.orderedStream().toList();
					resolved = found.isEmpty() ? DelayQueueObserver.NOOP : new GuardedObserver(found);
					this.observers = resolved;
				}
			}
		}
		return resolved;
	}

	@Override
	public void sent(SendResult result) {
		observers().sent(result);
	}

	@Override
	public void delivered(String queue, String group, int attempt, Duration lateness) {
		observers().delivered(queue, group, attempt, lateness);
	}

	@Override
	public void acked(String queue, String group, Duration processing) {
		observers().acked(queue, group, processing);
	}

	@Override
	public void filtered(String queue, String group) {
		observers().filtered(queue, group);
	}

	@Override
	public void retried(String queue, String group, Duration processing, Throwable error) {
		observers().retried(queue, group, processing, error);
	}

	@Override
	public void dead(String queue, String group, Duration processing, Throwable error) {
		observers().dead(queue, group, processing, error);
	}

	@Override
	public void expired(String queue, String group, boolean deadLettered) {
		observers().expired(queue, group, deadLettered);
	}

	@Override
	public void rateLimited(String queue, String group, boolean redelayed) {
		observers().rateLimited(queue, group, redelayed);
	}

	@Override
	public void snoozed(String queue, String group, Duration delay) {
		observers().snoozed(queue, group, delay);
	}

	@Override
	public void recovered(String queue, String group, int count) {
		observers().recovered(queue, group, count);
	}

	@Override
	public void abandoned(String queue, String group) {
		observers().abandoned(queue, group);
	}

	@Override
	public String toString() {
		return "the application's DelayQueueObserver beans";
	}

}
