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
package io.github.delayqueue.samples.ordertimeout;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;

import io.github.delayqueue.boot.test.EmbeddedRedis;
import io.github.delayqueue.core.DelayMessage;
import io.github.delayqueue.core.DelayQueueEngine;
import io.github.delayqueue.core.ScheduledPosition;
import io.github.delayqueue.core.listener.DelayQueueListenerContainer;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The dashboard with the benchmark's {@code dashboard} data: 1,000,000 scheduled messages
 * (one a millisecond, from an hour ahead: the far tier) and 100,000 dead letters. Times
 * each API call behind the pages over HTTP (the median of 21) and each page rendered in
 * headless Chromium, from navigation to its content (the median of 7), and writes the
 * figures to {@code target/dashboard-at-scale.txt}. A measurement, not part of the build:
 * run it with {@code -Ddashboard.scale=true} (the fill takes about a minute).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@EmbeddedRedis
class DashboardAtScaleTests {

	private static final String QUEUE = "dashboard-scale";

	private static final int SCHEDULED = Integer.getInteger("dashboard.scheduled", 1_000_000);

	private static final int DEAD = SCHEDULED / 10;

	private final HttpClient http = HttpClient.newHttpClient();

	@Value("${local.server.port}")
	private int port;

	@Autowired
	private DelayQueueEngine engine;

	@Test
	void everyApiCallAndPageAtAMillionScheduledAndAHundredThousandDead() throws Exception {
		assumeTrue(Boolean.getBoolean("dashboard.scale"), "A measurement: run with -Ddashboard.scale=true");
		Instant base = Instant.now().plus(Duration.ofHours(1)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
		long started = System.nanoTime();
		for (int from = 0; from < SCHEDULED; from += 10_000) {
			int first = from;
			this.engine.template()
				.sendAll(IntStream.range(first, Math.min(SCHEDULED, first + 10_000))
					.mapToObj((i) -> DelayMessage.builder("{\"order\":" + i + ",\"customer\":\"c-" + (i % 977) + "\"}")
						.queue(QUEUE)
						.id("s-" + i)
						.deliverAt(base.plusMillis(i))
						.build())
					.toList());
		}
		DelayQueueListenerContainer failing = this.engine
			.listenerContainer(QUEUE, "billing", String.class, (payload, context) -> {
				throw new IllegalStateException("card declined for order " + context.id());
			})
			.maxAttempts(1)
			.concurrency(64)
			.build();
		failing.start();
		for (int from = 0; from < DEAD; from += 10_000) {
			int first = from;
			this.engine.template()
				.sendAll(IntStream.range(first, Math.min(DEAD, first + 10_000))
					.mapToObj((i) -> DelayMessage.builder("{\"order\":" + i + "}")
						.queue(QUEUE)
						.id("d-" + i)
						.delay(Duration.ZERO)
						.build())
					.toList());
		}
		while (this.engine.admin().stats(QUEUE).dead() < DEAD) {
			Thread.sleep(200);
		}
		failing.stop();
		double fillSeconds = (System.nanoTime() - started) / 1e9;

		Map<String, String> figures = new LinkedHashMap<>();
		figures.put("scheduled", String.valueOf(this.engine.admin().stats(QUEUE).scheduled()));
		figures.put("dead letters", String.valueOf(this.engine.admin().stats(QUEUE).dead()));
		figures.put("fill (s)", String.format("%.1f", fillSeconds));
		String api = "/delayqueue/api/queues/" + QUEUE;
		String deep = this.engine.admin().scheduled(QUEUE, null, 1000).get(999).cursor();
		long at = base.plusMillis(SCHEDULED / 2).toEpochMilli();
		ScheduledPosition middle = this.engine.admin().scheduledPosition(QUEUE, Instant.ofEpochMilli(at));
		figures.put("position of the middle (exact " + SCHEDULED / 2 + ")",
				middle.before() + (middle.exact() ? " (exact)" : " (\u00b1 " + middle.margin() + ")"));
		// nothing cancelled: the far tier's nodes hold no stale entry, so it is exact
		assertThat(middle).isEqualTo(new ScheduledPosition(SCHEDULED / 2, SCHEDULED, true, 0));
		String deadAfter = this.engine.admin().deadLetters(QUEUE, null, 1000).get(999).entryId();
		Map<String, String> calls = new LinkedHashMap<>();
		calls.put("overview (all queues)", "/delayqueue/api/queues");
		calls.put("queue detail", api);
		calls.put("scheduled, first page of 50", api + "/scheduled?count=50");
		calls.put("scheduled, page after 1,000", api + "/scheduled?count=50&after=" + encode(deep));
		calls.put("position of a time", api + "/scheduled/position?at=" + at);
		calls.put("scheduled, page from a time (the middle)", api + "/scheduled?count=50&after=" + at + ":");
		calls.put("one message", api + "/message?id=s-500000");
		calls.put("in flight", api + "/in-flight?count=100");
		calls.put("dead letters, first page of 50", api + "/dead-letters?count=50");
		calls.put("dead letters, page after 1,000", api + "/dead-letters?count=50&after=" + encode(deadAfter));
		calls.put("dead letters by error", api + "/dead-letters/errors");
		calls.put("history, week", api + "/history?span=week");
		calls.put("message trace, a dead letter", api + "/message/trace?id=d-" + (DEAD - 1));
		calls.put("message trace, nothing found (its whole bounded read)", api + "/message/trace?id=nowhere");
		for (Map.Entry<String, String> call : calls.entrySet()) {
			figures.put("API " + call.getKey() + " p50/max (ms)", time(21, () -> {
				HttpResponse<String> response = this.http.send(
						HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + call.getValue())).build(),
						HttpResponse.BodyHandlers.ofString());
				assertThat(response.statusCode()).as(call.getValue()).isEqualTo(200);
				return response;
			}));
		}
		// the engine's own reads behind the schedule's pages, without HTTP
		Map<String, Callable<?>> reads = new LinkedHashMap<>();
		reads.put("scheduled, first page of 50", () -> this.engine.admin().scheduled(QUEUE, null, 50));
		reads.put("scheduled, page after 1,000", () -> this.engine.admin().scheduled(QUEUE, deep, 50));
		reads.put("scheduled, page from a time (the middle)", () -> this.engine.admin().scheduled(QUEUE, at + ":", 50));
		reads.put("position of a time", () -> this.engine.admin().scheduledPosition(QUEUE, Instant.ofEpochMilli(at)));
		for (Map.Entry<String, Callable<?>> read : reads.entrySet()) {
			figures.put("Java " + read.getKey() + " p50/max (ms)", time(21, read.getValue()));
		}
		WebDriver browser = HeadlessChromium.start();
		try {
			String page = "http://localhost:" + this.port + "/delayqueue/";
			browser.get(page);
			((JavascriptExecutor) browser).executeScript("window.localStorage.setItem('delayqueue.live', 'paused')");
			Map<String, String[]> pages = new LinkedHashMap<>();
			pages.put("overview", new String[] { "#", "totals" });
			pages.put("queue, scheduled tab", new String[] { "#q/" + QUEUE, "page-position" });
			pages.put("message", new String[] { "#q/" + QUEUE + "/m/s-500000", "detail-payload" });
			for (Map.Entry<String, String[]> shown : pages.entrySet()) {
				figures.put("page " + shown.getKey() + " p50/max (ms)", time(7, () -> {
					browser.get("about:blank");
					browser.get(page + shown.getValue()[0]);
					return wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.id(shown.getValue()[1])));
				}));
			}
			for (String tab : List.of("dead-letters", "in-flight", "history")) {
				figures.put("page queue, " + tab + " tab p50/max (ms)", time(7, () -> {
					browser.get("about:blank");
					browser.get(page + "#q/" + QUEUE);
					wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.id("page-position")));
					long clicked = System.nanoTime();
					browser.findElement(By.id("tab-" + tab)).click();
					wait(browser).until(ExpectedConditions
						.presenceOfElementLocated(By.cssSelector("#tab-" + tab + "[aria-pressed='true']")));
					wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#tab-body > *")));
					return System.nanoTime() - clicked;
				}));
			}
		}
		finally {
			browser.quit();
		}
		StringBuilder report = new StringBuilder();
		figures.forEach((name, value) -> report.append(name).append(": ").append(value).append('\n'));
		Files.createDirectories(Path.of("target"));
		Files.writeString(Path.of("target", "dashboard-at-scale.txt"), report);
		System.out.println(report);
	}

	/**
	 * Waits, looking every 5 ms (not the default 500 ms, which would be what is timed).
	 */
	private static WebDriverWait wait(WebDriver browser) {
		WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(30));
		wait.pollingEvery(Duration.ofMillis(5));
		return wait;
	}

	private static String encode(String text) {
		return URLEncoder.encode(text, StandardCharsets.UTF_8);
	}

	/**
	 * The median and the highest of several runs, in ms; a run that returns a duration in
	 * ns (a tab's click to content) counts that instead of the whole run.
	 */
	private static String time(int runs, Callable<?> run) throws Exception {
		List<Double> millis = new ArrayList<>();
		for (int i = 0; i < runs; i++) {
			long started = System.nanoTime();
			Object result = run.call();
			long nanos = (result instanceof Long measured) ? measured : System.nanoTime() - started;
			millis.add(nanos / 1e6);
		}
		Collections.sort(millis);
		return String.format("%.1f / %.1f", millis.get(runs / 2), millis.get(runs - 1));
	}

}
