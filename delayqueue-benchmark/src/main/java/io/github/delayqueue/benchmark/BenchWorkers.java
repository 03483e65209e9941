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

package io.github.delayqueue.benchmark;

import java.util.concurrent.Executor;
import java.util.concurrent.Executors;

import io.github.delayqueue.core.DelayQueueEngineBuilder;
import io.github.delayqueue.core.listener.DelayBatchInterceptor;
import io.github.delayqueue.core.listener.DelayMessageInterceptor;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;

/**
 * Where the benchmark's listeners run their workers ({@code -Dbench.workers}).
 */
final class BenchWorkers {

	private BenchWorkers() {
	}

	/**
	 * The listener's workers: {@code null} for the container's own platform threads (the
	 * default), or virtual threads with {@code -Dbench.workers=virtual} on Java 21 or
	 * later.
	 */
	static Executor executor() {
		if (!"virtual".equals(System.getProperty("bench.workers"))) {
			return null;
		}
		try {
			return (Executor) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException("-Dbench.workers=virtual needs Java 21 or later", ex);
		}
	}

	/**
	 * How many no-op interceptors the burst listener runs ({@code -Dbench.interceptors},
	 * default 0); with any, the engine has an event listener too.
	 */
	static int interceptors() {
		return Integer.getInteger("bench.interceptors", 0);
	}

	/** Adds the no-op event listener of {@code -Dbench.interceptors}. */
	static DelayQueueEngineBuilder events(DelayQueueEngineBuilder builder) {
		return (interceptors() > 0) ? builder.eventListener((event) -> {
		}) : builder;
	}

	/** Adds the no-op interceptors of {@code -Dbench.interceptors}. */
	static <T> DelayQueueListenerContainer.Builder<T> intercepted(DelayQueueListenerContainer.Builder<T> builder,
			boolean batch) {
		for (int i = 0; i < interceptors(); i++) {
			if (batch) {
				builder.addBatchInterceptor(new DelayBatchInterceptor() {
				});
			}
			else {
				builder.addInterceptor(new DelayMessageInterceptor() {
				});
			}
		}
		return builder;
	}

}
