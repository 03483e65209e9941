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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Loops on the engine's runner: hundreds of them share its few threads, one that sleeps
 * until woken runs no step and holds no thread, nothing a step throws ends the loop, a
 * wake during a step runs the next at once, a stop waits for the running step, and a step
 * kept waiting for a thread makes its loop not serve.
 */
class LoopRunnerTests {

	private final LoopRunner runner = new LoopRunner();

	private final List<SupervisedLoop> loops = new ArrayList<>();

	@AfterEach
	void close() {
		this.loops.forEach((loop) -> loop.stop(Duration.ofSeconds(1)));
		this.runner.close();
	}

	private SupervisedLoop started(String name, SupervisedLoop.Job job) {
		SupervisedLoop loop = new SupervisedLoop(name, this.runner, job);
		this.loops.add(loop);
		loop.start();
		return loop;
	}

	@Test
	void hundredsOfLoopsShareTheRunnersThreadsAndSleepUntilWoken() {
		AtomicInteger steps = new AtomicInteger();
		Set<String> threads = ConcurrentHashMap.newKeySet();
		for (int i = 0; i < 300; i++) {
			started("loop " + i, () -> {
				steps.incrementAndGet();
				threads.add(Thread.currentThread().getName());
				return SupervisedLoop.UNTIL_WOKEN;
			});
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> steps.get() == 300);
		sleep(300);
		// each ran its first step only
		assertThat(steps.get()).isEqualTo(300);
		// more only if steps waited for a thread (a busy machine)
		assertThat(threads).hasSizeLessThanOrEqualTo(LoopRunner.MAX_THREADS)
			.allMatch((t) -> t.startsWith("delayqueue-loop-"));
		this.loops.get(7).wake();
		await().atMost(Duration.ofSeconds(5)).until(() -> steps.get() == 301);
		assertThat(this.loops).allMatch(SupervisedLoop::isServing);
	}

	@Test
	void aStepThatThrowsAnythingNeverEndsTheLoopAndSleepsAreKept() {
		AtomicInteger steps = new AtomicInteger();
		SupervisedLoop loop = started("throwing loop", () -> {
			int step = steps.incrementAndGet();
			switch (step % 4) {
				case 0 -> throw new StackOverflowError();
				case 1 -> throw new IllegalStateException("refused");
				case 2 -> Thread.currentThread().interrupt();
				default -> {
				}
			}
			return TimeUnit.MILLISECONDS.toNanos(10);
		});
		await().atMost(Duration.ofSeconds(30)).until(() -> steps.get() >= 12);
		assertThat(loop.isRunning()).isTrue();
		assertThat(loop.restarts()).isZero();
	}

	@Test
	void aStepThatFailsForLongMakesTheLoopNotServeUntilItWorks() {
		AtomicInteger steps = new AtomicInteger();
		CountDownLatch heal = new CountDownLatch(1);
		SupervisedLoop loop = started("failing loop", () -> {
			steps.incrementAndGet();
			if (heal.getCount() > 0) {
				throw new IllegalStateException("WRONGTYPE");
			}
			return SupervisedLoop.UNTIL_WOKEN;
		});
		await().atMost(Duration.ofSeconds(10)).until(() -> !loop.isServing());
		assertThat(loop.problem()).contains("failing loop has failed for").contains("WRONGTYPE");
		heal.countDown();
		await().atMost(Duration.ofSeconds(5)).until(loop::isServing);
	}

	@Test
	void aWakeDuringAStepRunsTheNextAtOnce() throws InterruptedException {
		AtomicInteger steps = new AtomicInteger();
		CountDownLatch inStep = new CountDownLatch(1);
		CountDownLatch goOn = new CountDownLatch(1);
		SupervisedLoop loop = started("woken loop", () -> {
			if (steps.incrementAndGet() == 1) {
				inStep.countDown();
				goOn.await();
			}
			return SupervisedLoop.UNTIL_WOKEN;
		});
		assertThat(inStep.await(5, TimeUnit.SECONDS)).isTrue();
		loop.wake();
		goOn.countDown();
		await().atMost(Duration.ofSeconds(5)).until(() -> steps.get() == 2);
		sleep(200);
		assertThat(steps.get()).isEqualTo(2);
	}

	@Test
	void aStopWaitsForTheRunningStepAndNoStepRunsAfter() throws InterruptedException {
		AtomicInteger steps = new AtomicInteger();
		AtomicInteger stopped = new AtomicInteger();
		CountDownLatch inStep = new CountDownLatch(1);
		SupervisedLoop loop = started("stopped loop", new SupervisedLoop.Job() {

			@Override
			public long runOnce() throws InterruptedException {
				steps.incrementAndGet();
				inStep.countDown();
				TimeUnit.MILLISECONDS.sleep(300);
				return 0;
			}

			@Override
			public void stopped() {
				stopped.incrementAndGet();
			}

		});
		assertThat(inStep.await(5, TimeUnit.SECONDS)).isTrue();
		assertThat(loop.stop(Duration.ofSeconds(5))).isTrue();
		int after = steps.get();
		sleep(500);
		assertThat(steps.get()).isEqualTo(after);
		assertThat(stopped.get()).isEqualTo(1);
		assertThat(loop.problem()).contains("is not running");
	}

	@Test
	void stepsThatBlockDoNotHoldBackTheOtherLoops() throws InterruptedException {
		CountDownLatch release = new CountDownLatch(1);
		CountDownLatch blocked = new CountDownLatch(LoopRunner.THREADS * 2);
		// twice as many steps as threads block (calls to a master that hangs)
		for (int i = 0; i < LoopRunner.THREADS * 2; i++) {
			started("blocked loop " + i, () -> {
				blocked.countDown();
				release.await();
				return SupervisedLoop.UNTIL_WOKEN;
			});
		}
		AtomicInteger ticks = new AtomicInteger();
		SupervisedLoop ticking = started("ticking loop", () -> {
			ticks.incrementAndGet();
			return TimeUnit.MILLISECONDS.toNanos(10);
		});
		try {
			assertThat(blocked.await(5, TimeUnit.SECONDS)).isTrue();
			int before = ticks.get();
			sleep(1000);
			// it steps on: about 100 times a second
			assertThat(ticks.get() - before).isGreaterThan(20);
			assertThat(ticking.isServing()).isTrue();
			assertThat(this.runner.threads()).isGreaterThan(LoopRunner.THREADS * 2)
				.isLessThanOrEqualTo(LoopRunner.MAX_THREADS);
		}
		finally {
			release.countDown();
		}
		// the threads added end some seconds after no step waits
		await().atMost(Duration.ofSeconds(30)).until(() -> this.runner.threads() <= LoopRunner.THREADS);
		int before = ticks.get();
		sleep(300);
		assertThat(ticks.get()).isGreaterThan(before);
	}

	@Test
	void aStepKeptWaitingForAThreadMakesItsLoopNotServe() {
		CountDownLatch release = new CountDownLatch(1);
		for (int i = 0; i < LoopRunner.MAX_THREADS; i++) {
			started("blocking loop " + i, () -> {
				release.await();
				return SupervisedLoop.UNTIL_WOKEN;
			});
		}
		SupervisedLoop starved = started("starved loop", () -> SupervisedLoop.UNTIL_WOKEN);
		try {
			await().atMost(Duration.ofSeconds(10)).until(() -> !starved.isServing());
			assertThat(starved.problem()).contains("starved loop has waited").contains("loop runner");
		}
		finally {
			release.countDown();
		}
		await().atMost(Duration.ofSeconds(5)).until(starved::isServing);
	}

	@Test
	void aLoopWhoseRunnerWasClosedSaysSo() {
		SupervisedLoop loop = started("orphaned loop", () -> TimeUnit.MILLISECONDS.toNanos(10));
		assertThat(loop.isServing()).isTrue();
		this.runner.close();
		await().atMost(Duration.ofSeconds(5)).until(() -> !loop.isServing());
		assertThat(loop.problem()).contains("orphaned loop does not run: its engine is closed");
	}

	private static void sleep(long millis) {
		try {
			TimeUnit.MILLISECONDS.sleep(millis);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
