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
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueTemplate;
import io.github.delayqueue.core.annotation.DelayListener;
import io.github.delayqueue.test.RedisServer;
import io.github.delayqueue.test.RedisTest;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingStream;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * With {@code spring.threads.virtual.enabled=true}, the listener's workers run on virtual
 * threads, and none of the library's code pins a carrier thread while it delivers (JFR's
 * {@code jdk.VirtualThreadPinned}, every pin recorded). Needs Java 21: the build's
 * {@code java-25} execution runs it on Java 25; on Java 17 it is skipped.
 */
@RedisTest
class VirtualThreadWorkersTests {

	private static final int MESSAGES = 3_000;

	private static final int WARM_UP = 500;

	private final RedisServer redis;

	VirtualThreadWorkersTests(RedisServer redis) {
		this.redis = redis;
	}

	@Test
	void workersRunOnVirtualThreadsAndNoneOfTheLibrarysCodePinsACarrier() throws Exception {
		assumeTrue(Runtime.version().feature() >= 21, "virtual threads need Java 21 (run by the java-25 execution)");
		List<RecordedEvent> pins = new CopyOnWriteArrayList<>();
		AtomicReference<Instant> warmedUp = new AtomicReference<>(Instant.MAX);
		try (RecordingStream recording = new RecordingStream()) {
			recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
			recording.onEvent("jdk.VirtualThreadPinned", pins::add);
			recording.startAsync();
			AllAutoConfigurations.runner(this.redis)
				.withPropertyValues("spring.threads.virtual.enabled=true")
				.withUserConfiguration(BlockingListener.class)
				.run((context) -> {
					assertThat(context).hasNotFailed();
					BlockingListener listener = context.getBean(BlockingListener.class);
					DelayQueueTemplate template = context.getBean(DelayQueueTemplate.class);
					// a first round loads and initializes the classes of the path: a
					// virtual thread waiting for a class another one initializes pins its
					// carrier once, whatever the code
					sendDueTogether(template, "warm-", WARM_UP);
					await().atMost(Duration.ofSeconds(60)).until(() -> listener.lateness.size() >= WARM_UP);
					listener.lateness.clear();
					warmedUp.set(Instant.now());
					sendDueTogether(template, "v-", MESSAGES);
					await().atMost(Duration.ofSeconds(60)).until(() -> listener.lateness.size() >= MESSAGES);
					List<Long> lateness = listener.lateness.stream().sorted().toList();
					// all due at once, 32 at a time for 5 ms each: the drain alone takes
					// ~470 ms
					System.out.printf(
							"Java %s, %d messages due at once on %d virtual workers (5 ms each, 32 at a time):"
									+ " lateness p50 %d ms, p99 %d ms, max %d ms%n",
							Runtime.version(), MESSAGES, listener.threads.size(), lateness.get(lateness.size() / 2),
							lateness.get(lateness.size() * 99 / 100), lateness.get(lateness.size() - 1));
					assertThat(listener.threads.values()).as("every worker is a virtual thread").containsOnly(true);
				});
			// the control, once the recording surely runs (it starts asynchronously): a
			// virtual thread that blocks in a class initializer pins its carrier on every
			// Java version; the recording must see it
			Thread control = (Thread) Thread.class.getMethod("startVirtualThread", Runnable.class)
				.invoke(null, (Runnable) SlowToInitialize::touch);
			control.join();
			// the recording flushes once a second
			Thread.sleep(2_000);
		}
		assertThat(pins).as("the control's pin is recorded")
			.anyMatch((pin) -> pin.getStackTrace() != null && pin.getStackTrace()
				.getFrames()
				.stream()
				.anyMatch((frame) -> frame.getMethod().getType().getName().equals(SlowToInitialize.class.getName())));
		List<RecordedEvent> ours = pins.stream()
			.filter(VirtualThreadWorkersTests::inTheLibrary)
			.filter((pin) -> pin.getStartTime().isAfter(warmedUp.get()))
			.toList();
		System.out.printf(
				"Pinned virtual threads: %d in all (warm-up and control included), %d in delayqueue's code after the warm-up; longest %s%n",
				pins.size(), ours.size(),
				pins.stream().map(RecordedEvent::getDuration).max(Comparator.naturalOrder()).orElse(Duration.ZERO));
		assertThat(ours)
			.as("pins in delayqueue's code after the warm-up: %s",
					ours.stream().map(VirtualThreadWorkersTests::describe).collect(Collectors.joining("\n")))
			.isEmpty();
	}

	private static void sendDueTogether(DelayQueueTemplate template, String prefix, int count) {
		long due = System.currentTimeMillis() + 2_000;
		List<DelayMessage<Long>> messages = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			messages.add(DelayMessage.builder(due)
				.queue("virtual")
				.id(prefix + i)
				.deliverAt(Instant.ofEpochMilli(due))
				.build());
		}
		template.sendAll(messages);
	}

	private static boolean inTheLibrary(RecordedEvent pin) {
		return pin.getStackTrace() != null && pin.getStackTrace()
			.getFrames()
			.stream()
			.anyMatch((frame) -> frame.getMethod().getType().getName().startsWith("io.github.delayqueue.core"));
	}

	private static String describe(RecordedEvent pin) {
		String reason = pin.hasField("pinnedReason") ? " (" + pin.getString("pinnedReason") + ")" : "";
		return pin.getDuration() + reason + " at "
				+ pin.getStackTrace()
					.getFrames()
					.stream()
					.limit(40)
					.map(RecordedFrame::getMethod)
					.map((method) -> method.getType().getName() + "." + method.getName())
					.collect(Collectors.joining(" < "));
	}

	/** Blocks in its initializer: a pin on every Java version. */
	static final class SlowToInitialize {

		static {
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		static void touch() {
		}

	}

	static class BlockingListener {

		final List<Long> lateness = new CopyOnWriteArrayList<>();

		final Map<String, Boolean> threads = new ConcurrentHashMap<>();

		@DelayListener(id = "virtual", queue = "virtual", concurrency = "32")
		void onMessage(Long due) throws Exception {
			this.lateness.add(System.currentTimeMillis() - due);
			Thread current = Thread.currentThread();
			// by name: a virtual thread's toString names its carrier of the moment
			this.threads.put(current.getName(), (Boolean) Thread.class.getMethod("isVirtual").invoke(current));
			// blocking work, as a call to another service: a virtual worker unmounts here
			Thread.sleep(5);
		}

	}

}
