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

package io.github.delayqueue.core.internal.runtime;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The one loop every background job runs on: nothing a step does ends it, a thread that
 * dies is replaced, and a thread left over from a stop that timed out never runs beside
 * its replacement.
 */
class SupervisedLoopTests {

	@Test
	void aStepThatThrowsAnythingOrLeavesItsThreadInterruptedNeverEndsTheLoop() {
		AtomicInteger steps = new AtomicInteger();
		SupervisedLoop loop = new SupervisedLoop("test loop", "test-loop", () -> {
			int step = steps.incrementAndGet();
			switch (step % 4) {
				case 0 -> throw new StackOverflowError();
				case 1 -> throw new IllegalStateException() {

					private static final long serialVersionUID = 1L;

					@Override
					public String getMessage() {
						throw new UnsupportedOperationException("no message");
					}

				};
				case 2 -> Thread.currentThread().interrupt();
				default -> {
				}
			}
			return 0;
		});
		loop.start();
		try {
			await().atMost(Duration.ofSeconds(30)).until(() -> steps.get() >= 12);
			assertThat(loop.isServing()).isTrue();
			assertThat(loop.restarts()).isZero();
		}
		finally {
			assertThat(loop.stop(Duration.ofSeconds(5))).isTrue();
		}
	}

	@Test
	void aThreadThatDiesIsReplacedAndCounted() {
		AtomicInteger steps = new AtomicInteger();
		SupervisedLoop loop = new SupervisedLoop("dying loop", "dying-loop", new SupervisedLoop.Job() {

			@Override
			public long runOnce() {
				steps.incrementAndGet();
				throw new IllegalStateException("step fails");
			}

			@Override
			public void failed(Throwable failure) {
				if (steps.get() == 1) {
					// an Error escaping the failure handling kills the thread
					throw new OutOfMemoryError("simulated");
				}
			}

		});
		loop.start();
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> loop.restarts() == 1 && steps.get() >= 2);
			assertThat(loop.isServing()).isTrue();
		}
		finally {
			loop.stop(Duration.ofSeconds(5));
		}
	}

	@Test
	void aThreadLeftOverFromATimedOutStopRunsNoFurtherStepOnceReplaced() {
		CountDownLatch release = new CountDownLatch(1);
		Map<Thread, AtomicInteger> stepsByThread = new ConcurrentHashMap<>();
		SupervisedLoop loop = new SupervisedLoop("stuck loop", "stuck-loop", () -> {
			int steps = stepsByThread.computeIfAbsent(Thread.currentThread(), (thread) -> new AtomicInteger())
				.incrementAndGet();
			if (stepsByThread.size() == 1 && steps == 1) {
				// deaf to interrupts: the stop times out
				while (release.getCount() > 0) {
					try {
						release.await();
					}
					catch (InterruptedException ex) {
						// ignored on purpose
					}
				}
			}
			return TimeUnit.MILLISECONDS.toNanos(5);
		});
		loop.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> stepsByThread.size() == 1);
		Thread first = stepsByThread.keySet().iterator().next();
		assertThat(loop.stop(Duration.ofMillis(200))).as("stop timed out").isFalse();
		loop.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> stepsByThread.size() == 2);
		release.countDown();
		await().atMost(Duration.ofSeconds(5)).until(() -> !first.isAlive());
		await().atMost(Duration.ofSeconds(5))
			.until(() -> stepsByThread.entrySet()
				.stream()
				.anyMatch((e) -> e.getKey() != first && e.getValue().get() > 20));
		assertThat(stepsByThread.get(first).get()).as("steps of the replaced thread").isEqualTo(1);
		assertThat(loop.isServing()).isTrue();
		loop.stop(Duration.ofSeconds(5));
	}

}
